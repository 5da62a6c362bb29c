// Test helper: a server process with a rate limiter on a shared store.
// Usage: _test_server.ts kv <path> | redis <url> [gcra|lockout];
// prints "listening <port>".
import { createClient } from "redis";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createKvRateLimitStore,
  createRedisRateLimitStore,
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";

const [kind, target, algorithm = "gcra"] = Deno.args;
let store: RateLimitStore;
if (kind === "kv") {
  store = createKvRateLimitStore({ client: await Deno.openKv(target) });
} else {
  const client = createClient({ url: target });
  await client.connect();
  store = createRedisRateLimitStore({ client });
}
const router = createRouter({
  middleware: [
    rateLimit({
      limit: 10,
      windowMs: 60_000,
      algorithm: algorithm as "gcra" | "lockout",
      store,
      key: () => "shared",
    }),
  ],
});
router.get("/", () => new Response("ok"));
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);
