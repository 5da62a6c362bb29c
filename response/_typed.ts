/**
 * Responses with a default `Content-Type` (the one in `init.headers` wins),
 * shared by the response helpers.
 *
 * @module
 */

import { rememberText } from "./body_size.ts";
import { NativeResponse } from "./native.ts";

/**
 * A response with a default `Content-Type`: the one in `init.headers` wins.
 * A string body is passed to `Response` as a string (so `Deno.serve` sends
 * it without a copy through JavaScript and adds its `Content-Length`), and
 * remembered for the logger's `%contentLength` and `HEAD` answers (see
 * `body_size.ts`). Shared by `createHtmlResponse` and `createJsonResponse`.
 */
export function typedResponse(
  body: string | ReadableStream<Uint8Array>,
  init: ResponseInit | undefined,
  contentType: string,
): Response {
  let headers: HeadersInit;
  if (init?.headers === undefined) {
    // A plain record and no header set afterwards: Deno 2.9 then keeps its
    // fast serving path (reading `response.headers` later drops it).
    headers = { "Content-Type": contentType };
  } else {
    const given = new Headers(init.headers);
    if (!given.has("Content-Type")) given.set("Content-Type", contentType);
    headers = given;
  }
  const response = new NativeResponse(body, {
    status: init?.status,
    statusText: init?.statusText,
    headers,
  });
  if (typeof body === "string") rememberText(response, body);
  return response;
}
