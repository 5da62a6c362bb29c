/**
 * HTML responses, sent whole or streamed.
 *
 * A page whose `html` template holds Promises or async iterables (a
 * {@linkcode StreamingHtml}) is streamed: everything up to the first part
 * that is not ready goes out at once, then each part as it resolves, in
 * document order. `html.defer(promise, fallback)` parts go out of order:
 * the fallback in place at once, the content at the end of the document
 * (before `</body>`) with a small inline script that moves it into place,
 * carrying the request's CSP nonce so a policy with nonces allows it
 * (`secureHeaders()` with `'nonce'` in the chain hands it over; `nonce`
 * gives one by hand). Without
 * JavaScript, or with a policy that blocks the script, the content still
 * arrives, at the end of the page. A part that fails is logged and shows a
 * placeholder naming it; the page completes. A streamed page has a
 * deadline (`timeout`, 30 s): parts still pending then show their
 * placeholder and the document ends (`timeout()` middleware does not
 * cover a body being streamed, only the wait for the response).
 *
 * Through middleware: `compress()` flushes its encoder after each chunk,
 * so each part reaches the browser as it is written. `etag()` tags only a
 * body that is complete at once, so a page still being written passes
 * through it untagged, streaming as without it. `cache()` reads the whole
 * body to store it, so behind it the page arrives at once, when complete
 * (and later hits get the stored copy, deferred parts already at the end).
 *
 * @module
 */

import { typedResponse } from "./_typed.ts";

import { SafeHtml, StreamingHtml } from "../html/mod.ts";
import { currentCspNonce } from "../runtime/csp_nonce_scope.ts";

/** What {@linkcode createHtmlResponse} accepts as the page. */
export type HtmlBody = string | SafeHtml | ReadableStream<Uint8Array>;

/** Options of {@linkcode createHtmlResponse}: a `ResponseInit`, and for streamed pages a nonce and an error hook. */
export interface HtmlResponseInit extends ResponseInit {
  /**
   * The CSP nonce for the scripts that swap `html.defer()` parts in.
   * Default: the request's nonce when `secureHeaders()` with `'nonce'` is
   * in the chain (as `context.get(CspNonce)`), else none.
   */
  nonce?: string;
  /**
   * Milliseconds a streamed page may take: then every part still pending
   * renders its error placeholder (reported to `onError` as a
   * `TimeoutError`) and the document ends, so a part that never settles
   * cannot hold the connection open. Default 30,000; `Infinity` for none.
   */
  timeout?: number;
  /**
   * Called with each error of a streamed part, and its name. Default:
   * `console.error`. The page shows a placeholder in its place.
   */
  onError?: (error: unknown, name: string) => void;
}

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
 * @example A streamed page: the shell at once, the slow part when ready
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { html } from "@fetchkit/toolkit/html-template";
 * import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
 * import { CspNonce, secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
 *
 * const slowComments = new Promise<string[]>((resolve) =>
 *   setTimeout(() => resolve(["First!", "<3"]), 50)
 * );
 * const router = createRouter({
 *   middleware: [secureHeaders({ contentSecurityPolicy: { scriptSrc: ["'nonce'"] } })],
 * });
 * router.get("/", ({ get }) =>
 *   createHtmlResponse(
 *     html`<!doctype html><body><h1>Post</h1>
 *       ${html.defer(
 *         slowComments.then((list) => html`<ul>${list.map((c) => html`<li>${c}</li>`)}</ul>`),
 *         html`<p>Loading comments…</p>`,
 *         { name: "comments" },
 *       )}
 *       <footer>${Promise.resolve("Footer")}</footer></body>`,
 *     { nonce: get(CspNonce) },
 *   ));
 * const response = await router.fetch(new Request("http://localhost/"));
 * const page = await response.text();
 * page.includes("<li>&lt;3</li>"); // true, before </body>, with a nonce'd script
 * ```
 *
 * @param body A string, an `html` result (streamed when it holds parts
 * not ready yet) or a stream of UTF-8 bytes.
 * @param init Status, status text and headers of the response; for a
 * streamed page, the CSP `nonce` and `onError`.
 * @returns The response.
 */
export function createHtmlResponse(
  body: HtmlBody,
  init?: HtmlResponseInit,
): Response {
  const timeout = init?.timeout;
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0)) {
    throw new TypeError(
      `createHtmlResponse(): timeout must be a positive number of milliseconds (Infinity for none), got ${
        String(timeout)
      }`,
    );
  }
  if (body instanceof StreamingHtml) {
    return typedResponse(
      body.stream({
        nonce: init?.nonce ?? currentCspNonce(),
        onError: init?.onError,
        timeout: init?.timeout,
      }),
      init,
      "text/html; charset=utf-8",
    );
  }
  return typedResponse(
    body instanceof SafeHtml ? body.value : body,
    init,
    "text/html; charset=utf-8",
  );
}
