/**
 * Changing the headers of a response a handler gave: in place, or on a
 * copy when they are immutable (`Response.redirect()` and `fetch()`
 * responses). Shared by the middleware that add headers on the way out
 * (sessions, CORS, rate limits, request ids, security headers, entity tags,
 * `Server-Timing`, staged headers); not a public export.
 *
 * @module
 */

import { NativeResponse } from "./native.ts";

/**
 * Runs `edit(headers, arg)` on `response`'s headers and returns
 * `response`; when they are immutable, on a copy's, and returns the copy.
 * `arg` is passed through so that callers need no closure per request.
 */
export function editHeaders<A>(
  response: Response,
  edit: (headers: Headers, arg: A) => void,
  arg: A,
): Response {
  try {
    edit(response.headers, arg);
    return response;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const copy = new NativeResponse(response.body, response);
    edit(copy.headers, arg);
    return copy;
  }
}
