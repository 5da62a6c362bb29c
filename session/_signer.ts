// HMAC-SHA256 signing with secret rotation, on Web Crypto.
//
// A signed string is `<value>.<base64url signature>`. The first secret signs;
// every secret verifies, through `crypto.subtle.verify`, which compares in
// constant time. `crypto.subtle` costs about 30 µs a call on Deno (an async
// op on a worker thread), more than a whole routed request, so strings that
// already verified are remembered: a later request carrying the very same
// string skips the HMAC. A string that was never verified, such as any
// forgery, always goes through `verify`, so the cache cannot be used to
// guess a signature.

const encoder = new TextEncoder();
const CACHE_SIZE = 512;

/** The result of {@linkcode Signer.unsign}. */
export interface Unsigned {
  /** The value that was signed. */
  value: string;
  /** The index of the secret that verified it; above 0 means re-sign. */
  index: number;
}

/** Signs and verifies strings with a list of secrets. */
export interface Signer {
  /** Returns `value` followed by `.` and its signature with the first secret. */
  sign(value: string): Promise<string>;
  /** Checks a signed string; `null` when no secret verifies it. */
  unsign(signed: string): Promise<Unsigned | null>;
}

/** Creates a {@linkcode Signer}; the secrets must be non-empty strings. */
export function createSigner(secrets: readonly string[]): Signer {
  let keys: Promise<CryptoKey[]> | undefined;
  const verified = new Map<string, Unsigned>();

  function importKeys(): Promise<CryptoKey[]> {
    return keys ??= Promise.all(secrets.map((secret) =>
      crypto.subtle.importKey(
        "raw",
        encoder.encode(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign", "verify"],
      )
    ));
  }

  function remember(signed: string, result: Unsigned): void {
    if (verified.size >= CACHE_SIZE) {
      // Drop the oldest entry: Map keeps insertion order.
      verified.delete(verified.keys().next().value!);
    }
    verified.set(signed, result);
  }

  return {
    async sign(value: string): Promise<string> {
      const [key] = await importKeys();
      const signature = await crypto.subtle.sign(
        "HMAC",
        key,
        encoder.encode(value),
      );
      const signed = `${value}.${
        new Uint8Array(signature).toBase64({
          alphabet: "base64url",
          omitPadding: true,
        })
      }`;
      remember(signed, { value, index: 0 });
      return signed;
    },

    async unsign(signed: string): Promise<Unsigned | null> {
      const hit = verified.get(signed);
      if (hit !== undefined) return hit;
      const dot = signed.lastIndexOf(".");
      // 43 characters: 32 bytes in unpadded base64url.
      if (dot === -1 || signed.length - dot - 1 !== 43) return null;
      let signature: Uint8Array<ArrayBuffer>;
      try {
        signature = Uint8Array.fromBase64(signed.slice(dot + 1), {
          alphabet: "base64url",
          lastChunkHandling: "loose",
        });
      } catch {
        return null;
      }
      const value = signed.slice(0, dot);
      const data = encoder.encode(value);
      const all = await importKeys();
      for (let index = 0; index < all.length; index++) {
        if (await crypto.subtle.verify("HMAC", all[index], signature, data)) {
          const result = { value, index };
          remember(signed, result);
          return result;
        }
      }
      return null;
    },
  };
}
