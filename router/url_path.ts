/**
 * Cutting the path out of a serialized request URL without parsing it
 * (`new URL()` costs about 0.2 µs a request). Shared by the router and the
 * logger; not a public export of the package.
 *
 * @module
 */

/**
 * Where the path starts in an http(s) URL, or -1 for other schemes and for
 * URLs with credentials (`Deno.serve` builds the URL from the Host header,
 * so "user:pass@" can appear): callers then use `new URL()`.
 */
export function pathStart(url: string): number {
  // Native scans (indexOf) over the host: in a server, where
  // this code runs cold between requests, they cost less than a loop by
  // char code (BENCHMARKS.md, "HTTP load").
  let i: number;
  if (url.charCodeAt(4) === 58 /* : */) i = 7;
  else if (url.charCodeAt(5) === 58 && url.charCodeAt(4) === 115 /* s */) {
    i = 8;
  } else return -1;
  // "http" by char codes: startsWith is a builtin call that profiles show.
  if (
    url.charCodeAt(i - 1) !== 47 || url.charCodeAt(i - 2) !== 47 ||
    url.charCodeAt(0) !== 104 || url.charCodeAt(1) !== 116 ||
    url.charCodeAt(2) !== 116 || url.charCodeAt(3) !== 112
  ) return -1;
  const slash = url.indexOf("/", i);
  const end = slash === -1 ? url.length : slash;
  // indexOf, not lastIndexOf: V8 runs the latter in C++, a costly call.
  const at = url.indexOf("@", i);
  return at !== -1 && at < end ? -1 : end;
}

/**
 * The encoded pathname of a request URL, as `URL.pathname` gives it: up to
 * the first `?` or `#` (in-process Requests may keep a fragment).
 */
export function pathnameOf(url: string): string {
  const start = pathStart(url);
  if (start === -1) return new URL(url).pathname;
  let end = url.indexOf("?", start);
  if (end === -1) end = url.length;
  const hash = url.indexOf("#", start);
  if (hash !== -1 && hash < end) end = hash;
  return end - start <= 1 ? "/" : url.slice(start, end);
}

/** Percent-escapes of letters, digits and `_` (unreserved in RFC 3986). */
const UNRESERVED_ESCAPE =
  /%(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|5[Ff])/g;

/**
 * Decodes the escapes of letters, digits and `_` (`/%61` is `/a`), as RFC
 * 3986 §6.2.2.2 says equivalent URIs do, so static pattern text matches
 * however a client spelled it. The other unreserved characters (`-`, `.`,
 * `~`) stay escaped: `href()` escapes them where they would delimit a
 * parameter (`/:name.:ext`). Reserved characters stay as sent: `%40`
 * does not match a static `@` (parameters are decoded anyway), and `%2F`
 * never becomes a segment separator. No Unicode normalization: NFC and
 * NFD spellings of `é` are different paths.
 */
export function normalizeEscapes(path: string): string {
  return path.indexOf("%") === -1 ? path : path.replace(
    UNRESERVED_ESCAPE,
    (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)),
  );
}
