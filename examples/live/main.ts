/**
 * Serves the live board: `deno run -P=live examples/live/main.ts`, then
 * open http://127.0.0.1:8002.
 *
 * Settings (environment):
 * - `PORT` (8002; `0` picks a free one), `HOSTNAME` (127.0.0.1),
 *   `SERVER_NAME` (shown on the page; default `host:port`).
 * - `PUBSUB`: `memory` (default, one server), `redis` (with `REDIS_URL`,
 *   default redis://127.0.0.1:6379) or `kv` (with `DENO_KV_PATH`, needs
 *   `--unstable-kv`). Servers sharing one Redis or KV file share the board.
 * - `STREAMS_PER_ADDRESS` (20), `STREAMS_TOTAL` (500),
 *   `STREAM_LIFETIME_MS` (300000), `POSTS_PER_MINUTE` (30).
 *
 * It prints `listening <port>` first, then one log line per request.
 * `SIGTERM` or Ctrl-C: in-flight requests finish, event streams end (the
 * browsers reconnect, to another server behind a load balancer), then it
 * exits. It keeps serving when it runs out of file descriptors
 * (`serve()` listens again).
 *
 * @module
 */
import { createClient } from "redis";
import {
  createKvPubSub,
  createMemoryPubSub,
  createRedisPubSub,
  type PubSub,
} from "@fetchkit/toolkit/pubsub";
import {
  createKvRateLimitStore,
  createRedisRateLimitStore,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { createLiveApp } from "./app.ts";
import { PortInUseError, serve, type Server } from "@fetchkit/toolkit/serve";
import { portInUseMessage } from "../_port_hint.ts";

function number(name: string): number | undefined {
  const text = Deno.env.get(name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`Cannot start: ${name} must be a whole number, got ${text}`);
    Deno.exit(1);
  }
  return value;
}

/** The pub/sub, and how to close what it runs on. */
async function openPubSub(
  kind: string,
): Promise<
  { pubsub: PubSub; postLimits?: RateLimitStore; close(): Promise<void> }
> {
  if (kind === "redis") {
    const client = createClient({
      url: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
    });
    client.on(
      "error",
      (error: Error) => console.error(`Redis: ${error.message}`),
    );
    await client.connect();
    return {
      pubsub: createRedisPubSub({ client }),
      // Posts counted in the same Redis: one budget whatever the server.
      postLimits: createRedisRateLimitStore({ client }),
      close: () => client.close(),
    };
  }
  if (kind === "kv") {
    const path = Deno.env.get("DENO_KV_PATH") ?? ".data/live.kv";
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
    const kv = await Deno.openKv(path);
    return {
      pubsub: createKvPubSub({ client: kv }),
      postLimits: createKvRateLimitStore({ client: kv }),
      close: () => Promise.resolve(kv.close()),
    };
  }
  if (kind !== "memory") {
    console.error(
      `Cannot start: PUBSUB must be memory, redis or kv, got ${kind}`,
    );
    Deno.exit(1);
  }
  return { pubsub: createMemoryPubSub(), close: () => Promise.resolve() };
}

const hostname = Deno.env.get("HOSTNAME") ?? "127.0.0.1";
const port = number("PORT") ?? 8002;
const { pubsub, postLimits, close } = await openPubSub(
  Deno.env.get("PUBSUB") ?? "memory",
);
let serverName = Deno.env.get("SERVER_NAME");
const app = createLiveApp({
  pubsub,
  serverName: () => serverName ?? "server",
  streams: {
    perAddress: number("STREAMS_PER_ADDRESS"),
    total: number("STREAMS_TOTAL"),
    maxLifetimeMs: number("STREAM_LIFETIME_MS"),
  },
  postsPerMinute: number("POSTS_PER_MINUTE"),
  postLimits,
});
let server: Server;
try {
  server = serve(app.fetch, {
    hostname,
    port,
    onListen(addr) {
      serverName ??= `${addr.hostname}:${addr.port}`;
      console.log(
        `listening ${addr.port}: http://${addr.hostname}:${addr.port}/`,
      );
    },
  });
} catch (error) {
  if (!(error instanceof PortInUseError)) throw error;
  console.error(portInUseMessage(port));
  Deno.exit(1);
}
// SIGTERM or Ctrl-C: serve() lets requests finish and ends the event
// streams (browsers reconnect to another server); then the store closes.
await server.finished;
await pubsub.close();
await close();
