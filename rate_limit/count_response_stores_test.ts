// countResponse on Deno KV (a real file) and Redis (a real redis-server).
import assert from "node:assert/strict";
import { createClient } from "redis";
import {
  createKvRateLimitStore,
  createRedisRateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { countResponseSuite } from "./_count_response_suite.ts";

const redisServer = await redisServerOrSkip();

for (const algorithm of ["gcra", "lockout"] as const) {
  countResponseSuite("Deno KV file", async () => {
    const dir = await Deno.makeTempDir({ prefix: "rate-limit-kv-" });
    const kv = await Deno.openKv(`${dir}/kv.sqlite`);
    return {
      store: createKvRateLimitStore({ client: kv }),
      async close() {
        kv.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  }, algorithm);

  countResponseSuite(
    "Redis",
    async () => {
      const redis = await startRedis(redisServer!);
      const client = createClient({ url: redis.url });
      await client.connect();
      return {
        store: createRedisRateLimitStore({ client }),
        async close() {
          await client.quit();
          await redis.stop();
        },
      };
    },
    algorithm,
    { ignore: redisServer === undefined },
  );
}

// Two handles on one KV file (as two servers): give-backs through one race
// hits through the other, so compare-and-set conflicts really happen.
for (const algorithm of ["gcra", "lockout"] as const) {
  Deno.test(`countResponse, two KV handles on one file, ${algorithm}: concurrent hits and give-backs through both are each applied once`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "rate-limit-kv-" });
    const one = await Deno.openKv(`${dir}/kv.sqlite`);
    const two = await Deno.openKv(`${dir}/kv.sqlite`);
    try {
      const a = createKvRateLimitStore({ client: one });
      const b = createKvRateLimitStore({ client: two });
      const policy = { limit: 40, windowMs: 3_600_000, algorithm };
      const stores = [a, b];
      // 30 hits, then 20 give-backs racing 10 more hits, across both.
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => stores[i % 2].hit("k", policy)),
      );
      const raced = await Promise.all([
        ...Array.from(
          { length: 20 },
          (_, i) =>
            Promise.resolve(stores[i % 2].giveBack!("k", policy)).then(() =>
              true
            ),
        ),
        ...Array.from(
          { length: 10 },
          (_, i) =>
            Promise.resolve(stores[(i + 1) % 2].hit("k", policy)).then((r) =>
              r.allowed
            ),
        ),
      ]);
      assert.ok(raced.every(Boolean), "40 counted at most: every hit passes");
      // 30 - 20 + 10 = 20 counted: exactly 20 more pass.
      const rest = await Promise.all(
        Array.from({ length: 30 }, (_, i) => stores[i % 2].hit("k", policy)),
      );
      assert.equal(rest.filter((r) => r.allowed).length, 20);
    } finally {
      one.close();
      two.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
