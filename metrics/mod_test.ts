import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createMetricsRegistry,
  metrics,
  metricsHandler,
  type MetricsRegistry,
} from "@fetchkit/toolkit/metrics";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
import { StoreUnavailableError, withTimeout } from "@fetchkit/toolkit/store";

function app(registry: MetricsRegistry) {
  const router = createRouter({ middleware: [metrics({ registry })] });
  router.get(
    "/metrics",
    metricsHandler({ registry, process: false, store: false }),
  );
  router.get("/users/:id", ({ params }) => new Response(`user ${params.id}`));
  router.post("/users", () => new Response("made", { status: 201 }));
  router.get("/boom", () => {
    throw new Error("boom");
  });
  router.mount("/api", (api) => {
    api.get("/items/:id", () => Response.json({ ok: true }));
  });
  return router;
}

function lines(text: string, prefix: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(prefix));
}

async function scrape(
  router: { fetch(request: Request): Response | Promise<Response> },
  accept?: string,
): Promise<{ text: string; type: string | null }> {
  const response = await router.fetch(
    new Request("http://localhost/metrics", {
      headers: accept === undefined ? {} : { accept },
    }),
  );
  return {
    text: await response.text(),
    type: response.headers.get("content-type"),
  };
}

Deno.test("metrics: counts by method, route pattern and status; 10,000 ids are one series", async () => {
  const registry = createMetricsRegistry();
  const router = app(registry);
  for (let id = 0; id < 10_000; id++) {
    await router.fetch(new Request(`http://localhost/users/${id}`));
  }
  await router.fetch(new Request("http://localhost/users", { method: "POST" }));
  await router.fetch(new Request("http://localhost/api/items/7"));
  for (let i = 0; i < 50; i++) {
    await router.fetch(new Request(`http://localhost/nothing/${i}`));
  }
  await router.fetch(new Request("http://localhost/boom"));
  const { text, type } = await scrape(router);
  assert.equal(type, "text/plain; version=0.0.4; charset=utf-8");
  assert.deepEqual(lines(text, "http_requests_total{"), [
    'http_requests_total{method="GET",route="/users/:id",status="200"} 10000',
    'http_requests_total{method="POST",route="/users",status="201"} 1',
    'http_requests_total{method="GET",route="/api/items/:id",status="200"} 1',
    'http_requests_total{method="GET",route="(unmatched)",status="404"} 50',
    'http_requests_total{method="GET",route="/boom",status="500"} 1',
  ]);
  assert.ok(
    text.includes(
      'http_request_duration_seconds_count{method="GET",route="/users/:id"} 10000',
    ),
  );
  assert.ok(
    text.includes(
      'http_request_duration_seconds_bucket{method="GET",route="/users/:id",le="+Inf"} 10000',
    ),
  );
  assert.ok(
    text.includes(
      'http_request_duration_seconds_bucket{method="GET",route="/users/:id",le="0.005"}',
    ),
  );
  // The scrape itself is in flight while it is written.
  assert.ok(text.includes("http_requests_in_flight 1\n"), text);
  // Every series of the whole exposition: bounded whatever the ids.
  const series = text.split("\n").filter((l) => l && !l.startsWith("#"));
  assert.ok(series.length < 120, `${series.length} series`);
  registry.close();
});

Deno.test("metrics: hostile methods and paths stay bounded and escaped", async () => {
  const registry = createMetricsRegistry();
  const router = app(registry);
  const methods = ["FOO", "BREW", "patch", "X".repeat(200), "get", "M\u00e9"];
  for (let i = 0; i < 2000; i++) {
    const method = i < methods.length ? methods[i]! : `M${i}`;
    try {
      await router.fetch(
        new Request(`http://localhost/${'"\\\n'.repeat(3)}${i}?q="x"`, {
          method,
        }),
      );
    } catch {
      // A method fetch refuses (not a token) never reaches the app.
    }
  }
  const { text } = await scrape(router);
  const requests = lines(text, "http_requests_total{");
  assert.ok(requests.length <= 4, requests.join("\n"));
  assert.ok(
    requests.every((line) =>
      /^http_requests_total\{method="(GET|PATCH|other)",route="\(unmatched\)",status="(404|405)"\} \d+$/
        .test(line)
    ),
    requests.join("\n"),
  );
  registry.close();
});

