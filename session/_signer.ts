/**
 * HMAC-SHA256 signing with secret rotation.
 *
 * A signed string is `<value>.<base64url signature>`. The first secret signs;
 * every secret verifies. `crypto.subtle` costs 20 to 80 µs a call on Deno (an
 * async op on a worker thread, so most of it is the hop), more than a whole
 * routed request. Hence:
 * - both signing and verifying compute the HMAC synchronously in
 * `@noble/hashes` (audited; about 2 µs for a session cookie), with each
 * secret's keyed state made once; verification compares the expected and
 * the given signature in constant time (every byte, no early exit), so the
 * comparison cannot be timed to guess a signature byte by byte;
 * - strings that already verified (or that we signed) are remembered: a
 * later request carrying the very same string skips the HMAC. A string
 * that was never verified, such as any forgery, always has its HMAC
 * computed and compared.
 *
 * On Bun, the runtime's own HMAC (`Bun.CryptoHasher` with the secret as
 * key, each secret's keyed state copied per signature) takes 0.5-0.7 µs
 * where `@noble/hashes` takes 4-6 µs (bench/page/hmac.ts); it is
 * checked against `@noble/hashes` once per signer and not used if it
 * differs or is missing. On Node `node:crypto`'s `createHmac` was level
 * with `@noble/hashes` and on Deno 3.5 times its cost, so both keep it.
 *
 * Copying a keyed state into one reused instance uses `_cloneInto(to)`,
 * which noble declares on its `Hash` interface but names like an internal.
 * The documented `clone()` allocates a new HMAC and two SHA-256 states per
 * call: 1.4 to 1.6 times the CPU per signature, 0.7 µs more
 * (bench/session/signer_copy.ts), so the version is pinned in deno.json
 * and `_signer_test.ts` checks the behavior relied on; `clone()` is the
 * fallback should a release drop `_cloneInto`.
 *
 * @module
 */

import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { fromBase64Url, toBase64Url } from "../runtime/base64.ts";

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
  /** Checks a signed string; `null` when no secret verifies it. */
  unsign(signed: string): Unsigned | null;
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

/**
 * Compares two 32-byte signatures in time that does not depend on where
 * they differ: every byte is read and the differences are OR-ed together,
 * with no early exit.
 */
function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < 32; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

/** What `session/_signer.ts` uses of Bun's `CryptoHasher`. */
interface BunHasher {
  copy(): BunHasher;
  update(data: Uint8Array): BunHasher;
  digest(): Uint8Array;
}
type BunHasherClass = new (algorithm: string, key: Uint8Array) => BunHasher;

/**
 * Each secret's keyed HMAC-SHA256 state in Bun's native hasher, or
 * `undefined` off Bun, on a Bun without keyed hashers, or should its
 * signature of a probe differ from `@noble/hashes`'s.
 */
function bunKeyed(
  secrets: readonly string[],
  probe: (secret: number, data: Uint8Array) => Uint8Array,
): BunHasher[] | undefined {
  const Hasher = (globalThis as { Bun?: { CryptoHasher?: BunHasherClass } })
    .Bun?.CryptoHasher;
  if (typeof Hasher !== "function") return undefined;
  try {
    const keyed = secrets.map((secret) =>
      new Hasher("sha256", encoder.encode(secret))
    );
    const data = encoder.encode("fetchkit signer probe");
    for (let index = 0; index < keyed.length; index++) {
      const native = keyed[index].copy().update(data).digest();
      const expected = probe(index, data);
      if (native.length !== 32) return undefined;
      for (let i = 0; i < 32; i++) {
        if (native[i] !== expected[i]) return undefined;
      }
    }
    return keyed;
  } catch {
    return undefined;
  }
}

/** Creates a {@linkcode Signer}; the secrets must be non-empty strings. */
export function createSigner(secrets: readonly string[]): Signer {
  // Each secret's keyed HMAC state, made once; a signature starts from a
  // copy of one made into a reused instance (a fresh clone allocates two
  // hashes). The first secret signs.
  const keyed = secrets.map((secret) =>
    hmac.create(sha256, encoder.encode(secret))
  );
  const work = keyed[0].clone();
  const fast = typeof work._cloneInto === "function";
  // Two generations: when the current one is full it becomes the previous
  // one, so the cache holds up to 2 x CACHE_SIZE strings and evicting costs
  // nothing per insert.
  let verified = new Map<string, Unsigned>();
  let previous = new Map<string, Unsigned>();

  function nobleMac(index: number, data: Uint8Array): Uint8Array {
    const state = keyed[index];
    return (fast ? state._cloneInto(work) : state.clone()).update(data)
      .digest();
  }
  const native = bunKeyed(secrets, nobleMac);

  function mac(index: number, data: Uint8Array): Uint8Array {
    return native === undefined
      ? nobleMac(index, data)
      : native[index].copy().update(data).digest();
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
      const signature = mac(0, bytesOf(value));
      const signed = `${value}.${toBase64Url(signature)}`;
      remember(signed, { value, index: 0 });
      return signed;
    },

    unsign(signed: string): Unsigned | null {
      const hit = verified.get(signed) ?? previous.get(signed);
      if (hit !== undefined) return hit;
      const dot = signed.lastIndexOf(".");
      // 43 characters: 32 bytes in unpadded base64url.
      if (dot === -1 || signed.length - dot - 1 !== 43) return null;
      let signature: Uint8Array<ArrayBuffer>;
      try {
        signature = fromBase64Url(signed.slice(dot + 1));
      } catch {
        return null;
      }
      // Only the canonical text of a signature counts: "loose" decoding
      // ignores the last character's spare bits, which would let four texts
      // carry one signature.
      const text = signed.slice(dot + 1);
      if (
        toBase64Url(signature) !==
          text
      ) return null;
      const value = signed.slice(0, dot);
      const data = bytesOf(value);
      for (let index = 0; index < keyed.length; index++) {
        if (equalInConstantTime(mac(index, data), signature)) {
          const result = { value, index };
          remember(signed, result);
          return result;
        }
      }
      return null;
    },
  };
}
