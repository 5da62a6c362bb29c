/**
 * Request ids as middleware: each request gets an id, reused from the
 * incoming `X-Request-Id` when that is short and safe, else generated; it
 * is sent back on the response and readable as `context.get(RequestId)`
 * (and by the logger's `%requestId`). Reuse the incoming id only behind
 * a proxy of your own that sets it; an app that clients reach directly
 * uses `trustIncoming: false` (see {@linkcode RequestIdOptions}).
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { RequestId, requestId } from "@fetchkit/toolkit/request-id-middleware";
 *
 * const router = createRouter({ middleware: [requestId()] });
 * router.get("/", ({ get }) => new Response(`your request: ${get(RequestId)}`));
 * const response = await router.fetch(
 *   new Request("http://localhost/", { headers: { "X-Request-Id": "abc-123" } }),
 * );
 * response.headers.get("X-Request-Id"); // "abc-123"
 * ```
 *
 * @module
 */

import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { RequestContext } from "../router/context.ts";
import type { Middleware } from "../router/types.ts";
import { editHeaders } from "../response/edit_headers.ts";

/**
 * The context key of the request id: `context.get(RequestId)` is the id,
 * or `undefined` without the `requestId()` middleware.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { RequestId } from "@fetchkit/toolkit/request-id-middleware";
 *
 * const handler: Handler = ({ get }) => {
 *   console.error(`[${get(RequestId)}] something went wrong`);
 *   return new Response("Internal Server Error", { status: 500 });
 * };
 * ```
 */
export const RequestId: ContextKey<string | undefined> = createContextKey<
  string
>();

/** Options of {@linkcode requestId}. */
export interface RequestIdOptions {
  /**
   * The request and response header.
   *
   * @default {"X-Request-Id"}
   */
  header?: string;
  /**
   * Makes a new id.
   *
   * @default {() => crypto.randomUUID()}
   */
  generator?: (context: RequestContext) => string;
  /**
   * Reuse an acceptable incoming id. Trust it only when every request
   * reaches the app through a proxy or load balancer you run that sets
   * the header itself, overwriting what the client sent: then one id
   * follows the request across services. Without such a proxy, set
   * `false` (always generate): a client reaching the server directly can
   * send any id, reuse another request's id, and so blur whose lines in
   * the log are whose.
   *
   * @default {true}
   */
  trustIncoming?: boolean;
  /**
   * The longest incoming id reused (characters `[A-Za-z0-9._:-]`).
   *
   * @default {255}
   */
  maxLength?: number;
}

const SAFE = /^[A-Za-z0-9._:-]+$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Whether an id a client sent is one `requestId()` reuses: 1 to
 * `maxLength` characters of `A-Z a-z 0-9 . _ : -`. Anything else could
 * carry spaces, quotes, control characters or forged text into logs;
 * code that names a request by its incoming id (as `waitUntil()`'s
 * failure log does without `requestId()`) applies the same rule.
 *
 * @example
 * ```ts
 * import { isSafeRequestId } from "@fetchkit/toolkit/request-id-middleware";
 *
 * isSafeRequestId("3f1c9a2e-req"); // true
 * isSafeRequestId('"admin" logged in'); // false
 * ```
 *
 * @param id The incoming id.
 * @param maxLength The longest id accepted (255 by default).
 * @returns `true` when the id may be reused as it is.
 */
export function isSafeRequestId(id: string, maxLength = 255): boolean {
  return id.length <= maxLength && SAFE.test(id);
}

/**
 * Creates middleware that gives each request an id.
 *
 * An incoming id is reused when it is 1 to `maxLength` (255) characters of
 * `A-Z a-z 0-9 . _ : -` (a UUID, a trace id, a load balancer's id); any
 * other value, which could carry spaces, quotes or control characters into
 * logs, is replaced by a fresh `crypto.randomUUID()`. The id is set on the
 * response (also on error answers made by inner middleware, and on
 * responses with immutable headers, which are copied).
 *
 * Put it first among the router's middleware (before the logger, which
 * reads it when the response is ready), so every line and every response
 * has it.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { requestId } from "@fetchkit/toolkit/request-id-middleware";
 * import { logger } from "@fetchkit/toolkit/logger-middleware";
 *
 * const router = createRouter({
 *   middleware: [
 *     requestId({ header: "X-Correlation-Id" }),
 *     logger({ format: "%requestId %ip %method %path %status" }),
 *   ],
 * });
 * ```
 *
 * @param options The header, the generator, whether incoming ids are reused,
 * and their longest length.
 * @returns The middleware.
 * @throws {TypeError} When `header` is not a header name or `maxLength` not
 * a whole number ≥ 1.
 */
export function requestId(options: RequestIdOptions = {}): Middleware {
  const {
    header = "X-Request-Id",
    generator,
    trustIncoming = true,
    maxLength = 255,
  } = options;
  if (typeof header !== "string" || !HEADER_NAME.test(header)) {
    throw new TypeError(
      `requestId(): header must be a header name, got ${
        JSON.stringify(header)
      }`,
    );
  }
  if (!Number.isSafeInteger(maxLength) || maxLength < 1) {
    throw new TypeError(
      `requestId(): maxLength must be a whole number >= 1, got ${maxLength}`,
    );
  }
  const lower = header.toLowerCase();
  // Made once, not per request.
  const setId = (headers: Headers, id: string) => headers.set(header, id);

  return async function requestId(context, next) {
    let id = trustIncoming ? context.request.headers.get(lower) : null;
    if (id === null || !isSafeRequestId(id, maxLength)) {
      id = generator === undefined ? crypto.randomUUID() : generator(context);
    }
    context.set(RequestId, id);
    const response = await next();
    return editHeaders(response, setId, id);
  };
}
