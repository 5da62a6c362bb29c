/**
 * Redirect responses.
 *
 * @module
 */

import { NativeResponse } from "./native.ts";

// The statuses `Response.redirect` accepts: the ones that mean "go there".
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NON_ASCII = /[\u0080-\uffff]+/g;

/**
 * Creates a redirect response with a `Location` header.
 *
 * Unlike `Response.redirect`, a relative location (`/login`, `../list`) is
 * allowed and sent as given, since browsers resolve it against the request
 * URL. Characters outside ASCII are percent-encoded (a header value must be
 * ASCII); everything else is kept as written.
 *
 * @example After a form post, go to the list (303 See Other)
 * ```ts
 * import { redirect } from "@fetchkit/toolkit/response/redirect";
 *
 * const response = redirect("/posts", 303);
 * response.status; // 303
 * response.headers.get("Location"); // "/posts"
 * ```
 *
 * @example With headers, default status 302
 * ```ts
 * import { redirect } from "@fetchkit/toolkit/response/redirect";
 *
 * const response = redirect(new URL("https://example.com/"), {
 *   headers: { "Set-Cookie": "seen=1" },
 * });
 * response.status; // 302
 * ```
 *
 * @param location Where to go: absolute or relative, a string or a URL.
 * @param init A redirect status (default 302), or a `ResponseInit` whose
 * `status` (default 302) and `headers` are used.
 * @returns A response with an empty body and `Content-Length: 0`.
 * @throws {RangeError} When the status is not 301, 302, 303, 307 or 308.
 */
export function redirect(
  location: string | URL,
  init?: number | ResponseInit,
): Response {
  const status = typeof init === "number" ? init : init?.status ?? 302;
  if (!REDIRECT_STATUSES.has(status)) {
    throw new RangeError(
      `Invalid redirect status ${status}: use 301, 302, 303, 307 or 308`,
    );
  }
  const headers = new Headers(
    typeof init === "object" ? init.headers : undefined,
  );
  const href = typeof location === "string" ? location : location.href;
  // toWellFormed(): a lone surrogate would make encodeURIComponent throw.
  headers.set(
    "Location",
    href.toWellFormed().replace(NON_ASCII, encodeURIComponent),
  );
  // An empty body, said explicitly so the logger's %contentLength shows 0.
  if (!headers.has("Content-Length")) headers.set("Content-Length", "0");
  return new NativeResponse(null, {
    status,
    statusText: typeof init === "object" ? init.statusText : undefined,
    headers,
  });
}
