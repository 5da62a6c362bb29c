// Two server processes sharing one cache store (a Deno KV file, a real
// redis-server): 20 concurrent misses of one entry run the handler once
// across both.

import assert from "node:assert/strict";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import type { ServerProcess } from "../_tools/server_process.ts";
import { runsOf, withServers } from "./_test_processes.ts";

const redisServer = await redisServerOrSkip();
async function stampede(servers: ServerProcess[]): Promise<void> {
  const responses = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const response = await fetch(servers[i % 2].origin + "/slow");
      return {
        status: response.status,
        cache: response.headers.get("X-Cache"),
        body: await response.text(),
      };
    }),
  );
  const runs = (await runsOf(servers)).cache;
  assert.equal(runs, 1, `the handler ran ${runs} times`);
  assert.ok(responses.every((r) => r.status === 200));
  assert.equal(new Set(responses.map((r) => r.body)).size, 1, "one answer");
  assert.equal(responses.filter((r) => r.cache === "MISS").length, 1);
  const later = await fetch(servers[1].origin + "/slow");
  assert.equal(later.headers.get("X-Cache"), "HIT");
  assert.equal(await later.text(), responses[0].body);
}

Deno.test("cache: 20 concurrent misses across two processes on one Deno KV file run the handler once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cache-multi-" });
  try {
    await withServers("kv", `${dir}/kv.sqlite`, stampede);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "cache: 20 concurrent misses across two processes on one redis-server run the handler once",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      await withServers("redis", redis.url, stampede);
    } finally {
      await redis.stop();
    }
  },
});
