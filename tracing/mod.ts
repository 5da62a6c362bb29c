/**
 * OpenTelemetry tracing: one server span per request, named by method and
 * route pattern (`GET /posts/:id`), with the stable HTTP semantic
 * conventions, the incoming `traceparent` continued, and exceptions
 * recorded.
 *
 * It is built on `@opentelemetry/api` alone: without an SDK registered
 * the API is a no-op, and so is `tracing()` (a few tens of nanoseconds a
 * request). Register an SDK (a tracer provider, a context manager and the
 * W3C propagator, as `NodeSDK` or `NodeTracerProvider.register()` do) and
 * spans appear. On Deno with built-in telemetry (`OTEL_DENO=true`),
 * `Deno.serve` already makes the server span: `tracing()` names it by the
 * route and sets `http.route` on it instead of making a second one.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { tracing } from "@fetchkit/toolkit/tracing-middleware";
 *
 * const router = createRouter({ middleware: [tracing()] });
 * router.get("/posts/:id", ({ params }) => new Response(`post ${params.id}`));
 * // OTEL_DENO=true deno run --allow-net main.ts: spans named "GET /posts/:id"
 * // Deno.serve(router.fetch);
 * ```
 *
 * @module
 */

import {
  type Attributes,
  context as otelContext,
  isSpanContextValid,
  propagation,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { RequestContext } from "../router/context.ts";
import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { Middleware, Next } from "../router/types.ts";
import { setStoreCallHook, type StoreCallHook } from "../store/trace.ts";

/**
 * The methods of an OpenTelemetry `Span` that the request's span is used
 * through here; the value is a real `Span` of `@opentelemetry/api`.
 */
export interface RequestSpan {
  /** The span's trace id, span id and flags. */
  spanContext(): { traceId: string; spanId: string; traceFlags: number };
  /** Sets an attribute (`app.user_id`, ...). */
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** Adds an event at the current time. */
  addEvent(
    name: string,
    attributes?: Record<string, string | number | boolean>,
  ): unknown;
  /** Records an exception as an event. */
  recordException(exception: Error | string): unknown;
  /** Renames the span. */
  updateName(name: string): unknown;
  /** Whether the span is recorded (an SDK samples it). */
  isRecording(): boolean;
}

/**
 * What {@linkcode tracing} needs of a tracer: an OpenTelemetry `Tracer`
 * (`trace.getTracer(name, version)`) fits.
 */
export interface RequestTracer {
  /** Starts a span; `context` is an OpenTelemetry `Context`. */
  startSpan(
    name: string,
    options: { kind: number },
    context: unknown,
  ): RequestSpan;
}

/** Options of {@linkcode tracing}. */
export interface TracingOptions {
  /**
   * The tracer that makes the spans.
   *
   * @default {trace.getTracer("@fetchkit/toolkit")}
   */
  tracer?: RequestTracer;
  /**
   * On Deno with built-in telemetry (`OTEL_DENO=true`), name and annotate
   * the server span `Deno.serve` made instead of making a child span.
   *
   * @default {true}
   */
  useDenoServerSpan?: boolean;
  /**
   * A child span for each store call made inside a traced request
   * (sessions, rate limits, caches: every store call that goes through
   * `withTimeout` of `@fetchkit/toolkit/store`; each request of the S3
   * file storage, `S3 PutObject`), named `<store> <what>`
   * (`Redis read session`), with `db.system.name` and
   * `db.operation.name`. It sets the process's one store-call hook
   * (`setStoreCallHook`), so the last `tracing()` created with it wins.
   *
   * @default {false}
   */
  storeSpans?: boolean;
}

/**
 * The context key of the request's server span, set by `tracing()` when
 * spans are recorded: for attributes of your own, and for the logger's
 * `%traceId`.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { ServerSpan } from "@fetchkit/toolkit/tracing-middleware";
 *
 * const handler: Handler = ({ get, params }) => {
 *   get(ServerSpan)?.setAttribute("app.post_id", String(params.id));
 *   return new Response("ok");
 * };
 * ```
 */
export const ServerSpan: ContextKey<RequestSpan | undefined> = createContextKey<
  RequestSpan
>();

/** Methods the HTTP semantic conventions name; others are `_OTHER`. */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "QUERY",
  "TRACE",
]);

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

// The API's no-op provider: what the global provider delegates to until
// an SDK registers one.
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Whether no SDK is registered: then there is nothing to record. */
function noSdk(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider &&
    provider.getDelegate() === NOOP_PROVIDER;
}

interface DenoTelemetry {
  telemetry?: { tracerProvider?: unknown };
}

/** Whether `@opentelemetry/api` is bound to Deno's built-in telemetry. */
function denoTelemetryActive(): boolean {
  const deno = (globalThis as { Deno?: DenoTelemetry }).Deno;
  const provider = deno?.telemetry?.tracerProvider;
  return provider !== undefined && trace.getTracerProvider() === provider;
}

/** The status an error will be answered with: its own 4xx/5xx, or 500. */
function statusOf(error: unknown): number {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status <= 599
    ? status
    : 500;
}

function errorType(error: unknown): string {
  if (error instanceof Error) return error.name || "Error";
  return typeof error;
}

function spanName(method: string, route: string | undefined): string {
  const name = method === "_OTHER" ? "HTTP" : method;
  return route === undefined ? name : `${name} ${route}`;
}

