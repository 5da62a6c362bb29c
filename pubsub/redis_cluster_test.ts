// Pub/sub on a real Redis Cluster (3 masters, 3 replicas; Valkey with
// REDIS_SERVER=valkey-server) through node-redis' createCluster(): the
// suite every pub/sub store passes (every subscriber of two instances
// gets every event of a topic in order; resume by id), topics spread over
// the masters, and a new topic in another slot group joins at once.
import assert from "node:assert/strict";
import { createCluster } from "redis";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import {
  clusterToolsOrSkip,
  type RedisCluster,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import { pubSubSuite, take } from "./_test_suite.ts";

const tools = await clusterToolsOrSkip();
const cluster: RedisCluster | undefined = tools === undefined
  ? undefined
  : await startRedisCluster(tools);

function connect() {
  return createCluster({ rootNodes: cluster!.rootNodes }).on("error", () => {})
    .connect();
}

if (cluster !== undefined) {
  pubSubSuite({
    name: "redis cluster pub/sub",
    async open(options) {
      // Two cluster clients, as two servers would have.
      const one = await connect();
      const two = await connect();
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

  Deno.test({
    name:
      "redis cluster pub/sub: topics spread over the three masters; a reader follows topics of several slot groups, a new one joining at once",
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const one = await connect();
      const two = await connect();
      const reader = createRedisPubSub({ client: one, blockMs: 3000 });
      const writer = createRedisPubSub({ client: two });
      try {
        const masters = new Set<number>();
        const held = reader.subscribe<number>("held");
        await held.ready;
        for (let i = 0; i < 12; i++) {
          const topic = `spread-${i}`;
          const subscription = reader.subscribe<number>(topic);
          await subscription.ready;
          const started = performance.now();
          await writer.publish(topic, i);
          assert.equal((await take(subscription, 1, 5000))[0].data, i);
          const ms = performance.now() - started;
          assert.ok(ms < 1500, `topic ${i}: first event after ${ms} ms`);
          subscription.close();
          // The stream's key: the prefix, the topic's tag, the topic.
          for (const master of await cluster!.masters()) {
            const found = await (await one.nodeClient(
              one.masters.find((node) => node.port === master.port)!,
            )).keys(`pubsub:*${topic}`);
            if (found.length > 0) masters.add(master.port);
          }
        }
        assert.equal(masters.size, 3, "topics on every master");
        // Events of the held topic still arrive, in order.
        for (let i = 0; i < 5; i++) await writer.publish("held", i);
        assert.deepEqual(
          (await take<number>(held, 5)).map((event) => event.data),
          [0, 1, 2, 3, 4],
        );
        held.close();
      } finally {
        await reader.close();
        await writer.close();
        one.destroy();
        two.destroy();
      }
    },
  });

  // Last in this file: tests run in order of registration.
  Deno.test({
    name: "redis cluster pub/sub: (stop the cluster)",
    fn: () => cluster!.stop(),
  });
}

Deno.test({
  name: "redis cluster pub/sub: the cluster tools are there, or skipped",
  ignore: tools !== undefined,
  fn() {},
});
