/**
 * `@fetchkit/toolkit`: a toolkit for web applications on the standard Fetch
 * `Request`/`Response`, for Deno first and also Node, Bun and Cloudflare
 * Workers. This module re-exports every part; each part also has an export of
 * its own, listed here by task.
 *
 * ### Routing and responses
 *
 * - [`@fetchkit/toolkit/fetch-router`](https://jsr.io/@fetchkit/toolkit/doc/fetch-router): the router: `createRouter()`, middleware, typed context keys, sub-routers
 * - [`@fetchkit/toolkit/fetch-router/routes`](https://jsr.io/@fetchkit/toolkit/doc/fetch-router/routes): typed route maps: `route()`, `form()`, `resources()`, `resource()`, `href()`
 * - [`@fetchkit/toolkit/method-override-middleware`](https://jsr.io/@fetchkit/toolkit/doc/method-override-middleware): HTML forms reach PUT, PATCH and DELETE routes
 * - [`@fetchkit/toolkit/response/redirect`](https://jsr.io/@fetchkit/toolkit/doc/response/redirect): redirect responses
 * - [`@fetchkit/toolkit/response/html`](https://jsr.io/@fetchkit/toolkit/doc/response/html): HTML responses
 * - [`@fetchkit/toolkit/response/json`](https://jsr.io/@fetchkit/toolkit/doc/response/json): JSON responses
 * - [`@fetchkit/toolkit/html-template`](https://jsr.io/@fetchkit/toolkit/doc/html-template): the `html` template tag, escaping every interpolated value
 * - [`@fetchkit/toolkit/http-error`](https://jsr.io/@fetchkit/toolkit/doc/http-error): `HttpError`: throw it, and the router answers with its status
 * - [`@fetchkit/toolkit/static-middleware`](https://jsr.io/@fetchkit/toolkit/doc/static-middleware): static files from a folder, with ETag, 304 and ranges
 * - [`@fetchkit/toolkit/serve`](https://jsr.io/@fetchkit/toolkit/doc/serve): one `serve(handler)` for Deno, Node and Bun, with graceful shutdown
 *
 * ### Request bodies and validation
 *
 * - [`@fetchkit/toolkit/form-data-middleware`](https://jsr.io/@fetchkit/toolkit/doc/form-data-middleware): form bodies: `formData()`, a streaming multipart parser with limits
 * - [`@fetchkit/toolkit/form-validation`](https://jsr.io/@fetchkit/toolkit/doc/form-validation): validates a parsed form with any Standard Schema library
 * - [`@fetchkit/toolkit/validation`](https://jsr.io/@fetchkit/toolkit/doc/validation): validates params, query, headers and JSON bodies with Standard Schema
 * - [`@fetchkit/toolkit/body-limit-middleware`](https://jsr.io/@fetchkit/toolkit/doc/body-limit-middleware): a request body size limit (`413`)
 * - [`@fetchkit/toolkit/client`](https://jsr.io/@fetchkit/toolkit/doc/client): a typed client for a route map
 * - [`@fetchkit/toolkit/openapi`](https://jsr.io/@fetchkit/toolkit/doc/openapi): an OpenAPI 3.1 document from a route map
 *
 * ### Sessions
 *
 * - [`@fetchkit/toolkit/session-middleware`](https://jsr.io/@fetchkit/toolkit/doc/session-middleware): `session()`: loads the session before the handler, saves it after
 * - [`@fetchkit/toolkit/session/cookie-storage`](https://jsr.io/@fetchkit/toolkit/doc/session/cookie-storage): sessions kept whole in a signed cookie
 * - [`@fetchkit/toolkit/session/memory-storage`](https://jsr.io/@fetchkit/toolkit/doc/session/memory-storage): sessions in memory, for tests and development
 * - [`@fetchkit/toolkit/session-storage-kv`](https://jsr.io/@fetchkit/toolkit/doc/session-storage-kv): sessions on Deno KV
 * - [`@fetchkit/toolkit/session-storage-redis`](https://jsr.io/@fetchkit/toolkit/doc/session-storage-redis): sessions on Redis
 *
 * ### Security
 *
 * - [`@fetchkit/toolkit/csrf-middleware`](https://jsr.io/@fetchkit/toolkit/doc/csrf-middleware): cross-site request forgery protection, no tokens in forms
 * - [`@fetchkit/toolkit/cors-middleware`](https://jsr.io/@fetchkit/toolkit/doc/cors-middleware): CORS and preflights
 * - [`@fetchkit/toolkit/secure-headers-middleware`](https://jsr.io/@fetchkit/toolkit/doc/secure-headers-middleware): security headers and a Content-Security-Policy with nonces
 * - [`@fetchkit/toolkit/rate-limit-middleware`](https://jsr.io/@fetchkit/toolkit/doc/rate-limit-middleware): `429` once a client is over its budget, in memory, Deno KV or Redis
 * - [`@fetchkit/toolkit/timeout-middleware`](https://jsr.io/@fetchkit/toolkit/doc/timeout-middleware): a time limit per request (`503` or `504`)
 *
 * ### Sign-in and tokens
 *
 * - [`@fetchkit/toolkit/jwt-middleware`](https://jsr.io/@fetchkit/toolkit/doc/jwt-middleware): JSON Web Token authentication
 * - [`@fetchkit/toolkit/bearer-auth-middleware`](https://jsr.io/@fetchkit/toolkit/doc/bearer-auth-middleware): bearer token authentication
 * - [`@fetchkit/toolkit/basic-auth-middleware`](https://jsr.io/@fetchkit/toolkit/doc/basic-auth-middleware): HTTP Basic authentication
 * - [`@fetchkit/toolkit/passkeys`](https://jsr.io/@fetchkit/toolkit/doc/passkeys): passkey (WebAuthn) registration and sign-in, with or without a username, challenges in the session
 * - [`@fetchkit/toolkit/totp`](https://jsr.io/@fetchkit/toolkit/doc/totp): two-factor codes from an authenticator app (TOTP), their QR code, backup codes
 * - [`@fetchkit/toolkit/reauth-middleware`](https://jsr.io/@fetchkit/toolkit/doc/reauth-middleware): re-authentication ("sudo mode") before sensitive changes
 * - [`@fetchkit/toolkit/oauth`](https://jsr.io/@fetchkit/toolkit/doc/oauth): sign in with Google, Microsoft, GitHub or any OpenID Provider (code + PKCE, ID tokens checked)
 * - [`@fetchkit/toolkit/mcp`](https://jsr.io/@fetchkit/toolkit/doc/mcp): a Model Context Protocol server on a route, behind bearer tokens, with Origin checks
 *
 * ### Realtime
 *
 * - [`@fetchkit/toolkit/response/event-stream`](https://jsr.io/@fetchkit/toolkit/doc/response/event-stream): server-sent events from an async iterable
 * - [`@fetchkit/toolkit/websocket`](https://jsr.io/@fetchkit/toolkit/doc/websocket): WebSockets on Deno, Node and Bun
 * - [`@fetchkit/toolkit/pubsub`](https://jsr.io/@fetchkit/toolkit/doc/pubsub): publish and subscribe across servers, in order, with resume
 * - [`@fetchkit/toolkit/stream-limit-middleware`](https://jsr.io/@fetchkit/toolkit/doc/stream-limit-middleware): bounds on long-lived responses per client and in all
 *
 * ### Caching and shared stores
 *
 * - [`@fetchkit/toolkit/cache-middleware`](https://jsr.io/@fetchkit/toolkit/doc/cache-middleware): a shared response cache in memory, Deno KV or Redis
 * - [`@fetchkit/toolkit/idempotency-middleware`](https://jsr.io/@fetchkit/toolkit/doc/idempotency-middleware): the `Idempotency-Key` header: a repeated `POST` gets the first answer
 * - [`@fetchkit/toolkit/etag-middleware`](https://jsr.io/@fetchkit/toolkit/doc/etag-middleware): entity tags and `304 Not Modified`
 * - [`@fetchkit/toolkit/compress-middleware`](https://jsr.io/@fetchkit/toolkit/doc/compress-middleware): response compression (`br`, `zstd`, `gzip`)
 * - [`@fetchkit/toolkit/store`](https://jsr.io/@fetchkit/toolkit/doc/store): the store layer: outage errors (`503` with `Retry-After`) and time limits
 * - [`@fetchkit/toolkit/file-storage`](https://jsr.io/@fetchkit/toolkit/doc/file-storage): files in memory, on disk or in any S3-compatible store, and uploads streamed into them
 *
 * ### Background work
 *
 * - [`@fetchkit/toolkit/wait-until`](https://jsr.io/@fetchkit/toolkit/doc/wait-until): work that goes on after the response, waited for by graceful shutdown
 * - [`@fetchkit/toolkit/jobs`](https://jsr.io/@fetchkit/toolkit/doc/jobs): durable background jobs on memory, Deno KV or Redis: retries, dead letters, at least once
 *
 * ### Operations
 *
 * - [`@fetchkit/toolkit/logger-middleware`](https://jsr.io/@fetchkit/toolkit/doc/logger-middleware): one log line per request from a `%token` format
 * - [`@fetchkit/toolkit/request-id-middleware`](https://jsr.io/@fetchkit/toolkit/doc/request-id-middleware): an id per request, reused from `X-Request-Id` when safe
 * - [`@fetchkit/toolkit/server-timing-middleware`](https://jsr.io/@fetchkit/toolkit/doc/server-timing-middleware): `Server-Timing` headers
 * - [`@fetchkit/toolkit/tracing-middleware`](https://jsr.io/@fetchkit/toolkit/doc/tracing-middleware): OpenTelemetry tracing, one span per request
 * - [`@fetchkit/toolkit/metrics`](https://jsr.io/@fetchkit/toolkit/doc/metrics): Prometheus metrics of requests by route, store calls and the process, and `GET /metrics`
 * - [`@fetchkit/toolkit/health`](https://jsr.io/@fetchkit/toolkit/doc/health): `/livez` and `/readyz` (checks in parallel under a time limit; 503 while draining)
 * - [`@fetchkit/toolkit/context-storage`](https://jsr.io/@fetchkit/toolkit/doc/context-storage): the current request's context from anywhere below the handler
 * - [`@fetchkit/toolkit/testing`](https://jsr.io/@fetchkit/toolkit/doc/testing): a test client that calls the app in process, with a cookie jar and redirects like a browser
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
export * from "./jobs/mod.ts";
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
export * from "./totp/mod.ts";
export * from "./reauth/mod.ts";
export * from "./wait_until/mod.ts";
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
export {
  type Counter as MetricsCounter,
  createMetricsRegistry,
  DEFAULT_BUCKETS,
  type Gauge as MetricsGauge,
  type Histogram as MetricsHistogram,
  type HistogramOptions,
  type Labels as MetricLabels,
  type MetricOptions,
  metrics,
  metricsHandler,
  type MetricsHandlerOptions,
  type MetricsOptions,
  type MetricsRegistry,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
} from "./metrics/mod.ts";
export * from "./health/mod.ts";
export * from "./file_storage/mod.ts";
export {
  type AuthorizeOptions as OAuthAuthorizeOptions,
  createOAuthClient,
  github as githubOAuth,
  google as googleOAuth,
  microsoft as microsoftOAuth,
  type OAuthClaims,
  type OAuthClient,
  type OAuthClientOptions,
  OAuthError,
  type OAuthErrorReason,
  type OAuthProviderPreset,
  type OAuthResult,
  type OAuthTokens,
  oidc as oidcOAuth,
  type TokenAuthMethod,
} from "./oauth/mod.ts";
export {
  CookieJar,
  type CookieJarOptions,
  createTestClient,
  type StoredCookie,
  type TestClient,
  type TestClientOptions,
} from "./testing/mod.ts";
// Types only: mcpHandler loads the MCP SDK (half a second and 20 MB at
// start-up), so it is imported from @fetchkit/toolkit/mcp alone.
export type {
  McpHandler,
  McpHandlerOptions,
  McpServerLike,
  ResourceMetadataOptions,
} from "./mcp/mod.ts";
