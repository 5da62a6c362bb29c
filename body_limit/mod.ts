/**
 * A request body size limit for a whole router or one route:
 * {@linkcode bodyLimit}. It covers every content type (JSON, text, bytes,
 * forms) and every way a handler reads the body (`request.json()`,
 * `formData()`, `parseJson()`, `readBody()`).
 *
 * A `Content-Length` past the limit is refused before the handler runs.
 * Otherwise the body is counted as the handler reads it, whatever
 * `Content-Length` says (absent, non-numeric, lying, chunked): the read
 * that passes the limit fails, the handler sees no byte past it, and the
 * request is answered `413` whatever the handler made of its failed read.
 *
 * @module
 */

import { requestWithBody } from "../runtime/request_copy.ts";
import type { Middleware } from "../router/types.ts";
import type { RequestContext } from "../router/context.ts";
import type { HttpError } from "../http_error/mod.ts";
import {
  bodyProgress,
  noteBodyProgress,
} from "../body_progress/body_progress.ts";
import { declaredLength, tooLarge } from "../validation/read_body.ts";

/** Options of {@linkcode bodyLimit}. */
export interface BodyLimitOptions {
  /** Largest body, in bytes: a whole number >= 0. */
  maxBytes: number;
  /**
   * Answers a body past the limit. By default the `413` `HttpError` is
   * thrown for the router's error boundary (text, or `{"error": message}`
   * for a client that prefers JSON); its message names the limit.
   */
  onError?: (
    error: HttpError,
    context: RequestContext,
  ) => Response | Promise<Response>;
}

/**
 * Limits request bodies to `maxBytes` bytes: `413` past it, before the
 * handler sees more. Put it before the middleware and handlers that read
 * bodies (before `formData()`). Requests without a body pass untouched;
 * with one, `context.request` becomes a copy whose body stops at the limit.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { bodyLimit } from "@fetchkit/toolkit/body-limit-middleware";
 *
 * const router = createRouter({ middleware: [bodyLimit({ maxBytes: 100 * 1024 })] });
 * router.post("/echo", async ({ request }) => new Response(await request.text()));
 *
 * const response = await router.fetch(
 *   new Request("http://localhost/echo", { method: "POST", body: "x".repeat(200 * 1024) }),
 * );
 * console.log(response.status); // 413
 * ```
 *
 * @example Your own answer
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { bodyLimit } from "@fetchkit/toolkit/body-limit-middleware";
 *
 * const router = createRouter();
 * router.post(
 *   "/upload",
 *   bodyLimit({
 *     maxBytes: 10 * 1024 * 1024,
 *     onError: (error) => Response.json({ error: error.message }, { status: 413 }),
 *   }),
 *   async ({ request }) => new Response(`${(await request.bytes()).length} bytes`),
 * );
 * ```
 *
 * @param options `maxBytes`, and `onError` for your own answer.
 * @returns The middleware.
 * @throws {RangeError} When `maxBytes` is not a whole number >= 0.
 */
export function bodyLimit(options: BodyLimitOptions): Middleware {
  const maxBytes = options?.maxBytes;
  if (
    typeof maxBytes !== "number" || !(maxBytes >= 0) ||
    !(Number.isInteger(maxBytes) || maxBytes === Infinity)
  ) {
    throw new RangeError(
      `bodyLimit() maxBytes must be a whole number >= 0, got ${
        String(maxBytes)
      }`,
    );
  }
  const onError = options.onError;
  const answer = (error: HttpError, context: RequestContext) => {
    if (onError === undefined) throw error;
    return onError(error, context);
  };
  return async (context, next) => {
    const request = context.request;
    const body = request.body;
    if (body === null) return next();
    const declared = declaredLength(request);
    if (declared !== undefined && declared > maxBytes) {
      const error = tooLarge(maxBytes, declared);
      await body.cancel(error).catch(() => {});
      return answer(error, context);
    }
    let tripped: HttpError | undefined;
    let total = 0;
    const reader = body.getReader();
    const limited = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        total += value.byteLength;
        if (total > maxBytes) {
          tripped = tooLarge(maxBytes);
          controller.error(tripped);
          await reader.cancel(tripped).catch(() => {});
          return;
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    // Not `new Request(request, ...)`: copying a Deno.serve request reads
    // its signal and prints Deno's legacy-abort warning.
    const copy = requestWithBody(request, limited);
    const progress = bodyProgress(request);
    if (progress !== undefined) noteBodyProgress(copy, progress);
    // The handler must read the limited copy; `request` is readonly to
    // handlers, not to the middleware that owns the body.
    (context as { request: Request }).request = copy;
    let response: Response;
    try {
      response = await next();
    } catch (error) {
      if (tripped !== undefined) return answer(tripped, context);
      throw error;
    }
    if (tripped !== undefined) {
      // Whatever the handler made of its failed read, the answer is 413.
      await response.body?.cancel().catch(() => {});
      return answer(tripped, context);
    }
    return response;
  };
}