Deno.test("metrics: label values are escaped; custom metrics; maxSeries overflow", () => {
  const registry = createMetricsRegistry();
  const failures = registry.counter({
    name: "auth_failures_total",
    help: 'Failed sign-ins "by reason"\\ per line\nsecond',
    labelNames: ["reason"],
    maxSeries: 3,
  });
  failures.inc({ reason: 'bad "password"\\\n' });
  failures.inc({ reason: "locked" }, 2);
  failures.inc({ reason: "a" });
  failures.inc({ reason: "b" });
  failures.inc({ reason: "c" });
  const queue = registry.gauge({ name: "queue_depth", help: "Jobs waiting." });
  queue.set(undefined, 5);
  queue.dec();
  const sizes = registry.histogram({
    name: "upload_bytes",
    help: "Upload sizes.",
    buckets: [100, 1000],
  });
  sizes.observe(undefined, 50);
  sizes.observe(undefined, 500);
  sizes.observe(undefined, 5000);
  const text = registry.metrics();
  assert.ok(
    text.includes(
      '# HELP auth_failures_total Failed sign-ins "by reason"\\\\ per line\\nsecond\n',
    ),
    text,
  );
  assert.ok(
    text.includes('auth_failures_total{reason="bad \\"password\\"\\\\\\n"} 1'),
  );
  assert.ok(text.includes('auth_failures_total{reason="locked"} 2'));
  assert.ok(text.includes('auth_failures_total{reason="(overflow)"} 2'));
  assert.ok(text.includes("queue_depth 4\n"));
  assert.ok(text.includes('upload_bytes_bucket{le="100"} 1\n'));
  assert.ok(text.includes('upload_bytes_bucket{le="1000"} 2\n'));
  assert.ok(text.includes('upload_bytes_bucket{le="+Inf"} 3\n'));
  assert.ok(text.includes("upload_bytes_sum 5550\n"));
  assert.ok(text.includes("upload_bytes_count 3\n"));

  const open = registry.metrics("openmetrics");
  assert.ok(open.endsWith("# EOF\n"));
  assert.ok(open.includes("# TYPE auth_failures counter\n"));
  assert.ok(open.includes('auth_failures_total{reason="locked"} 2'));
  assert.ok(
    open.includes(
      '# HELP auth_failures Failed sign-ins \\"by reason\\"\\\\ per line\\nsecond\n',
    ),
  );

  assert.throws(() => failures.inc({ reason: "x" }, -1), RangeError);
  assert.throws(() => failures.inc({ nope: "x" }), /has no label "nope"/);
  assert.throws(
    () => registry.counter({ name: "bad name", help: "" }),
    /must match/,
  );
  assert.throws(
    () => registry.histogram({ name: "h", help: "", buckets: [2, 1] }),
    /ascending/,
  );
  assert.throws(
    () => registry.gauge({ name: "auth_failures_total", help: "" }),
    /already registered as a counter/,
  );
  assert.throws(
    () => registry.histogram({ name: "h2", help: "", labelNames: ["le"] }),
    /not allowed/,
  );
  registry.close();
});

Deno.test("metricsHandler: OpenMetrics when Accept asks for it", async () => {
  const registry = createMetricsRegistry();
  const router = app(registry);
  await router.fetch(new Request("http://localhost/users/1"));
  const { text, type } = await scrape(
    router,
    "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
  );
  assert.equal(
    type,
    "application/openmetrics-text; version=1.0.0; charset=utf-8",
  );
  assert.ok(text.includes("# TYPE http_requests counter\n"));
  assert.ok(
    text.includes(
      'http_requests_total{method="GET",route="/users/:id",status="200"} 1',
    ),
  );
  assert.ok(text.endsWith("# EOF\n"));
  registry.close();
});

