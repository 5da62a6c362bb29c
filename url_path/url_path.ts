/**
 * Cutting the path out of a serialized request URL without parsing it
 * (`new URL()` costs about 0.2 µs a request), and the escape decoding
 * that patterns and paths share. A room of its own below its users (the
 * matcher, the router, the logger, static files, timeouts), so the matcher
 * does not import from the router above it; not a public export of the
 * package.
 *
 * @module
 */

/**
 * Characters a URL path keeps as they are (RFC 3986 `pchar` without `%`:
 * letters, digits, `-._~!$&'()*+,;=:@`, and `/`): 1, by char code below
 * 128. For the scans that decide a path needs no normalising.
 */
export const PLAIN: Uint8Array = new Uint8Array(128);
for (
  const char
    of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/"
) PLAIN[char.charCodeAt(0)] = 1;

/**
 * Where the path starts in an http(s) URL, or -1 where `new URL()` must
 * decide: other schemes, credentials ("user:pass@"), and an authority with
 * "?", "#" or "\\" in it (see `cutPath`). For the logger's URL parts.
 */
export function pathStart(url: string): number {
  let i = authorityStart(url);
  // The logger's host and port are for http(s) only.
  if (
    i === -1 || url.charCodeAt(0) !== 104 || url.charCodeAt(1) !== 116 ||
    url.charCodeAt(2) !== 116 || url.charCodeAt(3) !== 112
  ) return -1;
  const length = url.length;
  for (; i < length; i++) {
    const code = url.charCodeAt(i);
    if (code === 47 /* / */) return i;
    if (
      code === 64 /* @ */ || code === 63 /* ? */ || code === 35 /* # */ ||
      code === 92 /* \ */
    ) return -1;
  }
  return length;
}

/**
 * The encoded pathname of a request URL, as `URL.pathname` gives it: up to
 * the first `?` or `#` (in-process Requests may keep a fragment). A `\\`
 * in the path stays as sent (URL would read it as `/`): the logger shows
 * it, and static files refuse it.
 */
export function pathnameOf(url: string): string {
  return cutPath(url, false);
}

/**
 * The pathname the router matches: `URL.pathname` with escapes of
 * unreserved characters decoded (`normalizeEscapes`), but for dot
 * segments, which stay as sent (docs/guide.md, "Routing").
 */
export function routePathOf(url: string): string {
  return cutPath(url, true);
}

function cutPath(url: string, normalize: boolean): string {
  const i = authorityStart(url);
  if (i === -1) return parse(url, normalize);
  // Native scans (indexOf), one per character that matters: in a loaded
  // server each costs less than a loop by char code over the URL
  // (instructions per request, BENCHMARKS.md "HTTP load").
  const slash = url.indexOf("/", i);
  if (slash === -1) return parse(url, normalize);
  // URL ends the authority at "?", "#" or "\\" too, and `Deno.serve` builds
  // the URL from the Host header as sent: with one of them there, only
  // URL's own reading agrees with `context.url.pathname`.
  let end = url.indexOf("?", i);
  if (end === -1) end = url.length;
  else if (end < slash) return parse(url, normalize);
  const hash = url.indexOf("#", i);
  if (hash !== -1) {
    if (hash < slash) return parse(url, normalize);
    if (hash < end) end = hash;
  }
  // For routing, in the path too: URL reads "\\" as "/" there. The logger
  // and static files take the path as sent (static files refuse it).
  const backslash = url.indexOf("\\", i);
  if (backslash !== -1 && backslash < (normalize ? end : slash)) {
    return parse(url, normalize);
  }
  if (end - slash === 1) return "/";
  const path = url.slice(slash, end);
  if (!normalize) return path;
  const escape = url.indexOf("%", slash);
  return escape !== -1 && escape < end ? normalizeEscapes(path) : path;
}

/**
 * Where the authority starts, after "scheme://" with a four-letter scheme
 * or a five-letter one ending in "s" (http, https, and the like), or -1.
 * The letters are not checked: a Request's URL is serialized already, and
 * for any scheme with an authority its path is what follows it. Only
 * `Deno.serve` gives a URL as sent, and always with http(s).
 */
function authorityStart(url: string): number {
  let i: number;
  if (url.charCodeAt(4) === 58 /* : */) i = 7;
  else if (url.charCodeAt(5) === 58 && url.charCodeAt(4) === 115 /* s */) {
    i = 8;
  } else return -1;
  return url.charCodeAt(i - 1) === 47 && url.charCodeAt(i - 2) === 47 ? i : -1;
}

function parse(url: string, normalize: boolean): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    // URL refuses it (a Host such as "a b?x"): `context.url` throws too,
    // so nothing can disagree, and the path as sent is routed.
    path = partsAsSent(url).pathname;
  }
  return normalize ? normalizeEscapes(path) : path;
}

/**
 * The host, pathname and search of a URL that `new URL()` refuses, cut as
 * sent: the host is what follows "://" (and the last "@", so no
 * credentials) up to the first "/"; the pathname runs to the first "?" or
 * "#" after that; a lone "?" is no search, as in URL.
 */
export function partsAsSent(
  url: string,
): { host: string; pathname: string; search: string } {
  const scheme = url.indexOf("://");
  const start = scheme === -1 ? 0 : scheme + 3;
  let slash = url.indexOf("/", start);
  if (slash === -1) slash = url.length;
  const at = url.lastIndexOf("@", slash);
  let end = url.indexOf("#", slash);
  if (end === -1) end = url.length;
  let query = url.indexOf("?", slash);
  if (query === -1 || query > end) query = end;
  return {
    host: url.slice(at >= start ? at + 1 : start, slash),
    pathname: url.slice(slash, query) || "/",
    search: end - query > 1 ? url.slice(query, end) : "",
  };
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
