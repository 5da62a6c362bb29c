// HMAC-SHA256 signing with secret rotation.
//
// A signed string is `<value>.<base64url signature>`. The first secret signs;
// every secret verifies, through `crypto.subtle.verify`, which compares in
// constant time. `crypto.subtle` costs 20 to 60 µs a call on Deno (an async
// op on a worker thread, so most of it is the hop), more than a whole routed
// request. Hence:
// - signing, which compares nothing secret, runs synchronously in
//   `@noble/hashes` (audited; about 6 µs), with the keyed state made once;
// - strings that already verified are remembered: a later request carrying
//   the very same string skips the HMAC. A string that was never verified,
//   such as any forgery, always goes through `verify`, so the cache cannot
//   be used to guess a signature.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

const encoder = new TextEncoder();
/** Strings per cache generation; two generations are kept. */
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
  sign(value: string): string;
  /**
   * The result of an earlier successful `unsign` (or `sign`) of this very
   * string, without computing anything; `undefined` when not remembered.
   */
  cached(signed: string): Unsigned | undefined;
  /** Checks a signed string; `null` when no secret verifies it. */
  unsign(signed: string): Promise<Unsigned | null>;
}

/** Reused for ASCII values (all our cookie values): no encoder op call. */
let scratch = new Uint8Array(1024);

/**
 * The UTF-8 bytes of `value`, valid until the next call. Base64url payloads
 * and session ids are ASCII, which a plain loop copies faster than the
 * `TextEncoder` op round trip.
 */
function bytesOf(value: string): Uint8Array {
  const length = value.length;
  if (length > scratch.length) scratch = new Uint8Array(length * 2);
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0x7f) return encoder.encode(value);
    scratch[i] = code;
  }
  return scratch.subarray(0, length);
}

/** Creates a {@linkcode Signer}; the secrets must be non-empty strings. */
export function createSigner(secrets: readonly string[]): Signer {
  let keys: Promise<CryptoKey[]> | undefined;
  // The first secret's keyed HMAC state; each signature starts from a copy
  // of it made into one reused instance (a fresh clone allocates two hashes).
  const signing = hmac.create(sha256, encoder.encode(secrets[0]));
  const work = signing.clone();
  // Two generations: when the current one is full it becomes the previous
  // one, so the cache holds up to 2 x CACHE_SIZE strings and evicting costs
  // nothing per insert.
  let verified = new Map<string, Unsigned>();
  let previous = new Map<string, Unsigned>();

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
      previous = verified;
      verified = new Map();
    }
    verified.set(signed, result);
  }

  return {
    sign(value: string): string {
      signing._cloneInto(work);
      const signature = work.update(bytesOf(value)).digest();
      const signed = `${value}.${
        signature.toBase64({ alphabet: "base64url", omitPadding: true })
      }`;
      remember(signed, { value, index: 0 });
      return signed;
    },

    cached(signed: string): Unsigned | undefined {
      return verified.get(signed) ?? previous.get(signed);
    },

    async unsign(signed: string): Promise<Unsigned | null> {
      const hit = verified.get(signed) ?? previous.get(signed);
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
      // Only the canonical text of a signature counts: "loose" decoding
      // ignores the last character's spare bits, which would let four texts
      // carry one signature.
      const text = signed.slice(dot + 1);
      if (
        signature.toBase64({ alphabet: "base64url", omitPadding: true }) !==
          text
      ) return null;
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
