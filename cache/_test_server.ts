// A server process for the multi-server tests of cache() and
// idempotency(): both on one store, a Deno KV file or a Redis, shared with
// another process. Prints its port once listening.
//
//   deno run ... cache/_test_server.ts kv <path-to-kv-file>
//   deno run ... cache/_test_server.ts redis <redis-url>
//   deno run ... cache/_test_server.ts redis-cluster <url>,<url>,...
//
// GET /slow is cached, GET /stale too with stale-while-revalidate; POST
// /orders takes an Idempotency-Key; the handlers take 300 ms. GET /runs tells how often each handler ran here.

import { createClient, createCluster } from "redis";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  type CacheStore,
  createKvCacheStore,
  createRedisCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";

const [kind, target] = Deno.args;
let store: CacheStore;
let close: () => Promise<void>;
if (kind === "kv") {
  const kv = await Deno.openKv(target);
  store = createKvCacheStore({ client: kv });
  close = () => Promise.resolve(kv.close());
} else if (kind === "redis-cluster") {
  const rootNodes = target.split(",").map((url) => ({ url }));
  const client = await createCluster({ rootNodes }).connect();
  store = createRedisCacheStore({ client });
  close = async () => void await client.close();
} else {
  const client = await createClient({ url: target }).connect();
  store = createRedisCacheStore({ client });
  close = async () => void await client.quit();
}

const runs = { cache: 0, idempotency: 0 };
const pause = () => new Promise((resolve) => setTimeout(resolve, 300));
const router = createRouter();
// The two processes listen on different ports, which the default key
// (the whole URL) would tell apart: key on the path, as servers behind one
// host name would share it.
const key = ({ url }: { url: URL }) => url.pathname + url.search;
router.get("/slow", cache({ store, ttl: 60, key }), async () => {
  runs.cache++;
  await pause();
  return new Response(`built by ${Deno.pid}`);
});
// Fresh for 1 s, then served stale for a minute while one request
// regenerates it.
router.get(
  "/stale",
  cache({ store, ttl: 1, staleWhileRevalidate: 60, key }),
  async () => {
    runs.cache++;
    await pause();
    return new Response(`version ${runs.cache} by ${Deno.pid}`);
  },
);
router.post("/orders", idempotency({ store }), async ({ request }) => {
  runs.idempotency++;
  await pause();
  return Response.json({ order: await request.text(), by: Deno.pid }, {
    status: 201,
  });
});
router.get("/runs", () => Response.json(runs));

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await close();
  Deno.exit(0);
});