/** Names the span by the route and records the outcome. */
function finish(
  span: Span,
  method: string,
  context: RequestContext,
  status: number,
  error: unknown,
  ownSpan: boolean,
): void {
  const route = context.routePattern;
  if (route !== undefined) {
    span.setAttribute("http.route", route);
    span.updateName(spanName(method, route));
  }
  if (error !== undefined) {
    if (error instanceof Error) span.recordException(error);
    else span.recordException(String(error));
  }
  // Deno's own span: Deno records the status, error.type and the error
  // status of the response it sends (the router's answer to a thrown
  // error included), and ends the span.
  if (!ownSpan) return;
  span.setAttribute("http.response.status_code", status);
  if (status >= 500) {
    span.setAttribute(
      "error.type",
      error === undefined ? String(status) : errorType(error),
    );
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : undefined,
    });
  }
  span.end();
}

async function traced(
  span: Span,
  method: string,
  context: RequestContext,
  next: Next,
  ownSpan: boolean,
): Promise<Response> {
  let response: Response;
  try {
    response = await next();
  } catch (error) {
    finish(span, method, context, statusOf(error), error, ownSpan);
    throw error;
  }
  finish(span, method, context, response.status, undefined, ownSpan);
  return response;
}

function requestAttributes(
  context: RequestContext,
  method: string,
): Attributes {
  const { request } = context;
  const url = context.url;
  const attributes: Attributes = {
    "http.request.method": method,
    "url.path": url.pathname,
    "url.scheme": url.protocol.slice(0, -1),
    "server.address": url.hostname,
  };
  if (method !== request.method) {
    attributes["http.request.method_original"] = request.method;
  }
  const agent = request.headers.get("User-Agent");
  if (agent !== null) attributes["user_agent.original"] = agent;
  const client = context.remoteAddr?.hostname;
  if (client !== undefined) attributes["client.address"] = client;
  return attributes;
}

/** The hook that makes a client span per store call, below the request's. */
function storeSpanHook(tracer: Tracer): StoreCallHook {
  return (operation, { store, what }) => {
    const parent = trace.getActiveSpan();
    if (parent === undefined || !parent.isRecording()) return operation();
    const attributes: Attributes = {
      "db.system.name": store.toLowerCase().replace(/\W+/g, "_"),
    };
    if (what !== undefined) attributes["db.operation.name"] = what;
    return tracer.startActiveSpan(
      what === undefined ? store : `${store} ${what}`,
      { kind: SpanKind.CLIENT, attributes },
      async (span) => {
        try {
          return await operation();
        } catch (error) {
          span.recordException(
            error instanceof Error ? error : String(error),
          );
          span.setAttribute("error.type", errorType(error));
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : undefined,
          });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };
}

/**
 * Creates middleware that traces each request as one server span. Put it
 * first in the router's `middleware`, so the span covers everything
 * (logging, sessions, the handler) and other middleware runs inside its
 * context.
 *
 * The span is named `METHOD /route/:pattern` (just the method when no
 * route matched), and carries `http.request.method`, `http.route`,
 * `url.path`, `url.scheme`, `server.address`, `http.response.status_code`,
 * `client.address` (from `context.remoteAddr`) and `user_agent.original`;
 * a 5xx answer sets `error.type` and the error status; a thrown error is
 * recorded as an exception event. The query string is not recorded (it
 * may hold secrets). The span ends when the response is ready, before a
 * streamed body is sent.
 *
 * The parent comes from the request's `traceparent` (and `tracestate`),
 * read with the globally registered propagator; the handler runs in the
 * span's context, so spans made below it (database calls, `fetch`) are
 * its children when a context manager is registered.
 *
 * @example With the OpenTelemetry SDK
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { ServerSpan, tracing } from "@fetchkit/toolkit/tracing-middleware";
 * // import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
 * // new NodeTracerProvider({ spanProcessors: [...] }).register();
 *
 * const router = createRouter({ middleware: [tracing()] });
 * router.get("/users/:id", ({ get, params }) => {
 *   get(ServerSpan)?.setAttribute("app.user_id", String(params.id));
 *   return Response.json({ id: params.id });
 * });
 * ```
 *
 * @param options The tracer, whether to use Deno's own server span, and
 * whether to trace store calls.
 * @returns The middleware.
 */
export function tracing(options: TracingOptions = {}): Middleware {
  const own = options.tracer as Tracer | undefined;
  const tracer = own ?? trace.getTracer("@fetchkit/toolkit");
  const useDeno = options.useDenoServerSpan ?? true;
  if (options.storeSpans === true) setStoreCallHook(storeSpanHook(tracer));
  // Deno registers its telemetry before any user code runs; asked once,
  // at the first request (nothing runs at import or creation).
  let deno: boolean | undefined;

  return (context, next) => {
    // Without an SDK, the whole cost: two property reads and a compare.
    if (own === undefined && noSdk()) return next();
    const { request } = context;
    const method = KNOWN_METHODS.has(request.method)
      ? request.method
      : "_OTHER";
    if (useDeno && (deno ??= denoTelemetryActive())) {
      const span = trace.getActiveSpan();
      if (span !== undefined) {
        if (span.isRecording()) context.set(ServerSpan, span);
        return traced(span, method, context, next, false);
      }
    }
    const parent = propagation.extract(
      otelContext.active(),
      request.headers,
      headerGetter,
    );
    const span = tracer.startSpan(
      spanName(method, undefined),
      { kind: SpanKind.SERVER },
      parent,
    );
    if (!span.isRecording()) {
      // No SDK (or not sampled): nothing to record. A valid span context
      // (a sampled-out trace) is still passed on to what runs below.
      if (!isSpanContextValid(span.spanContext())) return next();
      return otelContext.with(trace.setSpan(parent, span), next);
    }
    span.setAttributes(requestAttributes(context, method));
    context.set(ServerSpan, span);
    return otelContext.with(
      trace.setSpan(parent, span),
      traced,
      undefined,
      span,
      method,
      context,
      next,
      true,
    );
  };
}
