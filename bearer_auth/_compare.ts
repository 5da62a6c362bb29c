// Constant-time comparison of secrets (tokens, passwords), shared by
// bearerAuth() and basicAuth().
//
// Both sides are first reduced to an HMAC-SHA256 under a random key made
// per process, then the 32-byte digests are compared with no early exit:
// the time taken depends neither on where the strings differ nor on their
// lengths, and the digests an attacker could time against are unknown
// to them.

import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

const encoder = new TextEncoder();
let key: Uint8Array | undefined;

/** The HMAC-SHA256 of `value` under the process's comparison key. */
export function digestOf(value: string): Uint8Array {
  // Made on first use, not at module load (no crypto call at import).
  key ??= crypto.getRandomValues(new Uint8Array(32));
  return hmac(sha256, key, encoder.encode(value));
}

/** Whether two digests are equal, reading every byte. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

/** Whether `given` equals `expected`, in constant time. */
export function secretsEqual(given: string, expected: string): boolean {
  return digestsEqual(digestOf(given), digestOf(expected));
}

/**
 * A `WWW-Authenticate` parameter value as a quoted-string. Refuses control
 * characters (a header cannot carry them) with a `TypeError` naming `what`.
 */
export function quoteParam(value: string, what: string): string {
  // deno-lint-ignore no-control-regex -- refusing control characters is the point
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new TypeError(`${what} must not contain control characters`);
  }
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}
