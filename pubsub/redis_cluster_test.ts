// Pub/sub on a real Redis Cluster (3 masters, 3 replicas; Valkey with
// REDIS_SERVER=valkey-server) through node-redis' createCluster(): the
// suite every pub/sub store passes (every subscriber of two instances
// gets every event of a topic in order; resume by id), topics spread over
// the masters, and a new topic in another slot group joins at once.
import assert from "node:assert/strict";
import { createCluster } from "redis";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
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

  Deno.test({
    name:
      "redis cluster pub/sub: a master SIGKILLed while events flow: publishes in the gap fail with 503, subscribers keep their order without duplicates and get every later event, no restart",
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const one = await connect();
      const two = await connect();
      const reader = createRedisPubSub({
        client: one,
        blockMs: 2000,
        onError: () => {},
      });
      const writer = createRedisPubSub({ client: two });
      const topics = Array.from({ length: 6 }, (_, i) => `fail-${i}`);
      const received = new Map<string, number[]>(
        topics.map((topic) => [topic, []]),
      );
      const acknowledged = new Map<string, number[]>(
        topics.map((topic) => [topic, []]),
      );
      const subscriptions = topics.map((topic) =>
        reader.subscribe<number>(topic)
      );
      await Promise.all(subscriptions.map((s) => s.ready));
      const reading = subscriptions.map(async (subscription) => {
        for await (const { data } of subscription) {
          received.get(subscription.topic)!.push(data);
        }
      });
      let stop = false;
      let failed = 0;
      const publishing = topics.map(async (topic) => {
        for (let n = 0; !stop; n++) {
          try {
            await writer.publish(topic, n);
            acknowledged.get(topic)!.push(n);
          } catch (error) {
            assert.ok(error instanceof StoreUnavailableError, String(error));
            failed++;
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        // A master that holds some of the topics' streams.
        cluster!.kill((await cluster!.masters())[0]);
        await cluster!.waitUntilOk(30_000);
        // Go on until every topic has had acknowledged events after the
        // failover for a while.
        const settled = performance.now();
        while (performance.now() - settled < 8000) {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        stop = true;
        await Promise.all(publishing);
        // The last acknowledged events arrive.
        const deadline = performance.now() + 10_000;
        while (
          performance.now() < deadline &&
          topics.some((topic) =>
            received.get(topic)!.at(-1) !== acknowledged.get(topic)!.at(-1)
          )
        ) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        let lost = 0;
        for (const topic of topics) {
          const got = received.get(topic)!;
          const acked = acknowledged.get(topic)!;
          // In order, no duplicates.
          for (let i = 1; i < got.length; i++) {
            assert.ok(
              got[i] > got[i - 1],
              `${topic}: ${got[i - 1]}, ${got[i]}`,
            );
          }
          assert.equal(got.at(-1), acked.at(-1), `${topic}: the last event`);
          const seen = new Set(got);
          lost += acked.filter((n) => !seen.has(n)).length;
        }
        console.log(
          `pub/sub failover: ${failed} publishes refused (503), ${lost} acknowledged events lost, of ${
            [...acknowledged.values()].reduce((sum, a) => sum + a.length, 0)
          }`,
        );
      } finally {
        stop = true;
        await Promise.all(publishing);
        subscriptions.forEach((s) => s.close());
        await Promise.allSettled(reading);
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
