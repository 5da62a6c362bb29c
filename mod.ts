/**
 * `@fetchkit/toolkit`: a router with middleware on the standard Fetch
 * `Request`/`Response`, route helpers, form-body parsing, sessions, a
 * request logger, response helpers, an `html` template tag, static files and
 * CORS.
 *
 * Each part also has its own export (`@fetchkit/toolkit/fetch-router`,
 * `@fetchkit/toolkit/session-middleware`, ...); this module gathers them all.
 *
 * @example
 * ```ts
 * import { createRouter, html, createHtmlResponse, logger } from "@fetchkit/toolkit";
 *
 * const router = createRouter({ middleware: [logger()] });
 * router.get("/hello/:name", ({ params }) => createHtmlResponse(html`<h1>Hello, ${params.name}</h1>`));
 * // Deno.serve(router.fetch);
 * ```
 *
 * @module
 */
export * from "./router/mod.ts";
export * from "./routes/mod.ts";
export * from "./router/method_override.ts";
export * from "./response/redirect.ts";
export * from "./response/html.ts";
export * from "./response/json.ts";
export * from "./html/mod.ts";
export * from "./form_data/mod.ts";
export * from "./session/middleware.ts";
export * from "./session/cookie_storage.ts";
export * from "./session/memory_storage.ts";
export * from "./session/kv_storage.ts";
export * from "./session/redis_storage.ts";
export * from "./logger/mod.ts";
export * from "./static/mod.ts";
export * from "./cors/mod.ts";
export * from "./csrf/mod.ts";
export * from "./timeout/mod.ts";
export * from "./form_validation/mod.ts";
export * from "./rate_limit/mod.ts";
export * from "./request_id/mod.ts";
export * from "./secure_headers/mod.ts";
export * from "./response/event_stream.ts";
export * from "./http_error/mod.ts";
export * from "./store/mod.ts";
export * from "./pubsub/mod.ts";
export * from "./stream_limit/mod.ts";
export {
  parseHeaders,
  parseJson,
  type ParseJsonOptions,
  parseParams,
  parseQuery,
  readBody,
  type ReadBodyOptions,
  type ValidationResult,
} from "./validation/mod.ts";
export * from "./body_limit/mod.ts";
export * from "./serve/mod.ts";
export * from "./websocket/mod.ts";
export * from "./client/mod.ts";
export * from "./openapi/mod.ts";
export * from "./compress/mod.ts";
export * from "./etag/mod.ts";
export * from "./cache/mod.ts";
export { idempotency, type IdempotencyOptions } from "./idempotency/mod.ts";
export * from "./jwt/mod.ts";
export * from "./bearer_auth/mod.ts";
export * from "./basic_auth/mod.ts";
export * from "./context_storage/mod.ts";
export * from "./server_timing/mod.ts";
export * from "./tracing/mod.ts";
