import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import {
  setStoreCallHook,
  StoreUnavailableError,
  withTimeout,
} from "@fetchkit/toolkit/store";
import { finished, useSdk } from "./_test_sdk.ts";
import { gateway, storageAt } from "../file_storage/_test_gateway.ts";

// A store as store modules write them: every call through withTimeout.
const data = new Map<string, string>();
function read(key: string): Promise<string | undefined> {
  return withTimeout(
    async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return data.get(key);
    },
    1000,
    { store: "Deno KV", what: "read session" },
  );
}

Deno.test("tracing storeSpans: a child span per store call inside a request", async () => {
  const exporter = useSdk();
  try {
    const router = createRouter({
      middleware: [tracing({ storeSpans: true })],
    });
    router.get("/s/:id", async ({ params }) => {
      data.set("a", "1");
      const value = await read(String(params.id));
      await withTimeout(
        () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379")),
        1000,
        {
          store: "Redis",
          what: "count hit",
        },
      ).catch((error) => {
        assert.ok(error instanceof StoreUnavailableError);
      });
      return new Response(value ?? "none");
    });
    const response = await router.fetch(new Request("http://x/s/a"));
    assert.equal(await response.text(), "1");
    const spans = finished(exporter);
    const server = spans.find((span) => span.kind === SpanKind.SERVER)!;
    const kv = spans.find((span) => span.name === "Deno KV read session")!;
    const redis = spans.find((span) => span.name === "Redis count hit")!;
    assert.ok(server && kv && redis, spans.map((s) => s.name).join(", "));
    assert.equal(kv.kind, SpanKind.CLIENT);
    assert.equal(kv.parentSpanContext?.spanId, server.spanContext().spanId);
    assert.deepEqual(kv.attributes, {
      "db.system.name": "deno_kv",
      "db.operation.name": "read session",
    });
    assert.equal(kv.status.code, SpanStatusCode.UNSET);
    assert.equal(redis.status.code, SpanStatusCode.ERROR);
    assert.equal(redis.attributes["error.type"], "Error");
    assert.equal(redis.events[0].name, "exception");

    // Outside a request: no orphan span.
    exporter.reset();
    assert.equal(await read("a"), "1");
    assert.equal(finished(exporter).length, 0);
  } finally {
    setStoreCallHook(undefined);
  }
});

Deno.test("tracing without storeSpans makes no store spans", async () => {
  const exporter = useSdk();
  const router = createRouter({ middleware: [tracing()] });
  router.get("/", async () => new Response(String(await read("a"))));
  await router.fetch(new Request("http://x/"));
  assert.deepEqual(finished(exporter).map((span) => span.name), ["GET /"]);
});

Deno.test("tracing storeSpans: a child span per S3 request of the file storage, refusals and outages marked", async () => {
  const exporter = useSdk();
  const server = await gateway();
  try {
    const storage = storageAt(server.port);
    const router = createRouter({
      middleware: [tracing({ storeSpans: true })],
    });
    router.post("/files/:name", async ({ params }) => {
      await storage.set(String(params.name), new Blob(["hi"]));
      return new Response("stored");
    });
    assert.equal(
      (await router.fetch(
        new Request("http://localhost/files/a.txt", { method: "POST" }),
      )).status,
      200,
    );
    assert.equal(
      (await router.fetch(
        new Request("http://localhost/files/busy.txt", { method: "POST" }),
      )).status,
      503,
    );
    // Outside a traced request: no span.
    await storage.has("a.txt");
    const spans = finished(exporter);
    const s3 = spans.filter((span) => span.name.startsWith("S3 "));
    assert.deepEqual(
      s3.map((span) => [
        span.name,
        span.kind,
        span.attributes["db.system.name"],
        span.attributes["db.operation.name"],
        span.status.code,
      ]),
      [
        [
          "S3 PutObject",
          SpanKind.CLIENT,
          "s3",
          "PutObject",
          SpanStatusCode.UNSET,
        ],
        [
          "S3 PutObject",
          SpanKind.CLIENT,
          "s3",
          "PutObject",
          SpanStatusCode.ERROR,
        ],
      ],
    );
    const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
    assert.equal(servers.length, 2);
    for (const [i, span] of s3.entries()) {
      assert.equal(
        span.parentSpanContext?.spanId,
        servers[i].spanContext().spanId,
      );
    }
  } finally {
    setStoreCallHook(undefined);
    await server.close();
  }
});
