/**
 * Byte pattern search for the multipart parser.
 *
 * A fixed-stride filter: every window of `m` bytes (`m` the pattern length)
 * holds exactly one position of the form `start + m - 1 + k * m`, so the
 * search looks at those positions only, one byte in `m` (one in 41 for a
 * typical 37-character boundary). A byte that does not occur in the pattern
 * rules out every window through it; one that does is checked against each
 * place it has in the pattern. No per-byte JS loop, no decoding.
 *
 * This replaced Boyer-Moore-Horspool, which looks at as few bytes (about one
 * in 38 here) but computes the next position from the byte just loaded: on
 * a body that is not already in the CPU cache, every step then waited for
 * the previous memory load, and a 50 MiB file took about 19 ms to search.
 * Positions a fixed stride apart do not depend on each other, so the CPU
 * loads them in parallel and the same search takes about 9 ms (2 ms when
 * the bytes are cached; see BENCHMARKS.md). `Uint8Array#indexOf` only finds
 * single bytes, and `node:buffer`'s `indexOf` measured ten times slower than
 * a JS search in Deno.
 *
 * @module
 */

/** A pattern prepared for {@linkcode indexOfPattern}. */
export interface BytePattern {
  readonly bytes: Uint8Array;
  /** 1 for each byte value that occurs in the pattern, else 0. */
  readonly has: Uint8Array;
  /**
   * Where each byte value's places in the pattern begin in `places`:
   * `places[starts[b] .. starts[b + 1]]`, highest place first.
   */
  readonly starts: Uint16Array;
  /** The places (indexes into the pattern) of every byte, grouped by value. */
  readonly places: Uint16Array;
}

/** Prepares `bytes` (1 to 65535 long) for repeated searches. */
export function createPattern(bytes: Uint8Array): BytePattern {
  if (bytes.length === 0 || bytes.length > 65535) {
    throw new RangeError("A search pattern must be 1 to 65535 bytes long");
  }
  const has = new Uint8Array(256);
  const starts = new Uint16Array(257);
  for (const byte of bytes) {
    has[byte] = 1;
    starts[byte + 1]++;
  }
  for (let b = 1; b < 257; b++) starts[b] += starts[b - 1];
  const next = starts.slice(0, 256);
  const places = new Uint16Array(bytes.length);
  // Highest place first, so that candidate windows come lowest start first.
  for (let j = bytes.length - 1; j >= 0; j--) places[next[bytes[j]]++] = j;
  return { bytes, has, starts, places };
}

/** Index of the first `pattern` in `haystack` at or after `start`, or -1. */
export function indexOfPattern(
  haystack: Uint8Array,
  pattern: BytePattern,
  start: number,
): number {
  const has = pattern.has;
  const length = pattern.bytes.length;
  const end = haystack.length;
  // Windows found at one probe all start before those of the next probe,
  // so the first match found is the first in the haystack.
  for (let probe = start + length - 1; probe < end; probe += length) {
    if (has[haystack[probe]] === 0) continue;
    const found = matchThrough(haystack, pattern, probe, start);
    if (found !== -1) return found;
  }
  return -1;
}

/** The first match that contains `probe` and starts at or after `start`. */
function matchThrough(
  haystack: Uint8Array,
  pattern: BytePattern,
  probe: number,
  start: number,
): number {
  const { bytes, starts, places } = pattern;
  const length = bytes.length;
  const end = haystack.length;
  const byte = haystack[probe];
  const last = bytes[length - 1];
  for (let k = starts[byte], stop = starts[byte + 1]; k < stop; k++) {
    const at = probe - places[k];
    if (at < start || at + length > end) continue;
    // Both ends first: a near copy of a delimiter rarely gets both right.
    if (haystack[at + length - 1] !== last) continue;
    let j = 0;
    while (j < length && haystack[at + j] === bytes[j]) j++;
    if (j === length) return at;
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
