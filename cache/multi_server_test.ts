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

/**
 * Once stale, 20 concurrent requests through both processes all get the
 * stale copy at once, and one of them, in one process, regenerates it.
 */
async function staleWhileRevalidate(servers: ServerProcess[]): Promise<void> {
  const first = await fetch(servers[0].origin + "/stale");
  assert.equal(first.headers.get("X-Cache"), "MISS");
  const original = await first.text();
  const before = (await runsOf(servers)).cache;
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const stale = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const response = await fetch(servers[i % 2].origin + "/stale");
      return {
        cache: response.headers.get("X-Cache"),
        body: await response.text(),
      };
    }),
  );
  for (const response of stale) {
    assert.equal(response.cache, "STALE");
    assert.equal(response.body, original);
  }
  // The regeneration takes 300 ms (more on a loaded machine); then both
  // processes serve the new copy.
  const bodies = new Set<string>();
  for (const server of servers) {
    for (let attempt = 0;; attempt++) {
      const fresh = await fetch(server.origin + "/stale");
      const body = await fresh.text();
      if (fresh.headers.get("X-Cache") === "HIT") {
        bodies.add(body);
        break;
      }
      assert.ok(attempt < 50, "no fresh copy within 5 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const runs = (await runsOf(servers)).cache - before;
  assert.equal(runs, 1, `regenerated ${runs} times`);
  assert.equal(bodies.size, 1);
  assert.ok(!bodies.has(original));
}

async function both(servers: ServerProcess[]): Promise<void> {
  await stampede(servers);
  await staleWhileRevalidate(servers);
}

Deno.test("cache: 20 concurrent misses across two processes on one Deno KV file run the handler once; stale copies regenerate once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cache-multi-" });
  try {
    await withServers("kv", `${dir}/kv.sqlite`, both);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "cache: 20 concurrent misses across two processes on one redis-server run the handler once; stale copies regenerate once",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      await withServers("redis", redis.url, both);
    } finally {
      await redis.stop();
    }
  },
});
