import assert from "node:assert/strict";
import {
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { ServerSpan, tracing } from "@fetchkit/toolkit/tracing-middleware";
import { finished, useSdk } from "./_test_sdk.ts";

function app(): Router {
  const router = createRouter({ middleware: [tracing()] });
  router.get("/posts/:id", ({ params }) => new Response(`post ${params.id}`));
  router.mount("/api/orgs/:org", (org) => {
    org.post("/members", () => Response.json({ ok: true }, { status: 201 }));
  });
  router.get("/fail", () => {
    throw new TypeError("database said no");
  });
  router.get("/unavailable", () => new Response("busy", { status: 503 }));
  router.get("/teapot", () => {
    throw Object.assign(new Error("short and stout"), { status: 418 });
  });
  router.get("/child", async () => {
    const tracer = trace.getTracer("app");
    await tracer.startActiveSpan("db.query", async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      span.end();
    });
    return new Response("ok");
  });
  return router;
}

Deno.test("tracing: one server span per request, named by method and route", async () => {
  const exporter = useSdk();
  const router = app();
  const response = await router.fetch(
    new Request("https://blog.example/posts/42?secret=1", {
      headers: { "User-Agent": "test-agent/1.0" },
    }),
    { remoteAddr: { transport: "tcp", hostname: "203.0.113.9", port: 5555 } },
  );
  assert.equal(await response.text(), "post 42");
  const spans = finished(exporter);
  assert.equal(spans.length, 1);
  const [span] = spans;
  assert.equal(span.name, "GET /posts/:id");
  assert.equal(span.kind, SpanKind.SERVER);
  assert.deepEqual(span.attributes, {
    "http.request.method": "GET",
    "http.route": "/posts/:id",
    "url.path": "/posts/42",
    "url.scheme": "https",
    "server.address": "blog.example",
    "user_agent.original": "test-agent/1.0",
    "client.address": "203.0.113.9",
    "http.response.status_code": 200,
  });
  assert.equal(span.status.code, SpanStatusCode.UNSET);
  assert.equal(span.parentSpanContext, undefined);
});

Deno.test("tracing: mounted routes carry the full pattern", async () => {
  const exporter = useSdk();
  const response = await app().fetch(
    new Request("http://x/api/orgs/acme/members", { method: "POST" }),
  );
  assert.equal(response.status, 201);
  const [span] = finished(exporter);
  assert.equal(span.name, "POST /api/orgs/:org/members");
  assert.equal(span.attributes["http.route"], "/api/orgs/:org/members");
  assert.equal(span.attributes["http.response.status_code"], 201);
});

Deno.test("tracing: the incoming traceparent is continued", async () => {
  const exporter = useSdk();
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const parentId = "b7ad6b7169203331";
  await app().fetch(
    new Request("http://x/posts/1", {
      headers: { traceparent: `00-${traceId}-${parentId}-01` },
    }),
  );
  const [span] = finished(exporter);
  assert.equal(span.spanContext().traceId, traceId);
  assert.equal(span.parentSpanContext?.spanId, parentId);
  assert.equal(span.parentSpanContext?.isRemote, true);
  // A malformed traceparent starts a new trace.
  exporter.reset();
  await app().fetch(
    new Request("http://x/posts/1", {
      headers: { traceparent: `00-${"0".repeat(32)}-${parentId}-01` },
    }),
  );
  const [fresh] = finished(exporter);
  assert.notEqual(fresh.spanContext().traceId, "0".repeat(32));
  assert.equal(fresh.parentSpanContext, undefined);
});

Deno.test("tracing: spans made in the handler are children of the server span", async () => {
  const exporter = useSdk();
  await app().fetch(new Request("http://x/child"));
  const spans = finished(exporter);
  const server = spans.find((span) => span.name === "GET /child");
  const child = spans.find((span) => span.name === "db.query");
  assert.ok(server && child);
  assert.equal(child.parentSpanContext?.spanId, server.spanContext().spanId);
  assert.equal(child.spanContext().traceId, server.spanContext().traceId);
});

