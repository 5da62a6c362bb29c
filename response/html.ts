/**
 * HTML responses.
 *
 * @module
 */

import { typedResponse } from "./_typed.ts";

import { SafeHtml } from "../html/mod.ts";

/** What {@linkcode createHtmlResponse} accepts as the page. */
export type HtmlBody = string | SafeHtml | ReadableStream<Uint8Array>;

/**
 * Creates a response with an HTML body and
 * `Content-Type: text/html; charset=utf-8` (unless `init.headers` already
 * names a Content-Type). The body is sent as given: no doctype is added, so
 * fragments (for example for htmx or `fetch`) work too. A string or `html`
 * body is handed to `Response` as a string (`Deno.serve` adds its
 * `Content-Length`); a stream is sent as it comes.
 *
 * @example A page built with the `html` tag
 * ```ts
 * import { html } from "@fetchkit/toolkit/html-template";
 * import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
 *
 * const name = "<Ada>";
 * const response = createHtmlResponse(html`<h1>Hello, ${name}</h1>`);
 * response.headers.get("Content-Type"); // "text/html; charset=utf-8"
 * await response.text(); // "<h1>Hello, &lt;Ada&gt;</h1>"
 * ```
 *
 * @example A 404 page
 * ```ts
 * import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
 *
 * createHtmlResponse("<h1>Not Found</h1>", { status: 404 });
 * ```
 *
 * @param body A string, an `html` result or a stream of UTF-8 bytes.
 * @param init Status, status text and headers of the response.
 * @returns The response.
 */
export function createHtmlResponse(
  body: HtmlBody,
  init?: ResponseInit,
): Response {
  return typedResponse(
    body instanceof SafeHtml ? body.value : body,
    init,
    "text/html; charset=utf-8",
  );
}
