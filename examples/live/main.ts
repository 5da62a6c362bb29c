/**
 * Serves the live board: `deno run --allow-net --allow-env
 * examples/live/main.ts`, then open http://127.0.0.1:8002.
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
import { createLiveApp } from "./app.ts";
import { serveApp } from "../auth/serve.ts";

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

async function openPubSub(kind: string): Promise<PubSub> {
  if (kind === "redis") {
    const client = createClient({
      url: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
    });
    client.on(
      "error",
      (error: Error) => console.error(`Redis: ${error.message}`),
    );
    await client.connect();
    return createRedisPubSub({ client });
  }
  if (kind === "kv") {
    const path = Deno.env.get("DENO_KV_PATH") ?? ".data/live.kv";
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
    const kv = await Deno.openKv(path);
    return createKvPubSub({ client: kv });
  }
  if (kind !== "memory") {
    console.error(
      `Cannot start: PUBSUB must be memory, redis or kv, got ${kind}`,
    );
    Deno.exit(1);
  }
  return createMemoryPubSub();
}

const hostname = Deno.env.get("HOSTNAME") ?? "127.0.0.1";
const port = number("PORT") ?? 8002;
const pubsub = await openPubSub(Deno.env.get("PUBSUB") ?? "memory");
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
});
serveApp(app.fetch, {
  hostname,
  port,
  onListen(addr, restarted) {
    serverName ??= `${addr.hostname}:${addr.port}`;
    if (!restarted) {
      console.log(
        `listening ${addr.port}: http://${addr.hostname}:${addr.port}/`,
      );
    }
  },
});