Deno.test("tracing: a thrown error is recorded, with error.type and the error status", async () => {
  const exporter = useSdk();
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  let response: Response;
  try {
    response = await app().fetch(new Request("http://x/fail"));
  } finally {
    console.error = original;
  }
  assert.equal(response.status, 500);
  assert.equal(errors.length, 1);
  const [span] = finished(exporter);
  assert.equal(span.name, "GET /fail");
  assert.equal(span.attributes["http.response.status_code"], 500);
  assert.equal(span.attributes["error.type"], "TypeError");
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.status.message, "database said no");
  const [event] = span.events;
  assert.equal(event.name, "exception");
  assert.equal(event.attributes?.["exception.type"], "TypeError");
  assert.equal(event.attributes?.["exception.message"], "database said no");
});

Deno.test("tracing: a 5xx answer is an error; a 4xx is not", async () => {
  const exporter = useSdk();
  const router = app();
  await router.fetch(new Request("http://x/unavailable"));
  await router.fetch(new Request("http://x/posts/1", { method: "DELETE" }));
  await router.fetch(new Request("http://x/nowhere"));
  const original = console.error;
  console.error = () => {};
  try {
    await router.fetch(new Request("http://x/teapot"));
  } finally {
    console.error = original;
  }
  const [unavailable, notAllowed, notFound, teapot] = finished(exporter);
  assert.equal(unavailable.attributes["error.type"], "503");
  assert.equal(unavailable.status.code, SpanStatusCode.ERROR);
  assert.equal(notAllowed.name, "DELETE");
  assert.equal(notAllowed.attributes["http.response.status_code"], 405);
  assert.equal(notAllowed.attributes["http.route"], undefined);
  assert.equal(notAllowed.status.code, SpanStatusCode.UNSET);
  assert.equal(notFound.name, "GET");
  assert.equal(notFound.attributes["http.response.status_code"], 404);
  assert.equal(teapot.attributes["http.response.status_code"], 418);
  assert.equal(teapot.status.code, SpanStatusCode.UNSET);
  assert.equal(teapot.attributes["error.type"], undefined);
});

Deno.test("tracing: unknown methods are _OTHER, with the original kept", async () => {
  const exporter = useSdk();
  const router = createRouter({ middleware: [tracing()] });
  router.any("/x", () => new Response("ok"));
  await router.fetch(new Request("http://x/x", { method: "PURGE" }));
  const [span] = finished(exporter);
  assert.equal(span.name, "HTTP /x");
  assert.equal(span.attributes["http.request.method"], "_OTHER");
  assert.equal(span.attributes["http.request.method_original"], "PURGE");
});

Deno.test("tracing: ServerSpan is the request's span, and concurrent requests keep theirs", async () => {
  const exporter = useSdk();
  const router = createRouter({ middleware: [tracing()] });
  router.get("/n/:n", async ({ get, params }) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    const own = get(ServerSpan);
    assert.equal(trace.getActiveSpan(), own);
    own?.setAttribute("app.n", Number(params.n));
    return new Response(own?.spanContext().spanId);
  });
  const ids = await Promise.all(
    Array.from(
      { length: 50 },
      async (_, n) =>
        await (await router.fetch(new Request(`http://x/n/${n}`))).text(),
    ),
  );
  const spans = finished(exporter);
  assert.equal(spans.length, 50);
  for (const span of spans) {
    const n = span.attributes["app.n"] as number;
    assert.equal(span.attributes["url.path"], `/n/${n}`);
    assert.equal(ids[n], span.spanContext().spanId);
  }
});

Deno.test("tracing: with a tracer that has no SDK behind it, nothing is recorded", async () => {
  const exporter = useSdk();
  const noop = new ProxyTracerProvider().getTracer("none");
  const router = createRouter({ middleware: [tracing({ tracer: noop })] });
  router.get("/", ({ has }) => new Response(String(has(ServerSpan))));
  const response = await router.fetch(new Request("http://x/"));
  assert.equal(await response.text(), "false");
  assert.equal(finished(exporter).length, 0);
});
