/**
 * RFC 4648 base32 (the alphabet `A-Z2-7`), as authenticator apps use it:
 * encoded without padding; decoded case-insensitively, ignoring spaces,
 * hyphens and trailing `=`.
 *
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) {
  VALUES[ALPHABET.charCodeAt(i)] = i;
  VALUES[ALPHABET.toLowerCase().charCodeAt(i)] = i;
}

/** `bytes` in base32, upper-case, without padding. */
export function encodeBase32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * The bytes of a base32 string, or `null` when it holds a character outside
 * the alphabet (spaces and hyphens between groups and `=` padding aside),
 * is empty, or ends with bits a base32 encoder never writes.
 */
export function decodeBase32(text: string): Uint8Array | null {
  if (typeof text !== "string" || text.length > 4096) return null;
  const out = new Uint8Array(Math.floor((text.length * 5) / 8));
  let length = 0;
  let buffer = 0;
  let bits = 0;
  let padding = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x3d /* = */) {
      padding = true;
      continue;
    }
    if (code === 0x20 || code === 0x2d /* space, - */) continue;
    const value = code < 128 ? VALUES[code] : -1;
    if (value < 0 || padding) return null;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (buffer >>> bits) & 0xff;
    }
  }
  // Leftover bits must be fewer than a byte's worth and zero.
  if (length === 0 || bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) {
    return null;
  }
  return out.subarray(0, length);
}
