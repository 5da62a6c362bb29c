// The Redis cache store (and so idempotency(), which keeps its keys in
// it, and the versioned store below both) on a real Redis Cluster (3
// masters, 3 replicas; Valkey with REDIS_SERVER=valkey-server) through
// node-redis' createCluster(): the versioned store's suite (compare-and-
// set), binary entries over every master, and two server processes on
// the cluster: 20 concurrent misses run the handler once, 20 concurrent
// requests with one Idempotency-Key run it once.
import assert from "node:assert/strict";
import { createCluster } from "redis";
import { createRedisCacheStore } from "@fetchkit/toolkit/cache-middleware";
import { createRedisVersionedStore } from "../store/versioned_redis.ts";
import { versionedStoreSuite } from "../store/_test_versioned_suite.ts";
import {
  clusterToolsOrSkip,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import { runsOf, withServers } from "./_test_processes.ts";

const tools = await clusterToolsOrSkip();

Deno.test({
  name:
    "Redis cache, versioned and idempotency stores on Redis Cluster (3 masters, 3 replicas)",
  ignore: tools === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const cluster = await startRedisCluster(tools!);
    const client = await createCluster({ rootNodes: cluster.rootNodes })
      .on("error", () => {}).connect();
    try {
      await t.step("the versioned store's suite", async (t) => {
        await versionedStoreSuite(
          t,
          createRedisVersionedStore({ client, prefix: "t:" }),
        );
      });

      await t.step("binary entries on every master", async () => {
        const store = createRedisCacheStore({ client });
        const masters = new Set<number>();
        for (let i = 0; i < 24; i++) {
          const bytes = crypto.getRandomValues(new Uint8Array(1000 + i));
          await store.set(`bin-${i}`, bytes, { ttlMs: 60_000 });
          assert.deepEqual(
            new Uint8Array((await store.get(`bin-${i}`))!.value),
            bytes,
          );
          masters.add(await cluster.masterOf(`cache:bin-${i}`));
        }
        assert.equal(masters.size, 3);
      });

      const urls = cluster.nodes.map(({ url }) => url).join(",");
      await t.step(
        "two processes: 20 concurrent misses build once; 20 requests with one Idempotency-Key run once",
        () =>
          withServers("redis-cluster", urls, async (servers) => {
            const pages = await Promise.all(
              Array.from({ length: 20 }, async (_, i) => {
                const response = await fetch(servers[i % 2].origin + "/slow");
                return await response.text();
              }),
            );
            assert.equal(new Set(pages).size, 1, "one answer");
            const key = crypto.randomUUID();
            const orders = await Promise.all(
              Array.from({ length: 20 }, async (_, i) => {
                const response = await fetch(
                  servers[i % 2].origin + "/orders",
                  {
                    method: "POST",
                    headers: { "Idempotency-Key": `"${key}"` },
                    body: "tea",
                  },
                );
                await response.body?.cancel();
                return response.status;
              }),
            );
            assert.deepEqual(await runsOf(servers), {
              cache: 1,
              idempotency: 1,
            });
            assert.equal(orders.filter((status) => status === 201).length, 1);
            assert.equal(orders.filter((status) => status === 409).length, 19);
          }),
      );
    } finally {
      client.destroy();
      await cluster.stop();
    }
  },
});
