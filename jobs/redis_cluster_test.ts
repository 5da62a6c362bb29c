// The job store suite on a real Redis Cluster (3 masters, 3 replicas;
// Valkey with REDIS_SERVER=valkey-server) through node-redis'
// createCluster(): each queue's keys share one hash tag, so every script
// runs on one master; queues spread over the masters.
import assert from "node:assert/strict";
import { createCluster } from "redis";
import { createJobQueue, createRedisJobStore } from "@fetchkit/toolkit/jobs";
import {
  clusterToolsOrSkip,
  type RedisCluster,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import { jobStoreSuite, until } from "./_test_suite.ts";

const tools = await clusterToolsOrSkip();
const cluster: RedisCluster | undefined = tools === undefined
  ? undefined
  : await startRedisCluster(tools);

function connect() {
  return createCluster({ rootNodes: cluster!.rootNodes }).on("error", () => {})
    .connect();
}

jobStoreSuite({
  name: "redis cluster job store",
  ignore: cluster === undefined,
  async open() {
    const one = await connect();
    const two = await connect();
    return {
      store: createRedisJobStore(one),
      other: createRedisJobStore(two),
      async done() {
        await one.close();
        await two.close();
      },
    };
  },
});

Deno.test({
  name:
    "redis cluster job store: queues of several names live on different masters, and each runs its jobs",
  ignore: cluster === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const client = await connect();
    try {
      const store = createRedisJobStore(client);
      const masters = new Set<number>();
      let ran = 0;
      const workers = [];
      for (let i = 0; i < 12; i++) {
        const name = `spread-${i}`;
        masters.add(await cluster!.masterOf(`jobs:{${name}}`));
        const queue = createJobQueue({ store, name, log: () => {} });
        queue.define("n", () => void ran++);
        await queue.enqueue("n", { i });
        workers.push(queue.work({ pollMs: 20 }));
      }
      await until(() => ran === 12);
      await Promise.all(workers.map((worker) => worker.stop()));
      assert.equal(masters.size, 3);
    } finally {
      await client.close();
    }
  },
});

Deno.test({
  name: "redis cluster job store: (stop the cluster)",
  ignore: cluster === undefined,
  fn: () => cluster!.stop(),
});
