// store_operations_total and store_operation_duration_seconds for the
// stores in this process's memory: sessions, rate limits, the cache (and
// idempotency) store and pub/sub, scraped through metricsHandler(), with
// the names the Redis and Deno KV stores give the same calls. Portable
// (runs on Node and Bun).

import assert from "node:assert/strict";
import {
  createMetricsRegistry,
  metricsHandler,
} from "@fetchkit/toolkit/metrics";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { createMemoryRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { app, Jar, send } from "../session/_test_app.ts";

const SECRET = "test-secret-0123456789abcdefghijklmnop";

/** The scrape's lines that start with `prefix` and name the memory store. */
async function memoryLines(
  scrape: (request: Request) => Response,
  prefix: string,
): Promise<string[]> {
  const text = await scrape(new Request("http://localhost/metrics")).text();
  return text.split("\n").filter((line) =>
    line.startsWith(prefix) && line.includes('store="memory"')
  );
}

Deno.test("metrics: memory session reads and saves are counted as the Redis storage names them", async () => {
  const registry = createMetricsRegistry();
  const scrape = metricsHandler({ registry, process: false });
  try {
    const router = app(
      createMemorySessionStorage({ cookie: { secrets: [SECRET] } }),
    );
    const jar = new Jar();
    // No cookie, a value set: one save. Then two reads with the cookie.
    await send(router, jar, "POST", "/set/user/ada");
    await send(router, jar, "GET", "/get/user");
    await send(router, jar, "GET", "/get/user");
    await send(router, jar, "POST", "/destroy");
    assert.deepEqual(await memoryLines(scrape, "store_operations_total{"), [
      'store_operations_total{store="memory",operation="save session",outcome="ok"} 1',
      'store_operations_total{store="memory",operation="read session",outcome="ok"} 3',
      'store_operations_total{store="memory",operation="delete session",outcome="ok"} 1',
    ]);
    assert.ok(
      (await memoryLines(scrape, "store_operation_duration_seconds_count{"))
        .includes(
          'store_operation_duration_seconds_count{store="memory",operation="read session"} 3',
        ),
    );
  } finally {
    registry.close();
  }
});

Deno.test("metrics: memory rate-limit hits are counted, a refused key as error", async () => {
  const registry = createMetricsRegistry();
  const scrape = metricsHandler({ registry, process: false });
  try {
    const store = createMemoryRateLimitStore();
    const policy = { limit: 2, windowMs: 60_000 };
    // The third is over the limit: still an answer of the store, ok.
    for (let i = 0; i < 3; i++) store.hit("client", policy);
    store.reset("client");
    assert.throws(() => store.hit("k".repeat(600), policy), RangeError);
    assert.deepEqual(await memoryLines(scrape, "store_operations_total{"), [
      'store_operations_total{store="memory",operation="rate limit",outcome="ok"} 3',
      'store_operations_total{store="memory",operation="rate limit reset",outcome="ok"} 1',
      'store_operations_total{store="memory",operation="rate limit",outcome="error"} 1',
    ]);
  } finally {
    registry.close();
  }
});

Deno.test("metrics: memory cache store calls are counted, a full store as unavailable", async () => {
  const registry = createMetricsRegistry();
  const scrape = metricsHandler({ registry, process: false });
  try {
    const store = createMemoryCacheStore({ maxBytes: 4096 });
    const value = new Uint8Array(100);
    await store.set("a", value, { ttlMs: 60_000 });
    await store.get("a");
    await store.get("missing");
    await store.delete("a");
    // Pinned entries (idempotency keys) fill it: the next is refused.
    await assert.rejects(async () => {
      for (let i = 0; i < 100; i++) {
        await store.set(`pinned${i}`, new Uint8Array(400), {
          ttlMs: 60_000,
          pinned: true,
        });
      }
    }, StoreUnavailableError);
    const lines = await memoryLines(scrape, "store_operations_total{");
    assert.deepEqual(lines.filter((line) => !line.includes('"set"')), [
      'store_operations_total{store="memory",operation="get",outcome="ok"} 2',
      'store_operations_total{store="memory",operation="delete",outcome="ok"} 1',
    ]);
    assert.ok(
      lines.includes(
        'store_operations_total{store="memory",operation="set",outcome="unavailable"} 1',
      ),
      lines.join("\n"),
    );
  } finally {
    registry.close();
  }
});

Deno.test("metrics: memory pub/sub appends are counted; nothing is counted once the registry is closed", async () => {
  const registry = createMetricsRegistry();
  const scrape = metricsHandler({ registry, process: false });
  const pubsub = createMemoryPubSub();
  try {
    await pubsub.publish("news", { n: 1 });
    await pubsub.publish("news", { n: 2 });
    assert.deepEqual(await memoryLines(scrape, "store_operations_total{"), [
      'store_operations_total{store="memory",operation="append",outcome="ok"} 2',
    ]);
    registry.close();
    await pubsub.publish("news", { n: 3 });
    assert.deepEqual(await memoryLines(scrape, "store_operations_total{"), [
      'store_operations_total{store="memory",operation="append",outcome="ok"} 2',
    ]);
  } finally {
    registry.close();
    await pubsub.close();
  }
});
