// The rate limiter when its store is slow or down: a real redis-server held
// by DEBUG SLEEP, or stopped. Closed (503 + Retry-After) by default, open
// when asked; never a 500, never a request held past the timeout.
import assert from "node:assert/strict";
import { createClient } from "redis";
import {
  createRedisRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { app } from "./_test_app.ts";

const redisServer = await redisServerOrSkip();

type Client = ReturnType<typeof connect>;

function connect(url: string) {
  // node-redis retries a lost connection; errors are expected here.
  return createClient({ url }).on("error", () => {});
}

async function withRedis(
  fn: (
    client: Client,
    other: Client,
    stop: () => Promise<void>,
  ) => Promise<void>,
) {
  const redis = await startRedis(redisServer!, undefined, [
    "--enable-debug-command",
    "local",
  ]);
  const client = connect(redis.url);
  const other = connect(redis.url);
  await client.connect();
  await other.connect();
  let stopped = false;
  try {
    await fn(client, other, async () => {
      stopped = true;
      await redis.stop();
    });
  } finally {
    await client.disconnect().catch(() => {});
    await other.disconnect().catch(() => {});
    if (!stopped) await redis.stop();
  }
}

Deno.test({
  name:
    "Redis store: DEBUG SLEEP holds Redis; a hit fails at the timeout with a 503 error, not after the sleep",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await withRedis(async (client, other) => {
      const store = createRedisRateLimitStore({ client, timeout: 300 });
      const policy = { limit: 5, windowMs: 60_000 };
      assert.equal((await store.hit("k", policy)).allowed, true);
      const sleeping = other.sendCommand(["DEBUG", "SLEEP", "3"]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      await assert.rejects(
        Promise.resolve(store.hit("k", policy)),
        (error: unknown) =>
          error instanceof StoreUnavailableError &&
          error.status === 503 &&
          error.message === "Redis did not answer within 300 ms (rate limit)",
      );
      const waited = performance.now() - started;
      assert.ok(waited < 2000, `answered after ${waited} ms, not 3 s`);

      // Through the middleware: 503 with Retry-After, closed by default.
      const closed = app(rateLimit({
        name: "closed",
        limit: 5,
        windowMs: 60_000,
        store,
      }));
      const refused = await closed();
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("retry-after"), "5");
      assert.equal(await refused.text(), "Service Unavailable");

      // failOpen: the request passes, uncounted, without headers; logged once.
      const errors: unknown[] = [];
      const error = console.error;
      console.error = (...args: unknown[]) => errors.push(args);
      try {
        const open = app(rateLimit({
          name: "open",
          limit: 5,
          windowMs: 60_000,
          store,
          failOpen: true,
        }));
        for (let i = 0; i < 2; i++) {
          const passed = await open();
          assert.equal(passed.status, 200);
          assert.equal(passed.headers.get("ratelimit"), null);
        }
        assert.equal(errors.length, 1);
      } finally {
        console.error = error;
      }
      await sleeping;
      // Redis is back: counting goes on. The hit that timed out was
      // still queued and ran after the sleep: it counts (a timeout errs
      // toward counting, never toward a free request).
      assert.equal((await store.hit("k", policy)).remaining, 2);
    });
  },
});

Deno.test({
  name: "Redis store: Redis stopped: 503 with Retry-After, never a 500",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await withRedis(async (client, _other, stop) => {
      const store = createRedisRateLimitStore({ client, timeout: 500 });
      const request = app(rateLimit({ limit: 5, windowMs: 60_000, store }));
      assert.equal((await request()).status, 200);
      await stop();
      for (let i = 0; i < 3; i++) {
        const response = await request();
        assert.equal(response.status, 503, `request ${i + 1}`);
        assert.equal(response.headers.get("retry-after"), "5");
        await response.body?.cancel();
      }
    });
  },
});