Deno.test("metrics: custom buckets; other buckets on one registry refused", async () => {
  const registry = createMetricsRegistry();
  const router = createRouter({
    middleware: [metrics({ registry, buckets: [0.5, 1] })],
  });
  router.get("/", () => new Response("ok"));
  await router.fetch(new Request("http://localhost/"));
  const text = registry.metrics();
  assert.ok(
    text.includes(
      'http_request_duration_seconds_bucket{method="GET",route="/",le="0.5"} 1',
    ),
  );
  assert.ok(!text.includes('le="0.005"'));
  assert.throws(
    () => metrics({ registry, buckets: [1, 2] }),
    /already has buckets/,
  );
  assert.throws(
    () => metrics({ registry: createMetricsRegistry(), buckets: [1, NaN] }),
    /ascending/,
  );
  registry.close();
});

Deno.test("metrics: store calls by store, operation and outcome", async () => {
  const registry = createMetricsRegistry();
  metricsHandler({ registry, process: false });
  await withTimeout(() => Promise.resolve(1), 1000, {
    store: "Redis",
    what: "read session",
  });
  await assert.rejects(
    withTimeout(() => Promise.reject(new Error("bad")), 1000, {
      store: "Redis",
      what: "read session",
    }),
  );
  await assert.rejects(
    withTimeout(
      () => Promise.reject(new StoreUnavailableError("Redis", "down")),
      1000,
      { store: "Redis", what: "save session" },
    ),
  );
  let release!: () => void;
  await assert.rejects(
    withTimeout(() => new Promise<void>((r) => release = r), 20, {
      store: "Deno KV",
      what: "rate limit",
    }),
    StoreUnavailableError,
  );
  release();
  const text = registry.metrics();
  assert.deepEqual(lines(text, "store_operations_total{"), [
    'store_operations_total{store="Redis",operation="read session",outcome="ok"} 1',
    'store_operations_total{store="Redis",operation="read session",outcome="error"} 1',
    'store_operations_total{store="Redis",operation="save session",outcome="unavailable"} 1',
    'store_operations_total{store="Deno KV",operation="rate limit",outcome="timeout"} 1',
  ]);
  assert.ok(
    text.includes(
      'store_operation_duration_seconds_count{store="Redis",operation="read session"} 2',
    ),
  );
  registry.close();
  // Closed: no longer observed.
  await withTimeout(() => Promise.resolve(1), 1000, {
    store: "Redis",
    what: "read session",
  });
  assert.ok(
    registry.metrics().includes(
      'store_operations_total{store="Redis",operation="read session",outcome="ok"} 1',
    ),
  );
});

Deno.test("metrics: process metrics and open event streams", async () => {
  const registry = createMetricsRegistry();
  const router = createRouter({ middleware: [metrics({ registry })] });
  router.get("/metrics", metricsHandler({ registry, store: false }));
  let close!: () => void;
  const closed = new Promise<void>((resolve) => close = resolve);
  router.get("/events", () =>
    createEventStreamResponse(async function* () {
      yield { data: "hi" };
      await closed;
    }()));
  const events = await router.fetch(new Request("http://localhost/events"));
  await new Promise((resolve) => setTimeout(resolve, 60));
  let text = (await scrape(router)).text;
  assert.match(text, /^process_resident_memory_bytes \d+$/m);
  assert.match(text, /^process_heap_used_bytes \d+$/m);
  assert.match(
    text,
    /^process_event_loop_delay_seconds\{quantile="0.99"\} [\d.e-]+$/m,
  );
  assert.match(text, /^http_open_event_streams 1$/m);
  assert.match(text, /^http_open_websockets 0$/m);
  close();
  await events.body?.cancel();
  await new Promise((resolve) => setTimeout(resolve, 20));
  text = (await scrape(router)).text;
  assert.match(text, /^http_open_event_streams 0$/m);
  registry.close();
});
