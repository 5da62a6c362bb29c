// A server process for the Redis Cluster failover test and benchmark:
// sessions and a rate limiter on one Redis Cluster, through node-redis'
// createCluster() with its default options (and the stores' defaults).
// Prints its port once listening.
//
//   deno run --allow-all store/_test_failover_server.ts <url>,<url>,... [refresh-ms]
//
// With refresh-ms, node-redis asks the cluster for its layout that long
// after a node stops answering (`topologyRefreshOnReconnectionAttemptStrategy`;
// its default is 5000).
//
// POST /count adds one to the session's `n` and answers it; GET /count
// answers it; GET /limited?key=K counts K (lockout, 1,000,000 per hour:
// a count to compare, never refused).

import { createCluster } from "redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import {
  createRedisRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";

const rootNodes = Deno.args[0].split(",").map((url) => ({ url }));
const refresh = Deno.args[1] === undefined ? undefined : Number(Deno.args[1]);
const client = createCluster({
  rootNodes,
  ...(refresh === undefined
    ? {}
    : { topologyRefreshOnReconnectionAttemptStrategy: refresh }),
});
client.on("error", () => {});
await client.connect();

const Sessions = createContextKey<Session>();
const sessions = session(
  Sessions,
  createRedisSessionStorage({
    client,
    cookie: { secrets: ["failover-secret-0123456789abcdefghij"] },
  }),
);
const router = createRouter();
router.post("/count", sessions, ({ get }) => {
  const current = get(Sessions)!;
  const n = (current.get("n") as number | undefined ?? 0) + 1;
  current.set("n", n);
  return Response.json({ n });
});
router.get("/count", sessions, ({ get }) => {
  return Response.json({ n: get(Sessions)!.get("n") ?? 0 });
});
router.get(
  "/limited",
  rateLimit({
    name: "fo",
    limit: 1_000_000,
    windowMs: 3_600_000,
    algorithm: "lockout",
    store: createRedisRateLimitStore({ client }),
    key: ({ url }) => url.searchParams.get("key") ?? undefined,
  }),
  () => new Response("counted"),
);
// The outage's log lines (one per 503): the driver counts statuses itself.
console.error = () => {};
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  client.destroy();
  Deno.exit(0);
});
