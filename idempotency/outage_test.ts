// idempotency() and cache() when the store is down: a closed Deno KV
// database and a stopped redis-server. idempotency() answers 503 with
// Retry-After (running the handler unguarded could run it twice); cache()
// answers from the handler, uncached. The server keeps serving.

import assert from "node:assert/strict";
import { createClient } from "redis";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  type CacheStore,
  createKvCacheStore,
  createRedisCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { quietErrors } from "../_tools/console.ts";

const redisServer = await redisServerOrSkip();
const remoteAddr = {
  hostname: "192.0.2.1",
  port: 1,
  transport: "tcp" as const,
};

async function checkDown(store: CacheStore): Promise<void> {
  let runs = 0;
  const router = createRouter();
  router.post("/orders", idempotency({ store }), () => {
    runs++;
    return new Response("created", { status: 201 });
  });
  router.get("/page", cache({ store }), () => new Response("page"));
  using quiet = quietErrors();
  {
    const order = await router.fetch(
      new Request("http://localhost/orders", {
        method: "POST",
        headers: { "Idempotency-Key": "k" },
        body: "{}",
      }),
      { remoteAddr },
    );
    assert.equal(order.status, 503);
    assert.equal(order.headers.get("Retry-After"), "5");
    assert.equal(await order.text(), "Service Unavailable");
    assert.equal(runs, 0, "the handler did not run unguarded");
    const page = await router.fetch(new Request("http://localhost/page"));
    assert.equal(page.status, 200);
    assert.equal(await page.text(), "page");
    assert.ok(quiet.errors.length > 0, "the outages are logged");
  }
}

Deno.test("store down: a closed Deno KV database", async () => {
  const dir = await Deno.makeTempDir({ prefix: "idempotency-outage-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  const store = createKvCacheStore({ client: kv });
  kv.close();
  try {
    await checkDown(store);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "store down: a stopped redis-server (the client queues, the timeout ends the wait)",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = createClient({
      url: redis.url,
      socket: { reconnectStrategy: 50 },
    });
    client.on("error", () => {});
    await client.connect();
    const store = createRedisCacheStore({ client, timeout: 300 });
    await redis.stop();
    try {
      await checkDown(store);
    } finally {
      client.destroy();
    }
  },
});
