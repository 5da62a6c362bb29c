/**
 * Byte pattern search for the multipart parser.
 *
 * Boyer-Moore-Horspool: on random (file) bytes it looks at about one byte in
 * `pattern.length`, so a 40-byte boundary is found at several GB/s without a
 * per-byte JS loop. `Uint8Array#indexOf` only finds single bytes, and
 * `node:buffer`'s `indexOf` measured ten times slower than this in Deno.
 */

/** A pattern prepared for {@linkcode indexOfPattern}. */
export interface BytePattern {
  readonly bytes: Uint8Array;
  /** How far to move for each byte value seen under the pattern's end. */
  readonly skip: Uint16Array;
}

/** Prepares `bytes` (at most 65535 long) for repeated searches. */
export function createPattern(bytes: Uint8Array): BytePattern {
  const last = bytes.length - 1;
  const skip = new Uint16Array(256).fill(bytes.length);
  for (let i = 0; i < last; i++) skip[bytes[i]] = last - i;
  return { bytes, skip };
}

/** Index of the first `pattern` in `haystack` at or after `start`, or -1. */
export function indexOfPattern(
  haystack: Uint8Array,
  pattern: BytePattern,
  start: number,
): number {
  const { bytes, skip } = pattern;
  const last = bytes.length - 1;
  const lastByte = bytes[last];
  const end = haystack.length;
  let i = start + last;
  while (i < end) {
    const byte = haystack[i];
    if (byte === lastByte) {
      let j = last - 1;
      let k = i - 1;
      while (j >= 0 && haystack[k] === bytes[j]) {
        j--;
        k--;
      }
      if (j < 0) return k + 1;
    }
    i += skip[byte];
  }
  return -1;
}

/**
 * Where a possible start of `pattern` cut off by the end of `haystack`
 * begins: the smallest index `t >= start` whose suffix `haystack[t..]` is a
 * proper prefix of the pattern, or `haystack.length` when there is none.
 * Only the last `pattern.length - 1` bytes are looked at.
 */
export function partialMatchStart(
  haystack: Uint8Array,
  pattern: BytePattern,
  start: number,
): number {
  const { bytes } = pattern;
  const end = haystack.length;
  const first = bytes[0];
  let t = Math.max(start, end - bytes.length + 1);
  while (t < end) {
    t = haystack.indexOf(first, t);
    if (t === -1) return end;
    let j = 1;
    while (t + j < end && haystack[t + j] === bytes[j]) j++;
    if (t + j === end) return t;
    t++;
  }
  return end;
}
