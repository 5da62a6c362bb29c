/**
 * What idempotency() adds to a request on each store, against one
 * compare-and-set on that store (a write only if the key is absent, the
 * same call the middleware claims a key with). Every request carries a new
 * key, as real clients send: the middleware claims it (one compare-and-set)
 * and writes the answer over it (a second one). Contenders go through
 * `router.fetch` with a 2-byte JSON body, in interleaved rounds (see
 * ../cache/_rounds.ts).
 *
 *     deno run --allow-all bench/idempotency/cost.ts [--rounds 9] [--n 1000]
 *
 * @module
 */
import { createClient } from "redis";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  type CacheStore,
  createKvCacheStore,
  createMemoryCacheStore,
  createRedisCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import {
  type Contender,
  type Figures,
  interleave,
  option,
  table,
} from "../cache/_rounds.ts";

const ROUNDS = option("--rounds", 9);
const N = option("--n", 1000);

const dir = await Deno.makeTempDir({ prefix: "idempotency-bench-" });
const kv = await Deno.openKv(`${dir}/kv.sqlite`);
const redisPath = await findRedisServer();
if (redisPath === undefined) throw new Error("redis-server is not installed");
const redis = await startRedis(redisPath);
const client = await createClient({ url: redis.url }).connect();
const stores: Record<string, CacheStore> = {
  memory: createMemoryCacheStore({ maxBytes: 256 * 1024 * 1024 }),
  "Deno KV (a local file)": createKvCacheStore({ client: kv }),
  Redis: createRedisCacheStore({ client }),
};
const remoteAddr = {
  hostname: "192.0.2.1",
  port: 1,
  transport: "tcp" as const,
};
const handler = () => Response.json({ id: 1 }, { status: 201 });
let counter = 0;

function post(router: ReturnType<typeof createRouter>, key: boolean) {
  return async () => {
    const response = await router.fetch(
      new Request("http://localhost/orders", {
        method: "POST",
        headers: key ? { "Idempotency-Key": `k${++counter}` } : {},
        body: "{}",
      }),
      { remoteAddr },
    );
    await response.arrayBuffer();
  };
}

const small = new Uint8Array(64);
try {
  console.log(`${ROUNDS} rounds of ${N} operations each`);
  for (const [name, store] of Object.entries(stores)) {
    const plain = createRouter();
    plain.post("/orders", handler);
    const guarded = createRouter();
    guarded.post("/orders", idempotency({ store }), handler);
    const contenders: Contender[] = [
      {
        name: "one compare-and-set (set if absent, 64 bytes)",
        run: () =>
          store.set(`cas${++counter}`, small, {
            ttlMs: 60_000,
            ifVersion: null,
          }),
      },
      { name: "POST without idempotency()", run: post(plain, false) },
      { name: "POST with idempotency(), a new key", run: post(guarded, true) },
    ];
    const figures: Figures[] = await interleave(contenders, ROUNDS, N);
    // Store calls per request, counted (they do not depend on load).
    const calls = { get: 0, set: 0, delete: 0 };
    const counted: CacheStore = {
      name: store.name,
      maxValueBytes: store.maxValueBytes,
      get: (key) => (calls.get++, store.get(key)),
      set: (
        key,
        value,
        options,
      ) => (calls.set++, store.set(key, value, options)),
      delete: (key, options) => (calls.delete++, store.delete(key, options)),
    };
    const countedRouter = createRouter();
    countedRouter.post("/orders", idempotency({ store: counted }), handler);
    const requests = 200;
    for (let i = 0; i < requests; i++) await post(countedRouter, true)();
    const [cas, without, withKey] = figures;
    console.log(`\n${name}\n`);
    console.log(table(figures));
    console.log(
      `\nadded by idempotency(): wall ${
        (withKey.wall - without.wall).toFixed(2)
      } µs = ${
        ((withKey.wall - without.wall) / cas.wall).toFixed(2)
      }x one compare-and-set; CPU ${
        (withKey.cpu - without.cpu).toFixed(2)
      } µs = ${((withKey.cpu - without.cpu) / cas.cpu).toFixed(2)}x`,
    );
    console.log(
      `store calls per request with a new key: ${calls.get / requests} get, ${
        calls.set / requests
      } compare-and-set, ${calls.delete / requests} delete`,
    );
  }
} finally {
  kv.close();
  await client.quit();
  await redis.stop();
  await Deno.remove(dir, { recursive: true });
}
