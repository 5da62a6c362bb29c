// Deno-only: Deno's built-in OpenTelemetry (OTEL_DENO=true) exporting to
// an OTLP receiver on 127.0.0.1.
import assert from "node:assert/strict";
import { startOtlpReceiver } from "../_tools/otlp_receiver.ts";

Deno.test("OTEL_DENO=true: one span per request, Deno's, named by the route with http.route", async () => {
  const receiver = startOtlpReceiver();
  try {
    const app = new URL("./testdata/otel_app.ts", import.meta.url);
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--unstable-kv", "--allow-net=127.0.0.1", app.pathname],
      env: {
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "otel-test",
        OTEL_DENO_CONSOLE: "ignore",
      },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    // Server spans (kind 2) only; the app's own fetch() calls make client spans.
    const spans = await receiver.waitFor(13);
    const server = spans.filter((span) => span.kind === 2);
    assert.equal(server.length, 6, JSON.stringify(server.map((s) => s.name)));
    // None made by the toolkit itself: Deno's span is reused.
    assert.deepEqual(
      new Set(server.map((span) => span.scope)),
      new Set(["deno"]),
    );
    const byPath = new Map(
      server.map((span) => [span.attributes["url.path"], span]),
    );

    for (const id of ["1", "2", "3"]) {
      const span = byPath.get(`/posts/${id}`);
      assert.ok(span, `a span for /posts/${id}`);
      assert.equal(span.name, "GET /posts/:id");
      assert.equal(span.attributes["http.route"], "/posts/:id");
      assert.equal(span.attributes["http.request.method"], "GET");
      assert.equal(String(span.attributes["http.response.status_code"]), "200");
    }
    // The incoming traceparent is continued.
    const continued = byPath.get("/posts/3")!;
    assert.equal(continued.traceId, "0af7651916cd43dd8448eb211c80319c");
    assert.equal(continued.parentSpanId, "b7ad6b7169203331");

    const boom = byPath.get("/boom")!;
    assert.equal(boom.name, "GET /boom");
    assert.equal(boom.attributes["http.route"], "/boom");
    assert.equal(String(boom.attributes["http.response.status_code"]), "500");
    // Deno sets error.type to the status it sent.
    assert.equal(boom.attributes["error.type"], "500");
    assert.equal(boom.events[0]?.name, "exception");
    assert.equal(
      boom.events[0]?.attributes["exception.message"],
      "out of range",
    );

    // A store call is a client span below Deno's server span.
    const stored = byPath.get("/stored")!;
    assert.equal(stored.name, "GET /stored");
    const read = spans.find((span) => span.name === "Deno KV read k");
    assert.ok(read, JSON.stringify(spans.map((s) => s.name)));
    assert.equal(read.kind, 3);
    assert.equal(read.parentSpanId, stored.spanId);
    assert.equal(read.traceId, stored.traceId);
    assert.equal(read.attributes["db.system.name"], "deno_kv");

    const nowhere = byPath.get("/nowhere")!;
    assert.equal(nowhere.name, "GET");
    assert.equal(nowhere.attributes["http.route"], undefined);
  } finally {
    await receiver.close();
  }
});
