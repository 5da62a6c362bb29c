// redis-server killed with SIGKILL under clients made with node-redis'
// DEFAULT options (no timeouts of our own either): node-redis queues the
// commands while it reconnects and abandons them at its own 5 s command
// timeout with a `TimeoutError` that has no name and no message. Every
// Redis-backed module must answer that with 503 + Retry-After (or, for a
// rate limiter made with failOpen, let the request pass), never a 500.
import assert from "node:assert/strict";
import { createClient } from "redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createRedisRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { createRedisCacheStore } from "@fetchkit/toolkit/cache-middleware";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";

const redisServer = await redisServerOrSkip();

/** Status, Retry-After and how long the answer took. */
async function timed(
  request: () => Promise<Response>,
): Promise<{ status: number; retryAfter: string | null; ms: number }> {
  const started = performance.now();
  const response = await request();
  await response.body?.cancel();
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    ms: Math.round(performance.now() - started),
  };
}

Deno.test({
  name:
    "redis-server SIGKILLed, node-redis and every store on their defaults: 503 + Retry-After everywhere, failOpen passes; never a 500",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const redis = await startRedis(redisServer!);
    // The defaults a user gets: only an "error" listener, which node-redis
    // requires for a client that may lose its connection.
    const client = createClient({ url: redis.url }).on("error", () => {});
    await client.connect();
    const logged: unknown[] = [];
    const consoleError = console.error;
    try {
      const store = createRedisRateLimitStore({ client });
      const router = createRouter();
      router.get(
        "/closed",
        rateLimit({ name: "closed", limit: 5, windowMs: 60_000, store }),
        () => new Response("ok"),
      );
      router.get(
        "/open",
        rateLimit({
          name: "open",
          limit: 5,
          windowMs: 60_000,
          store,
          failOpen: true,
        }),
        () => new Response("ok"),
      );
      const Sessions = createContextKey<Session>();
      router.post(
        "/session",
        session(
          Sessions,
          createRedisSessionStorage({
            client,
            cookie: { secrets: ["s".repeat(32)] },
          }),
        ),
        ({ get }) => {
          get(Sessions)!.set("user", "ada");
          return new Response("saved");
        },
      );
      const cacheStore = createRedisCacheStore({ client });
      const pubsub = createRedisPubSub({ client, onError: () => {} });
      const info = {
        remoteAddr: {
          hostname: "192.0.2.1",
          port: 1,
          transport: "tcp" as const,
        },
      };
      const get = (path: string, method = "GET") => () =>
        Promise.resolve(
          router.fetch(
            new Request(`http://localhost${path}`, { method }),
            info,
          ),
        );
      // Everything works while Redis is up.
      assert.equal((await timed(get("/closed"))).status, 200);
      assert.equal((await timed(get("/session", "POST"))).status, 200);
      await cacheStore.set("k", new Uint8Array([1]), { ttlMs: 60_000 });
      await pubsub.publish("t", 1);

      Deno.kill(redis.pid, "SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, 100));
      console.error = (...args: unknown[]) => logged.push(args);
      const outcome = <T>(promise: Promise<T>) =>
        promise.then(
          (value): { value?: T; error?: unknown } => ({ value }),
          (error: unknown) => ({ error }),
        );
      const [closed, open, saved, cached, published] = await Promise.all([
        timed(get("/closed")),
        timed(get("/open")),
        timed(get("/session", "POST")),
        outcome(cacheStore.get("k")),
        outcome(pubsub.publish("t", 2)),
      ]);
      assert.deepEqual(
        { status: closed.status, retryAfter: closed.retryAfter },
        { status: 503, retryAfter: "5" },
        `rate limit, failOpen false: ${JSON.stringify(closed)}`,
      );
      assert.equal(open.status, 200, `failOpen: ${JSON.stringify(open)}`);
      assert.deepEqual(
        { status: saved.status, retryAfter: saved.retryAfter },
        { status: 503, retryAfter: "5" },
        `session save: ${JSON.stringify(saved)}`,
      );
      const failures: [string, { error?: unknown }][] = [
        ["cache", cached],
        ["pubsub", published],
      ];
      for (const [what, result] of failures) {
        assert.ok(
          result.error instanceof StoreUnavailableError,
          `${what}: ${String(result.error ?? "no error")}`,
        );
      }
      for (const { ms } of [closed, open, saved]) {
        assert.ok(ms < 7000, `answered after ${ms} ms`);
      }
      // Failing open stays open: the next requests pass at once, without
      // waiting for the store that just failed.
      const again = await timed(get("/open"));
      assert.equal(again.status, 200);
      assert.ok(again.ms < 1000, `failOpen held a request ${again.ms} ms`);
      assert.equal((await timed(get("/closed"))).status, 503);
      await pubsub.close();
    } finally {
      console.error = consoleError;
      client.destroy();
      await redis.stop();
    }
  },
});
