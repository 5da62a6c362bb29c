/**
 * Conditional requests: `If-Match`, `If-Unmodified-Since`, `If-None-Match`,
 * `If-Modified-Since`, `If-Range` (RFC 9110 §13).
 *
 * @module
 */

/** A strong validator from size and modification time, as nginx makes it. */
export function etagOf(size: number, mtime: Date | null): string {
  const time = mtime === null ? 0 : mtime.getTime();
  return `"${time.toString(16)}-${size.toString(16)}"`;
}

/** Whether `If-None-Match` lists `etag` (weak comparison) or is `*`. */
function noneMatch(header: string, etag: string): boolean {
  const opaque = etag.replace(/^W\//, "");
  for (const item of header.split(",")) {
    const tag = item.trim();
    if (tag === "*" || tag.replace(/^W\//, "") === opaque) return true;
  }
  return false;
}

/** Whole seconds: HTTP dates carry no milliseconds. */
function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** Whether `If-Match` lists `etag` (strong comparison) or is `*`. */
function anyMatch(header: string, etag: string): boolean {
  for (const item of header.split(",")) {
    const tag = item.trim();
    // A weak tag never matches strongly (RFC 9110 §8.8.3.2).
    if (tag === "*" || (tag === etag && !tag.startsWith("W/"))) return true;
  }
  return false;
}

/**
 * Whether a precondition fails, so `412 Precondition Failed` answers
 * (RFC 9110 §13.2.2, steps 1 and 2): `If-Match` that lists neither the
 * entity tag nor `*`; else, without `If-Match`, `If-Unmodified-Since`
 * older than the file (seconds compared). An unparsable date is ignored (§13.1.4).
 */
export function preconditionFailed(
  headers: Headers,
  etag: string,
  mtime: Date | null,
): boolean {
  const ifMatch = headers.get("if-match");
  // An empty field lists nothing: ignored, as Go's ServeContent does.
  if (ifMatch !== null && ifMatch.trim() !== "") {
    return !anyMatch(ifMatch, etag);
  }
  const ifUnmodifiedSince = headers.get("if-unmodified-since");
  if (ifUnmodifiedSince === null || mtime === null) return false;
  const since = Date.parse(ifUnmodifiedSince);
  return !Number.isNaN(since) && seconds(mtime) > Math.floor(since / 1000);
}

/**
 * Whether the client's copy is current, so `304 Not Modified` answers.
 * `If-None-Match` wins over `If-Modified-Since` when both are sent
 * (RFC 9110 §13.2.2).
 */
export function notModified(
  headers: Headers,
  etag: string,
  mtime: Date | null,
): boolean {
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) return noneMatch(ifNoneMatch, etag);
  const ifModifiedSince = headers.get("if-modified-since");
  if (ifModifiedSince === null || mtime === null) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && seconds(mtime) <= Math.floor(since / 1000);
}

/**
 * Whether a Range applies: without `If-Range`, yes; with it, only when it
 * names the current entity tag (strong match) or the exact Last-Modified.
 */
export function rangeApplies(
  headers: Headers,
  etag: string,
  lastModified: string | undefined,
): boolean {
  const ifRange = headers.get("if-range");
  if (ifRange === null) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === etag;
  return lastModified !== undefined && value === lastModified;
}
