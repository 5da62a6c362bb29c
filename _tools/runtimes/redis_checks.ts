/**
 * The Redis session storage on Node and Bun with `npm:redis`: the storage
 * suite every session storage passes, against a throwaway `redis-server`
 * on a free loopback port, started here with `node:child_process`. Missing
 * `redis-server` fails under `CI` or `TOOLKIT_REQUIRE_ALL`, else the test
 * passes with a notice.
 *
 * @module
 */
import process from "node:process";
import { createClient } from "redis";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import {
  createRedisRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { storageSuite } from "../../session/_test_suite.ts";
import { userSessionSuite } from "../../session/_user_test_suite.ts";
import assert from "node:assert/strict";
import { test, type TestContext } from "./harness.ts";
import { findRedisServer, startNodeRedis } from "./node_redis.ts";

test("redis storage on npm:redis (throwaway redis-server)", async (t: TestContext) => {
  const path = findRedisServer();
  if (path === undefined) {
    if (process.env.CI || process.env.TOOLKIT_REQUIRE_ALL) {
      throw new Error("redis-server is not installed (required under CI)");
    }
    console.log("skipped: redis-server is not installed");
    return;
  }
  const redis = await startNodeRedis(path);
  const connect = () =>
    createClient({
      url: redis.url,
      socket: { reconnectStrategy: false },
    }).connect();
  let client: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    for (let attempt = 0;; attempt++) {
      try {
        client = await connect();
        break;
      } catch (error) {
        if (attempt === 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const connected = client!;
    await storageSuite(t as unknown as Deno.TestContext, {
      storage: (cookie) =>
        createRedisSessionStorage({ client: connected, cookie }),
      revocable: true,
      shared: true,
    });
    await userSessionSuite(t as unknown as Deno.TestContext, {
      storage: (cookie, options) =>
        createRedisSessionStorage({ client: connected, cookie, ...options }),
    });
  } finally {
    await client?.quit().catch(() => undefined);
    redis.stop();
  }
});

test("redis-server SIGKILLed, node-redis and the stores on their defaults: 503 + Retry-After, failOpen passes, never a 500", async () => {
  const path = findRedisServer();
  if (path === undefined) {
    if (process.env.CI || process.env.TOOLKIT_REQUIRE_ALL) {
      throw new Error("redis-server is not installed (required under CI)");
    }
    console.log("skipped: redis-server is not installed");
    return;
  }
  const redis = await startNodeRedis(path);
  // The defaults: only the "error" listener node-redis requires.
  const client = createClient({ url: redis.url }).on("error", () => {});
  await client.connect();
  try {
    const store = createRedisRateLimitStore({ client });
    const Sessions = createContextKey<Session>();
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
    const info = {
      remoteAddr: { hostname: "192.0.2.1", port: 1, transport: "tcp" as const },
    };
    const send = async (path: string, method = "GET") => {
      const response = await router.fetch(
        new Request(`http://localhost${path}`, { method }),
        info,
      );
      await response.body?.cancel();
      return [response.status, response.headers.get("retry-after")];
    };
    assert.deepEqual(await send("/closed"), [200, null]);
    redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const error = console.error;
    console.error = () => {};
    try {
      const [closed, open, saved] = await Promise.all([
        send("/closed"),
        send("/open"),
        send("/session", "POST"),
      ]);
      assert.deepEqual(closed, [503, "5"]);
      assert.deepEqual(open, [200, null]);
      assert.deepEqual(saved, [503, "5"]);
    } finally {
      console.error = error;
    }
  } finally {
    client.destroy();
    redis.stop();
  }
});
