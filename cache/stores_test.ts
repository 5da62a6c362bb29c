// cache() and idempotency() on a real Deno KV file and a real
// redis-server: hits with binary bodies, Deno KV's entry limit.

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

const redisServer = await redisServerOrSkip();
const remoteAddr = {
  hostname: "192.0.2.1",
  port: 1,
  transport: "tcp" as const,
};

function bytes(length: number): Uint8Array {
  const value = new Uint8Array(length);
  for (let i = 0; i < length; i++) value[i] = (i * 7) % 256;
  return value;
}

async function checkStore(store: CacheStore, largest: number): Promise<void> {
  const router = createRouter();
  let runs = 0;
  router.get("/file/:size", cache({ store }), ({ params }) => {
    runs++;
    return new Response(bytes(Number(params.size)) as BodyInit, {
      headers: { "Content-Type": "application/octet-stream" },
    });
  });
  router.post("/orders", idempotency({ store }), () => {
    runs++;
    return new Response(bytes(1000) as BodyInit, { status: 201 });
  });
  const get = (size: number) =>
    router.fetch(new Request(`http://localhost/file/${size}`));
  for (const size of [0, 1, 1000, largest]) {
    const miss = await get(size);
    assert.deepEqual(new Uint8Array(await miss.arrayBuffer()), bytes(size));
    const hit = await get(size);
    assert.equal(hit.headers.get("X-Cache"), "HIT", `size ${size}`);
    assert.equal(hit.headers.get("Content-Type"), "application/octet-stream");
    assert.deepEqual(new Uint8Array(await hit.arrayBuffer()), bytes(size));
  }
  assert.equal(runs, 4);
  // One byte over what the store takes in an entry: passed through, whole.
  const over = largest + 1;
  for (let i = 0; i < 2; i++) {
    const response = await get(over);
    assert.equal(response.headers.get("X-Cache"), "MISS");
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), bytes(over));
  }
  assert.equal(runs, 6);
  const order = () =>
    router.fetch(
      new Request("http://localhost/orders", {
        method: "POST",
        headers: { "Idempotency-Key": "binary" },
        body: "{}",
      }),
      { remoteAddr },
    );
  await (await order()).arrayBuffer();
  const replay = await order();
  assert.equal(replay.headers.get("Idempotent-Replayed"), "true");
  assert.deepEqual(new Uint8Array(await replay.arrayBuffer()), bytes(1000));
  assert.equal(runs, 7);
}

Deno.test("cache stores: Deno KV keeps bodies up to its entry limit and passes larger ones through", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cache-kv-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const store = createKvCacheStore({ client: kv });
    // cache() leaves 8 KiB of an entry for the status, headers and times.
    await checkStore(store, store.maxValueBytes - 8192);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "cache stores: Redis keeps binary bodies byte for byte",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = await createClient({ url: redis.url }).connect();
    try {
      const store = createRedisCacheStore({ client, maxEntryBytes: 300_000 });
      await checkStore(store, 300_000 - 8192);
      // The client the application passed is left as it was (string replies).
      await client.set("plain", "text");
      assert.equal(await client.get("plain"), "text");
    } finally {
      await client.quit();
      await redis.stop();
    }
  },
});
