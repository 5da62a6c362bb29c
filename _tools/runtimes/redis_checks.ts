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
import { storageSuite } from "../../session/_test_suite.ts";
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
  } finally {
    await client?.quit().catch(() => undefined);
    redis.stop();
  }
});
