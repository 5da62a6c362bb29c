import assert from "node:assert/strict";
import { createClient } from "redis";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { pubSubSuite, take } from "./_test_suite.ts";

const redisServer = await redisServerOrSkip();
const server = redisServer === undefined
  ? undefined
  : await startRedis(redisServer);

if (server !== undefined) {
  pubSubSuite({
    name: "redis pub/sub",
    async open(options) {
      // Two clients, as two servers would have.
      const one = await createClient({ url: server.url }).connect();
      const two = await createClient({ url: server.url }).connect();
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
}

// Last in this file: tests run in order of registration.
Deno.test({
  name: "redis pub/sub: (stop redis-server)",
  ignore: server === undefined,
  fn: () => server!.stop(),
});

Deno.test({
  name:
    "redis pub/sub: an outage is a 503 for publish; a waiting subscriber continues once Redis is back",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    let own = await startRedis(redisServer!);
    const port = Number(new URL(own.url).port);
    const client = createClient({
      url: own.url,
      socket: { reconnectStrategy: () => 50 },
      // Commands fail at once while disconnected, rather than wait in a
      // queue and run when Redis is back (after the caller got its 503).
      disableOfflineQueue: true,
    });
    client.on("error", () => {});
    await client.connect();
    const failures: unknown[] = [];
    const pubsub = createRedisPubSub({
      client,
      timeout: 300,
      blockMs: 200,
      onError: (error) => failures.push(error),
    });
    try {
      const subscription = pubsub.subscribe<string>("news");
      await subscription.ready;
      await pubsub.publish("news", "one");
      assert.equal((await take(subscription, 1))[0].data, "one");

      await own.stop();
      const error = await pubsub.publish("news", "lost").catch((e) => e);
      assert.ok(error instanceof StoreUnavailableError, String(error));
      assert.equal(error.status, 503);
      assert.equal(error.toResponse().headers.get("Retry-After"), "5");

      own = await startRedis(redisServer!, port);
      // The reader reconnects on its own; the next event arrives.
      const next = take(subscription, 1, 15_000);
      let published = false;
      for (let i = 0; i < 100 && !published; i++) {
        published = await pubsub.publish("news", "two").then(
          () => true,
          () => false,
        );
        if (!published) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(published);
      assert.equal((await next)[0].data, "two");
      assert.ok(failures.length > 0, "the reader's failures were reported");
      subscription.close();
    } finally {
      await pubsub.close();
      client.destroy();
      await own.stop().catch(() => {}); // stopped already when a step failed
    }
  },
});

Deno.test({
  name: "redis pub/sub: a stream keeps about retainCount events and expires",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const own = await startRedis(redisServer!);
    const client = await createClient({ url: own.url }).connect();
    const pubsub = createRedisPubSub({
      client,
      retainCount: 1000,
      retainMs: 60_000,
    });
    try {
      for (let i = 0; i < 3000; i++) await pubsub.publish("t", i);
      const length = await client.xLen("pubsub:t");
      assert.ok(length >= 1000 && length <= 1100, `XLEN ${length}`);
      const ttl = await client.pTTL("pubsub:t");
      assert.ok(ttl > 55_000 && ttl <= 60_000, `PTTL ${ttl}`);
    } finally {
      await pubsub.close();
      client.destroy();
      await own.stop();
    }
  },
});

Deno.test({
  name:
    "redis pub/sub: a new topic joins a blocked read at once (50 topics in a row, each first event within 1.5 s, the block being 3 s)",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const own = await startRedis(redisServer!);
    const one = await createClient({ url: own.url }).connect();
    const two = await createClient({ url: own.url }).connect();
    const reader = createRedisPubSub({ client: one, blockMs: 3000 });
    const writer = createRedisPubSub({ client: two });
    try {
      const held = reader.subscribe("held");
      await held.ready;
      for (let i = 0; i < 50; i++) {
        const subscription = reader.subscribe<number>(`new-${i}`);
        await subscription.ready;
        const started = performance.now();
        await writer.publish(`new-${i}`, i);
        assert.equal((await take(subscription, 1, 5000))[0].data, i);
        const ms = performance.now() - started;
        assert.ok(ms < 1500, `topic ${i}: first event after ${ms} ms`);
        subscription.close();
      }
      held.close();
    } finally {
      await reader.close();
      await writer.close();
      one.destroy();
      two.destroy();
      await own.stop();
    }
  },
});
