/**
 * The router's own plain-text answers (404, 405, 500), shared by dispatch
 * and the error boundary.
 *
 * @module
 */

import { rememberText } from "../response/body_size.ts";
import { NativeResponse } from "../response/native.ts";

const TEXT_TYPE = "text/plain; charset=utf-8";
// On Bun a Response copies a Headers given in its init for less than it
// reads an object literal (about 1,600 instructions less a 404). Bun
// only: @hono/node-server's Response on Node keeps the given Headers as
// its own, so a shared one would collect other responses' edits.
const TEXT_HEADERS: HeadersInit =
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
    ? new Headers({ "Content-Type": TEXT_TYPE })
    : { "Content-Type": TEXT_TYPE };

const NOT_FOUND = "Not Found";

// Deno 2.9 builds and serves a Response whose init has headers on a slow
// path (the record converted and checked, the native response prepared
// apart): a 404 counted 34.7k instructions over HTTP; a clone of one
// built once (its header list copied, its string body shared) 20.7k, less
// than a bare `new Response(body, { status })` (22.2k). Deno only: a
// clone on Node and Bun tees a body stream that the original keeps.
const deno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined" &&
  typeof (globalThis as { Bun?: unknown }).Bun === "undefined";
let notFoundOnce: Response | undefined;

/**
 * Bun: the 404, whose remembered text rides on its class's prototype (the
 * property written onto each Response cost Bun about 1,000 instructions a
 * 404, in process; bench/runtimes/inprocess_instructions.ts).
 */
const NotFound: typeof Response | undefined =
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
    ? class NotFound extends NativeResponse {}
    : undefined;
if (NotFound !== undefined) {
  rememberText(NotFound.prototype as Response, NOT_FOUND);
}

/**
 * Bun: the body of the bare 404 (`bareNotFound`), one `Blob` whose type is
 * the 404's `Content-Type`, shared by every such 404 (a Blob is not
 * consumed by reading a response made of it). Bun writes a Blob's type as
 * the header without a `Headers` copied into the response: about 700
 * instructions a 404 fewer (BENCHMARKS.md, "Tenth round: the Bun 404").
 * On the wire Bun spells the type its own way (`text/plain;charset=utf-8`,
 * as for any string body), and once the body is read the response's
 * `headers` no longer show it: so only for a 404 that no JavaScript sees.
 */
const NOT_FOUND_BODY: Blob | undefined =
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
    ? new Blob([NOT_FOUND], { type: TEXT_TYPE })
    : undefined;
const NOT_FOUND_INIT: ResponseInit = Object.freeze({ status: 404 });

/**
 * The router's bare 404 on Bun: for a request Bun's router matched to no
 * route when nothing else runs on it (no router middleware, no
 * `defaultHandler`, not `HEAD`), so the response goes from the router to
 * Bun's server unread (no remembered text either: only middleware and
 * `HEAD` read it). Elsewhere `text("Not Found", 404)`.
 */
export function bareNotFound(): Response {
  return NOT_FOUND_BODY !== undefined
    ? new NativeResponse(NOT_FOUND_BODY, NOT_FOUND_INIT)
    : text(NOT_FOUND, 404);
}

/**
 * A plain-text answer of the router. No `Content-Length` header:
 * `Deno.serve` adds it to a string body (an explicit one measured slower),
 * and the logger and `HEAD` answers read the remembered text instead.
 */
export function text(body: string, status: number, allow?: string): Response {
  if (NotFound !== undefined && status === 404 && body === NOT_FOUND) {
    return new NotFound(body, { status, headers: TEXT_HEADERS });
  }
  if (deno && status === 404 && body === NOT_FOUND && allow === undefined) {
    // Never read itself: each answer is a clone with a body of its own.
    const response = (notFoundOnce ??= new NativeResponse(body, {
      status,
      headers: TEXT_HEADERS,
    })).clone();
    rememberText(response, body);
    return response;
  }
  // Every header in the init: Deno 2.9 builds its native response from
  // them once; setting one afterwards would drop and rebuild it.
  const response = new NativeResponse(body, {
    status,
    headers: allow === undefined
      ? TEXT_HEADERS
      : { "Content-Type": TEXT_TYPE, "Allow": allow },
  });
  rememberText(response, body);
  return response;
}
