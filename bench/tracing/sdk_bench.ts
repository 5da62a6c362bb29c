/**
 * Per-request cost of a traced request with the OpenTelemetry SDK and a
 * no-op exporter: `tracing()` on our router against `@hono/otel` on Hono,
 * each beside its bare app.
 *
 * Run: deno bench --allow-all bench/tracing/sdk_bench.ts
 */
import { exported } from "./_sdk.ts";
import { check, makeApps, request } from "./_apps.ts";

const apps = makeApps();
await check(apps);
if (exported.count !== 2) {
  throw new Error(`expected 2 spans exported, got ${exported.count}`);
}

for (const name of ["plain", "tracing", "honoPlain", "honoOtel"] as const) {
  Deno.bench({
    name,
    group: "SDK + no-op exporter",
    baseline: name === "tracing",
    async fn() {
      await apps[name].fetch(request);
    },
  });
}
