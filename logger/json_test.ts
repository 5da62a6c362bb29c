import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { requestId } from "@fetchkit/toolkit/request-id-middleware";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import { finished, useSdk } from "../tracing/_test_sdk.ts";

Deno.test("logger json: one object per line, token names as fields, numbers for status and duration", async () => {
  const lines: string[] = [];
  const router = createRouter({
    middleware: [logger({ format: "json", log: (line) => lines.push(line) })],
  });
  router.get(
    "/items/:id",
    () => new Response("hello", { headers: { "Content-Length": "5" } }),
  );
  await router.fetch(
    new Request("http://x/items/1?q=2", {
      headers: { "User-Agent": "agent/1", Referer: "http://ref/" },
    }),
    { remoteAddr: { transport: "tcp", hostname: "198.51.100.7", port: 1 } },
  );
  assert.equal(lines.length, 1);
  assert.ok(!lines[0].includes("\n"));
  const line = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(line), [
    "dateISO",
    "method",
    "path",
    "status",
    "duration",
    "contentLength",
    "ip",
    "userAgent",
    "referer",
    "requestId",
    "traceId",
  ]);
  assert.match(line.dateISO, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(line.method, "GET");
  assert.equal(line.path, "/items/1?q=2");
  assert.equal(line.status, 200);
  assert.equal(typeof line.duration, "number");
  assert.ok(line.duration >= 0);
  assert.equal(line.contentLength, 5);
  assert.equal(line.ip, "198.51.100.7");
  assert.equal(line.userAgent, "agent/1");
  assert.equal(line.referer, "http://ref/");
  assert.equal(line.requestId, null);
  assert.equal(line.traceId, null);
});

Deno.test("logger json: chosen fields; a thrown error logs status 500", async () => {
  const lines: string[] = [];
  const router = createRouter({
    middleware: [
      logger({
        format: "json",
        fields: ["method", "status", "requestId"],
        log: (line) => lines.push(line),
      }),
      requestId(),
    ],
    onError: () => new Response("oops", { status: 500 }),
  });
  router.get("/boom", () => {
    throw new Error("boom");
  });
  await router.fetch(
    new Request("http://x/boom", { headers: { "X-Request-Id": "req-1" } }),
  );
  assert.deepEqual(JSON.parse(lines[0]), {
    method: "GET",
    status: 500,
    requestId: "req-1",
  });
});

Deno.test("logger json: hostile request values cannot break the line", async () => {
  const lines: string[] = [];
  const router = createRouter({
    middleware: [logger({ format: "json", log: (line) => lines.push(line) })],
  });
  router.get("/", () => new Response("ok"));
  await router.fetch(
    new Request("http://x/", {
      headers: { "User-Agent": 'evil"\u001b[31m\u0085}{"status":1' },
    }),
  );
  assert.equal(lines.length, 1);
  // deno-lint-ignore no-control-regex -- checking for control characters
  assert.ok(!/[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(lines[0]), lines[0]);
  const line = JSON.parse(lines[0]);
  assert.equal(line.status, 200);
  assert.equal(line.userAgent, 'evil"\\x1b[31m\\x85}{"status":1');
});

Deno.test("logger json: unknown fields are refused", () => {
  assert.throws(
    () => logger({ format: "json", fields: ["method", "nope"] }),
    /Unknown logger field "nope"; known fields: .*traceId/,
  );
  assert.throws(
    () => logger({ fields: ["method"] }),
    /`fields` goes with format: "json"/,
  );
});

Deno.test("logger %traceId: the trace id of the request's span", async () => {
  const exporter = useSdk();
  const lines: string[] = [];
  const router = createRouter({
    middleware: [
      logger({
        format: "%method %path %traceId",
        log: (line) => lines.push(line),
      }),
      tracing(),
    ],
  });
  router.get("/", () => new Response("ok"));
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  await router.fetch(
    new Request("http://x/", {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    }),
  );
  await router.fetch(new Request("http://x/"));
  const spans = finished(exporter);
  assert.equal(lines[0], `GET / ${traceId}`);
  assert.equal(lines[1], `GET / ${spans[1].spanContext().traceId}`);
  assert.notEqual(spans[1].spanContext().traceId, traceId);

  // Without tracing(), and no active span: "-".
  const plain: string[] = [];
  const bare = createRouter({
    middleware: [
      logger({ format: "%traceId", log: (line) => plain.push(line) }),
    ],
  });
  bare.get("/", () => new Response("ok"));
  await bare.fetch(new Request("http://x/"));
  assert.equal(plain[0], "-");
});
