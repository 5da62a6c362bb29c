/**
 * The path to route, read from an HTTP/1.1 request target (`incoming.url`
 * on Node) when any URL built from it keeps that path as sent: origin
 * form (`/...`), only characters a URL path never encodes or rewrites
 * (RFC 3986 `pchar` without `%`: letters, digits, `-._~!$&'()*+,;=:@` and
 * `/`), no segment that starts with `.` (so no dot segment, RFC 3986
 * §5.2.4), up to the first `?`. Then `request.url`'s path (WHATWG URL
 * parsing of `http://<host><target>`, whatever the host the adapter
 * accepted) is this very string, and routing it equals routing
 * `routePathOf(request.url)` without reading the URL again. Anything else
 * (`%`, `\`, `#`, `..`, a space, an absolute-form target, `/.well-known`)
 * gives `undefined`: the router then cuts `request.url` as before.
 *
 * @module
 */

import { PLAIN } from "../url_path/url_path.ts";

/**
 * Where the path of `target` ends (its first `?`, or its length) when it
 * is plain (see the module docs), else -1.
 */
export function plainPathEnd(target: string): number {
  if (target.charCodeAt(0) !== 47 /* / */) return -1;
  const length = target.length;
  let previous = 47;
  let i = 1;
  for (; i < length; i++) {
    const code = target.charCodeAt(i);
    if (code === 63 /* ? */) break;
    // A segment that starts with "." ("." and ".." among them).
    if (code === 46 /* . */ && previous === 47) return -1;
    if (code > 127 || PLAIN[code] === 0) return -1;
    previous = code;
  }
  return i;
}

/** The route path of `target` when it is plain (see the module docs). */
export function plainTargetPath(
  target: string | undefined,
): string | undefined {
  if (target === undefined) return undefined;
  const end = plainPathEnd(target);
  if (end === -1) return undefined;
  return end === target.length ? target : target.slice(0, end);
}
