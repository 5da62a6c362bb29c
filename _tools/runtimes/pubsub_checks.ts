/**
 * The pub/sub suite (`pubsub/_test_suite.ts`) on Node and Bun: Deno KV
 * through the npm package `@deno/kv` (two databases on one file), and
 * Redis through `npm:redis` against a throwaway `redis-server` started
 * here with `node:child_process` (skipped with a notice when it is not
 * installed, unless `CI` or `TOOLKIT_REQUIRE_ALL` is set).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { deserialize, serialize } from "node:v8";
import { openKv } from "@deno/kv";
import { createClient } from "redis";
import { createKvPubSub, createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import { pubSubSuite } from "../../pubsub/_test_suite.ts";
import {
  findRedisServer,
  type NodeRedis,
  startNodeRedis,
} from "./node_redis.ts";
import { test } from "./harness.ts";

const bun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

pubSubSuite({
  name: "kv pub/sub on @deno/kv",
  async open(options) {
    const dir = mkdtempSync(join(tmpdir(), "fetchkit-pubsub-kv-"));
    // Bun's node:v8 writes JavaScriptCore's format: @deno/kv asks for it.
    const open = () =>
      openKv(
        join(dir, "kv.db"),
        bun ? { encodeV8: serialize, decodeV8: deserialize } : {},
      );
    const one = await open();
    const two = await open();
    const a = createKvPubSub({ client: one, ...options });
    const b = createKvPubSub({ client: two, ...options });
    return {
      a,
      b,
      async done() {
        await a.close();
        await b.close();
        one.close();
        two.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

let redis: Promise<NodeRedis> | undefined;

const redisPath = findRedisServer();
if (redisPath === undefined) {
  if (process.env.CI || process.env.TOOLKIT_REQUIRE_ALL) {
    throw new Error("redis-server is not installed (required under CI)");
  }
  console.log(
    "skipped: the Redis pub/sub suite (redis-server is not installed)",
  );
} else {
  pubSubSuite({
    name: "redis pub/sub on npm:redis",
    async open(options) {
      const { url } = await (redis ??= startNodeRedis(redisPath));
      const one = await createClient({ url }).connect();
      const two = await createClient({ url }).connect();
      const a = createRedisPubSub({ client: one, ...options });
      const b = createRedisPubSub({ client: two, ...options });
      return {
        a,
        b,
        async done() {
          await a.close();
          await b.close();
          one.destroy();
          two.destroy();
        },
      };
    },
  });
  test("redis pub/sub on npm:redis: (stop redis-server)", async () => {
    if (redis === undefined) return;
    (await redis).stop();
  });
}
