/**
 * One instance behind the proxy: the auth app (`examples/auth`) with its
 * sessions, login limits and a health check on Redis, and the live board
 * (`examples/live`: `/live`, `/events`, `/ws`, `/messages`) on Redis
 * pub/sub, on one port. Both trust the proxy on loopback for the client
 * address (`X-Forwarded-For`), and both count into one `/metrics`.
 *
 * On `SIGTERM`, `/readyz` answers 503 at once, the listener keeps serving
 * for `DRAIN_MS` while the proxy takes the instance out, then in-flight
 * requests finish, event streams and WebSockets close (clients reconnect
 * through the proxy to another instance and resume from pub/sub), and the
 * process exits.
 *
 * Settings (environment): `PORT` (0: a free one), `INSTANCE` (its name in
 * logs and messages), `REDIS_URL`, `DENO_KV_PATH` (users; one file shared by
 * every instance), `SESSION_SECRET`, `DRAIN_MS` (2000), `BCRYPT_COST` (12),
 * `POSTS_PER_MINUTE` (30) and `STREAMS_PER_ADDRESS` (20) of the board,
 * `AUTH_PUBLIC_DIR` (the auth app's `public/`, for a bundle).
 * Prints `listening <port>` once it serves.
 *
 * Portable: it runs on Deno (`deno run -P=deploy-instance --unstable-kv`)
 * and, bundled by `node_bundle.ts`, on Node 20 (`node instance.mjs`), with
 * no `Deno.*` call on Node's path: settings from `node:process`, the KV
 * file through `shared_kv.ts` (`Deno.openKv`, or `npm:@deno/kv` on Node),
 * and `serve()`'s Node adapter. Deno and Node instances share one Redis
 * and one KV file.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import process from "node:process";
import { createClient } from "redis";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import { createRedisRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { createMetricsRegistry, metrics } from "@fetchkit/toolkit/metrics";
import { serve, type ServeHandlerInfo } from "@fetchkit/toolkit/serve";
import type { TrustProxyOptions } from "@fetchkit/toolkit/fetch-router";
import { createApp } from "../auth/app.ts";
import { createSessionStorage } from "../auth/sessions.ts";
import { createLiveApp } from "../live/app.ts";
import { retryWhileLocked } from "@fetchkit/toolkit/store";
import { openSharedKv } from "./shared_kv.ts";

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const name = env("INSTANCE", "app");
const port = Number(env("PORT", "0"));
const drainMs = Number(env("DRAIN_MS", "2000"));
const secret = process.env.SESSION_SECRET ?? "";
if (secret.length < 32) {
  console.error("Cannot start: SESSION_SECRET of at least 32 characters");
  process.exit(1);
}
// HAProxy on this machine adds the client to X-Forwarded-For.
const trustProxy: TrustProxyOptions = { proxies: ["loopback"] };

const kvPath = env("DENO_KV_PATH", ".data/deploy/users.kv");
await mkdir(dirname(kvPath), { recursive: true });
// Three processes write to this file: their calls wait out SQLite's lock.
const kv = retryWhileLocked(await openSharedKv(kvPath));
const redis = createClient({ url: env("REDIS_URL", "redis://127.0.0.1:6379") });
redis.on("error", (error: Error) => console.error(`Redis: ${error.message}`));
await redis.connect();

const log = (line: string) => console.log(`${name} ${line}`);
const registry = createMetricsRegistry();
const auth = await createApp({
  kv,
  sessions: createSessionStorage({
    kind: "redis",
    kv,
    secrets: [secret],
    secure: false,
    redis,
  }),
  rateLimitStore: createRedisRateLimitStore({ client: redis }),
  bcryptCost: Number(env("BCRYPT_COST", "12")),
  log,
  trustProxy,
  healthChecks: {
    redis: () => redis.ping(),
    kv: () => kv.get(["health"]),
  },
  metricsRegistry: registry,
  // Links in mail and passkeys' origin: the proxy's address, not this port.
  appUrl: env("APP_URL", "http://localhost:8030"),
  // A bundle (Node) names the auth app's public/ folder; Deno finds it.
  publicDir: process.env.AUTH_PUBLIC_DIR,
});
const pubsub = createRedisPubSub({ client: redis });
const live = createLiveApp({
  pubsub,
  postLimits: createRedisRateLimitStore({ client: redis }),
  serverName: name,
  log,
  trustProxy,
  middleware: [metrics({ registry })],
  postsPerMinute: Number(env("POSTS_PER_MINUTE", "30")),
  streams: { perAddress: Number(env("STREAMS_PER_ADDRESS", "20")) },
});

const LIVE_PATHS = new Set(["/events", "/ws", "/messages"]);

/** The board's paths go to the board; `/live` is its page; the rest is the auth app's. */
function dispatch(request: Request, info: ServeHandlerInfo) {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.indexOf("?", start);
  const path = end === -1 ? url.slice(start) : url.slice(start, end);
  if (LIVE_PATHS.has(path)) return live.fetch(request, info);
  if (path === "/live") {
    return live.fetch(
      new Request(new URL("/", url), { headers: request.headers }),
      info,
    );
  }
  return auth.fetch(request, info);
}

const server = serve(dispatch, {
  hostname: "127.0.0.1",
  port,
  drainMs,
  onListen: ({ port }) => console.log(`listening ${port}`),
});
await server.finished;
registry.close();
kv.close();
// Pub/sub reads on a connection of its own: closed too, so the process
// ends once it drained (on Node it held the process until serve()'s exit
// a second later).
await pubsub.close();
await redis.quit().catch(() => {});
log("stopped");
