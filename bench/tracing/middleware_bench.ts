/**
 * Per-request cost, without an OpenTelemetry SDK, of `tracing()`,
 * `contextStorage()` and `serverTiming()`: each is one router middleware,
 * so its own cost is its mean minus the pass-through middleware's
 * (`(context, next) => next()`). Hono with and without `@hono/otel`
 * (also no SDK) for reference.
 *
 * Run: deno bench --allow-all bench/tracing/middleware_bench.ts
 * (alone: `sdk_bench.ts` registers an SDK for its process)
 */
import { check, makeApps, request } from "./_apps.ts";

const apps = makeApps();
await check(apps);

for (
  const name of [
    "plain",
    "passThrough",
    "tracing",
    "contextStorage",
    "serverTiming",
  ] as const
) {
  Deno.bench({
    name: `fetchkit ${name}`,
    group: "fetchkit, no SDK",
    baseline: name === "passThrough",
    async fn() {
      await apps[name].fetch(request);
    },
  });
}
for (
  const name of [
    "honoPlain",
    "honoPassThrough",
    "honoOtel",
    "honoContextStorage",
    "honoTiming",
  ] as const
) {
  Deno.bench({
    name,
    group: "hono, no SDK",
    baseline: name === "honoPassThrough",
    async fn() {
      await apps[name].fetch(request);
    },
  });
}
