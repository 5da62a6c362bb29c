/**
 * The middleware's own cost, without a router: each middleware called
 * directly with a context and a `next()` that returns a ready response,
 * against a pass-through middleware (`(context, next) => next()`) and
 * Hono's equivalents called the same way. No OpenTelemetry SDK.
 *
 * Run: deno bench --allow-all bench/tracing/call_bench.ts
 */
import { RequestContext } from "@fetchkit/toolkit/fetch-router";
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import { contextStorage } from "@fetchkit/toolkit/context-storage";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";

const request = new Request("http://localhost/users/123");
const ok = new Response("ok");
const next = () => Promise.resolve(ok);

const contenders: [string, Middleware][] = [
  ["passThrough", (_context, next) => next()],
  ["tracing()", tracing()],
  ["contextStorage()", contextStorage()],
  ["serverTiming()", serverTiming({ enabled: true })],
];

for (const [name, middleware] of contenders) {
  Deno.bench({
    name,
    group: "one middleware call",
    baseline: name === "passThrough",
    async fn() {
      // A fresh context and response headers per call, as per request.
      await middleware(new RequestContext(request), next);
    },
  });
}
