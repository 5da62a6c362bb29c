import assert from "node:assert/strict";
import { SpanKind } from "@opentelemetry/api";
import { Client, testApp } from "./_test_app.ts";
import { finished, useSdk } from "../../tracing/_test_sdk.ts";
import { setStoreCallHook } from "@fetchkit/toolkit/store";

Deno.test("development: Server-Timing on every answer and a span per request", async () => {
  const exporter = useSdk();
  const { app, close } = await testApp({ development: true });
  try {
    const client = new Client(app);
    const home = await client.get("/");
    await home.body?.cancel();
    assert.match(home.headers.get("Server-Timing") ?? "", /^total;dur=[\d.]+$/);
    await (await client.register("ada@example.com")).body?.cancel();
    const dashboard = await client.get("/dashboard");
    assert.equal(dashboard.status, 200);
    await dashboard.body?.cancel();
    const missing = await client.get("/nowhere");
    await missing.body?.cancel();

    const names = finished(exporter)
      .filter((span) => span.kind === SpanKind.SERVER)
      .map((span) => span.name);
    assert.deepEqual(names, [
      "GET /",
      "POST /auth/register",
      "GET /dashboard",
      "GET",
    ]);
    // The session's Deno KV calls are child spans of the request's span.
    const spans = finished(exporter);
    const dashboardSpan = spans.find((span) => span.name === "GET /dashboard")!;
    const reads = spans.filter((span) =>
      span.kind === SpanKind.CLIENT &&
      span.parentSpanContext?.spanId === dashboardSpan.spanContext().spanId
    );
    assert.ok(
      reads.some((span) => span.name === "Deno KV read session"),
      reads.map((span) => span.name).join(", "),
    );
    assert.equal(reads[0].attributes["db.system.name"], "deno_kv");
  } finally {
    close();
    setStoreCallHook(undefined);
  }
});

Deno.test("not in development: neither header nor spans", async () => {
  const exporter = useSdk();
  const { app, close } = await testApp();
  try {
    const response = await new Client(app).get("/");
    await response.body?.cancel();
    assert.equal(response.headers.get("Server-Timing"), null);
    assert.equal(finished(exporter).length, 0);
  } finally {
    close();
  }
});
