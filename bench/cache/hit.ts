/**
 * A cache() hit against the handler it saves and against a bare read of
 * the same store: memory, Deno KV on a temp file, a real redis-server. The
 * handler renders a 4 KiB JSON list (100 items), as a list endpoint would.
 * "Bare read" is a route whose handler reads the same stored bytes from
 * the store's client and answers them: what a hand-written cache lookup
 * costs at the least. Every contender goes through `router.fetch` and its
 * body is read. Interleaved rounds (see _rounds.ts).
 *
 *     deno run --allow-all bench/cache/hit.ts [--rounds 9] [--n 2000] [--base <dir>]
 *
 * With `--base <dir>` (an earlier checkout: `git archive main | tar -x -C
 * <dir>`), that checkout's router and `cache()` on the same stores and
 * entries run beside ours in the same rounds, for before/after.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createClient, RESP_TYPES } from "redis";
import { createRouter, RequestContext } from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  createKvCacheStore,
  createMemoryCacheStore,
  createRedisCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import { type Contender, interleave, option, table } from "./_rounds.ts";

const ROUNDS = option("--rounds", 9);
const N = option("--n", 2000);
const baseAt = Deno.args.indexOf("--base");
const BASE = baseAt === -1 ? undefined : Deno.args[baseAt + 1];

const items = Array.from({ length: 100 }, (_, i) => ({
  id: i,
  name: `item number ${i}`,
  done: i % 3 === 0,
}));
const render = () => Response.json({ items });

const dir = await Deno.makeTempDir({ prefix: "cache-bench-" });
const kv = await Deno.openKv(`${dir}/kv.sqlite`);
const redisPath = await findRedisServer();
if (redisPath === undefined) throw new Error("redis-server is not installed");
const redis = await startRedis(redisPath);
const client = await createClient({ url: redis.url }).connect();
const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });

const stores = {
  memory: createMemoryCacheStore(),
  kv: createKvCacheStore({ client: kv }),
  redis: createRedisCacheStore({ client }),
};
const router = createRouter();
router.get("/handler", render);
for (const [name, store] of Object.entries(stores)) {
  router.get(`/${name}`, cache({ store, ttl: 3600 }), render);
}
// The earlier checkout's router and cache() on the same stores, under its
// own paths (so its entries are its own: a key is the URL).
type Fetch = (request: Request) => Response | Promise<Response>;
const baseRouter: { fetch: Fetch } | undefined = BASE === undefined
  ? undefined
  : await (async () => {
    const { createRouter } = await import(`${BASE}/router/mod.ts`);
    const { cache } = await import(`${BASE}/cache/mod.ts`);
    const router = createRouter();
    for (const [name, store] of Object.entries(stores)) {
      router.get(`/base-${name}`, cache({ store, ttl: 3600 }), render);
    }
    return router as { fetch: Fetch };
  })();
const request = (path: string) => new Request(`http://localhost${path}`);
if (baseRouter !== undefined) {
  for (const name of Object.keys(stores)) {
    const response = await baseRouter.fetch(request(`/base-${name}`));
    if (response.headers.get("X-Cache") !== "MISS") throw new Error("no miss");
    await response.arrayBuffer();
  }
}
for (const name of Object.keys(stores)) {
  const response = await router.fetch(request(`/${name}`));
  if (response.headers.get("X-Cache") !== "MISS") throw new Error("no miss");
  await response.arrayBuffer();
}
// Let the misses' lock releases land before the rounds: a round of
// memory hits never yields to I/O, so a reply pending then would wait
// (and time out) until the round ends.
await new Promise((resolve) => setTimeout(resolve, 200));
// The bare reads: the entry's bytes as stored, answered as they are.
const kvKey = ["cache", "GET http://localhost/kv"];
router.get("/kv-bare", async () => {
  const entry = await kv.get<{ d: Uint8Array }>(kvKey);
  return new Response(entry.value!.d as BodyInit);
});
router.get("/redis-bare", async () => {
  const bytes = await binary.get("cache:GET http://localhost/redis");
  return new Response(bytes as BodyInit);
});
// The same, answered with the headers a hit carries: what a hand-written
// lookup costs once it says its type and age (on Deno, a Response with
// headers other than Content-Type costs several µs more to build).
const HIT_HEADERS = {
  "content-type": "application/json",
  "age": "0",
  "x-cache": "HIT",
};
router.get("/kv-bare-headers", async () => {
  const entry = await kv.get<{ d: Uint8Array }>(kvKey);
  return new Response(entry.value!.d as BodyInit, { headers: HIT_HEADERS });
});
router.get("/redis-bare-headers", async () => {
  const bytes = await binary.get("cache:GET http://localhost/redis");
  return new Response(bytes as BodyInit, { headers: HIT_HEADERS });
});

// The middleware alone on a hit, called as the router calls it.
const alone = cache({ store: createMemoryCacheStore(), ttl: 3600 });
const context = new RequestContext(request("/alone"));
await (await alone(context, () => Promise.resolve(render())))!.arrayBuffer();
const unreached = () => Promise.reject(new Error("not a hit"));
const sample = render();
const pairs = [...sample.headers];
const stored = new Uint8Array(await sample.arrayBuffer());

const get = (path: string): Contender => ({
  name: `router.fetch ${path}`,
  run: async () => await (await router.fetch(request(path))).arrayBuffer(),
});
const base = (name: string): Contender[] =>
  baseRouter === undefined ? [] : [{
    name: `cache() hit, ${BASE}`,
    run: async () =>
      await (await baseRouter.fetch(request(`/base-${name}`))).arrayBuffer(),
  }];

try {
  console.log(`${ROUNDS} rounds of ${N} operations each\n`);
  console.log("memory\n");
  console.log(table(
    await interleave(
      [
        { ...get("/handler"), name: "the handler it saves (no cache)" },
        { ...get("/memory"), name: "cache() hit, memory store" },
        ...base("memory"),
        {
          name: "cache() alone, hit (Response with a 4 KiB body copy, unread)",
          run: () => alone(context, unreached) as Promise<Response>,
        },
        {
          name: "the same Response built by hand (Headers, body copy)",
          run: () => {
            const headers = new Headers(pairs);
            headers.set("Age", "0");
            headers.set("X-Cache", "HIT");
            return Promise.resolve(
              new Response(stored as BodyInit, { status: 200, headers }),
            );
          },
        },
      ],
      ROUNDS,
      N,
    ),
  ));
  for (const name of ["kv", "redis"]) {
    console.log(`\n${name === "kv" ? "Deno KV (a local file)" : "Redis"}\n`);
    console.log(table(
      await interleave(
        [
          { ...get(`/${name}-bare`), name: "bare read of the entry" },
          {
            ...get(`/${name}-bare-headers`),
            name: "bare read, answered with a hit's headers",
          },
          { ...get(`/${name}`), name: "cache() hit" },
          ...base(name),
          { ...get("/handler"), name: "the handler it saves (no cache)" },
        ],
        ROUNDS,
        Math.max(200, N / 4),
      ),
    ));
  }
} finally {
  kv.close();
  await client.quit();
  await redis.stop();
  await Deno.remove(dir, { recursive: true });
}
