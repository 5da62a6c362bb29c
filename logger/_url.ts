/**
 * The parts of a request's URL a log line shows (path, pathname, query),
 * cut from `request.url` without parsing it again.
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import { partsAsSent, pathnameOf, pathStart } from "../url_path/url_path.ts";

const DEFAULT_PORTS: Record<string, string> = {
  "http:": "80",
  "https:": "443",
  "ws:": "80",
  "wss:": "443",
  "ftp:": "21",
};

// The URL parts below are cut from `request.url` instead of parsing it with
// `new URL()` (about 0.2 µs a request): a Request's URL is already
// serialized, so for http(s) the pieces are exactly what URL would give.

/**
 * The host, pathname and search where `pathStart` gives up: `context.url`,
 * or the parts as sent where URL refuses `request.url` (`Deno.serve` builds
 * it from the Host header as sent, "a b?x"), since a log line must not fail
 * the request.
 */
function slowParts(
  context: RequestContext,
): { host: string; pathname: string; search: string } {
  try {
    return context.url;
  } catch {
    return partsAsSent(context.request.url);
  }
}

export function path(context: RequestContext): string {
  const url = context.request.url;
  const start = pathStart(url);
  if (start === -1) {
    const parts = slowParts(context);
    return parts.pathname + parts.search;
  }
  const hash = url.indexOf("#", start);
  const end = hash === -1 ? url.length : hash;
  // A lone "?" is no search, as in URL.search.
  return url.charCodeAt(end - 1) === 63 /* ? */
    ? url.slice(start, end - 1)
    : url.slice(start, end);
}

export function pathname(context: RequestContext): string {
  return pathnameOf(context.request.url);
}

export function search(context: RequestContext): string {
  const url = context.request.url;
  const start = pathStart(url);
  if (start === -1) return slowParts(context).search;
  const hash = url.indexOf("#", start);
  const end = hash === -1 ? url.length : hash;
  const query = url.indexOf("?", start);
  // A "?" after the "#" belongs to the fragment, not the search.
  if (query === -1 || query > end) return "";
  return query === end - 1 ? "" : url.slice(query, end);
}

export function host(context: RequestContext): string {
  const url = context.request.url;
  const start = pathStart(url);
  if (start === -1) return slowParts(context).host;
  return url.slice(url.charCodeAt(4) === 115 /* s */ ? 8 : 7, start);
}

/** The index of the port's ":" in a host, or -1 (IPv6 hosts are bracketed). */
function portColon(host: string): number {
  const colon = host.lastIndexOf(":");
  return colon > host.lastIndexOf("]") ? colon : -1;
}

export function hostname(context: RequestContext): string {
  const value = host(context);
  const colon = portColon(value);
  return colon === -1 ? value : value.slice(0, colon);
}

export function port(context: RequestContext): string {
  const value = host(context);
  const colon = portColon(value);
  if (colon !== -1) return value.slice(colon + 1);
  const url = context.request.url;
  return DEFAULT_PORTS[url.slice(0, url.indexOf(":") + 1)] ?? "";
}
