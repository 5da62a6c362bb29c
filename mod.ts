/**
 * `@fetchkit/toolkit`: a router with middleware on the standard Fetch
 * `Request`/`Response`, route helpers, form-body parsing, sessions, a
 * request logger, response helpers, an `html` template tag, static files and
 * CORS.
 *
 * Each part also has its own export, listed below; this module re-exports
 * their public names:
 *
 * - `@fetchkit/toolkit/fetch-router`: the router: `createRouter()`, middleware, typed context keys
 * - `@fetchkit/toolkit/fetch-router/routes`: typed route maps: `route()`, `form()`, `resources()`, `resource()`
 * - `@fetchkit/toolkit/method-override-middleware`: HTML forms reach PUT, PATCH and DELETE routes
 * - `@fetchkit/toolkit/response/redirect`: redirect responses
 * - `@fetchkit/toolkit/response/html`: HTML responses
 * - `@fetchkit/toolkit/response/json`: JSON responses
 * - `@fetchkit/toolkit/html-template`: the `html` template tag, escaping every interpolated value
 * - `@fetchkit/toolkit/form-data-middleware`: form bodies: `formData()`, a streaming multipart parser with limits
 * - `@fetchkit/toolkit/session-middleware`: `session()`: loads the session before the handler, saves it after
 * - `@fetchkit/toolkit/session/cookie-storage`: sessions kept whole in a signed cookie
 * - `@fetchkit/toolkit/session/memory-storage`: sessions in memory, for tests and development
 * - `@fetchkit/toolkit/session-storage-kv`: sessions on Deno KV
 * - `@fetchkit/toolkit/session-storage-redis`: sessions on Redis
 * - `@fetchkit/toolkit/logger-middleware`: one log line per request from a `%token` format
 * - `@fetchkit/toolkit/csrf-middleware`: cross-site request forgery protection, no tokens in forms
 * - `@fetchkit/toolkit/static-middleware`: static files from a folder
 * - `@fetchkit/toolkit/cors-middleware`: CORS and preflights
 * - `@fetchkit/toolkit/timeout-middleware`: a time limit per request (`503` or `504`)
 * - `@fetchkit/toolkit/rate-limit-middleware`: `429` once a client is over its budget, in memory, Deno KV or Redis
 * - `@fetchkit/toolkit/request-id-middleware`: an id per request, reused from `X-Request-Id` when safe
 * - `@fetchkit/toolkit/secure-headers-middleware`: security headers and a Content-Security-Policy with nonces
 * - `@fetchkit/toolkit/response/event-stream`: server-sent events from an async iterable
 * - `@fetchkit/toolkit/form-validation`: validates a parsed form with any Standard Schema library
 * - `@fetchkit/toolkit/compress-middleware`: response compression (`br`, `zstd`, `gzip`)
 * - `@fetchkit/toolkit/etag-middleware`: entity tags and `304 Not Modified`
 * - `@fetchkit/toolkit/http-error`: `HttpError`: throw it, and the router answers with its status
 * - `@fetchkit/toolkit/store`: the store layer: outage errors (`503` with `Retry-After`) and time limits
 * - `@fetchkit/toolkit/pubsub`: publish and subscribe across servers
 * - `@fetchkit/toolkit/stream-limit-middleware`: bounds on long-lived responses per client and in all
 * - `@fetchkit/toolkit/validation`: validates params, query, headers and JSON bodies with Standard Schema
 * - `@fetchkit/toolkit/body-limit-middleware`: a request body size limit (`413`)
 * - `@fetchkit/toolkit/serve`: one `serve(handler)` for Deno, Node and Bun, with graceful shutdown
 * - `@fetchkit/toolkit/websocket`: WebSockets on Deno, Node and Bun
 * - `@fetchkit/toolkit/cache-middleware`: a shared response cache in memory, Deno KV or Redis
 * - `@fetchkit/toolkit/idempotency-middleware`: the `Idempotency-Key` header: a repeated `POST` gets the first answer
 * - `@fetchkit/toolkit/context-storage`: the current request's context from anywhere below the handler
 * - `@fetchkit/toolkit/server-timing-middleware`: `Server-Timing` headers
 * - `@fetchkit/toolkit/bearer-auth-middleware`: bearer token authentication
 * - `@fetchkit/toolkit/basic-auth-middleware`: HTTP Basic authentication
 * - `@fetchkit/toolkit/jwt-middleware`: JSON Web Token authentication
 * - `@fetchkit/toolkit/tracing-middleware`: OpenTelemetry tracing, one span per request
 * - `@fetchkit/toolkit/client`: a typed client for a route map
 * - `@fetchkit/toolkit/openapi`: an OpenAPI 3.1 document from a route map
 * - `@fetchkit/toolkit/passkeys`: passkey (WebAuthn) registration and sign-in, challenges in the session
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
export * from "./passkeys/mod.ts";
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
