/**
 * `Range: bytes=...` for one range (RFC 9110 §14). Several ranges are
 * answered with the whole file (a server may ignore Range), which is what
 * nginx does for ranges it does not coalesce and keeps us free of
 * `multipart/byteranges`.
 *
 * @module
 */

/** A satisfiable byte range, both ends inclusive. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** `undefined`: ignore the header and send the whole file. */
export type RangeResult = ByteRange | "unsatisfiable" | undefined;

const SINGLE = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/** Reads a Range header against a file of `size` bytes. */
export function parseRange(header: string, size: number): RangeResult {
  const match = SINGLE.exec(header);
  if (match === null) return undefined; // other units, several ranges, garbage
  const [, first, last] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return undefined; // invalid: ignore
  if (start >= size) return "unsatisfiable";
  return { start, end };
}
