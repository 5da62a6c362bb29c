/**
 * A response's declared length, which decides whether `etag()` reads a body
 * whole (`readWhole()` in `response/read_ready.ts`).
 *
 * @module
 */

/** `Content-Length` as a whole number of bytes, else `undefined`. */
export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get("content-length");
  if (value === null || !/^\s*\d{1,15}\s*$/.test(value)) return undefined;
  return Number(value);
}
