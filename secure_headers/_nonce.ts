/**
 * Nonces for Content-Security-Policy: 128 random bits in base64.
 *
 * @module
 */

const ALPHABET =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const NONCE_BYTES = 16;
// Random bytes are drawn for 64 nonces at a time: one call into the
// system's random source instead of one per request.
const POOL_BYTES = NONCE_BYTES * 64;

let pool: Uint8Array | undefined;
let offset = POOL_BYTES;

/** A fresh nonce: 16 random bytes in base64 (24 characters). */
export function createNonce(): string {
  if (offset === POOL_BYTES) {
    pool ??= new Uint8Array(POOL_BYTES);
    crypto.getRandomValues(pool);
    offset = 0;
  }
  const bytes = pool!;
  let text = "";
  const end = offset + 15;
  let i = offset;
  for (; i < end; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    text += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] +
      ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
  }
  const last = bytes[i];
  text += ALPHABET[last >> 2] + ALPHABET[(last & 3) << 4] + "==";
  // Used bytes are wiped, so no nonce can be read back from the pool.
  bytes.fill(0, offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return text;
}
