// The Redis session storage on a real Redis Cluster (3 masters, 3
// replicas; Valkey with REDIS_SERVER=valkey-server), through node-redis'
// createCluster(): the suite every storage passes, sessions spread over
// the masters, and a regenerated id (old and new key in two slots) that
// keeps compare-and-set: a change to the old session in between stops it.
import assert from "node:assert/strict";
import { createCluster } from "redis";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { storageSuite } from "./_test_suite.ts";
import { userSessionSuite } from "./_user_test_suite.ts";
import { app, createGate, Jar, send } from "./_test_app.ts";
import {
  clusterToolsOrSkip,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import { redisCommand } from "../_tools/redis.ts";
import { hashSlot } from "../store/redis_client.ts";

const tools = await clusterToolsOrSkip();

Deno.test({
  name: "redis storage on Redis Cluster (3 masters, 3 replicas)",
  ignore: tools === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const cluster = await startRedisCluster(tools!);
    const connect = () =>
      createCluster({ rootNodes: cluster.rootNodes }).on("error", () => {})
        .connect();
    const client = await connect();
    const other = await connect();
    try {
      await storageSuite(t, {
        storage: (cookie) => createRedisSessionStorage({ client, cookie }),
        revocable: true,
        shared: true,
      });
      await t.step("sessions by user", async (t) => {
        await userSessionSuite(t, {
          storage: (cookie, options) =>
            createRedisSessionStorage({ client: other, cookie, ...options }),
        });
      });

      await t.step("the stores' hash slots are the cluster's", async () => {
        const keys = [
          "session:abc",
          "{app}:s:x",
          "pubsub:{s1}news",
          "été{ü}",
          "a{}b",
          ...Array.from({ length: 20 }, () => crypto.randomUUID()),
        ];
        for (const key of keys) {
          const slot = await redisCommand(cluster.nodes[0].port, [
            "CLUSTER",
            "KEYSLOT",
            key,
          ]);
          assert.equal(hashSlot(key), slot, key);
        }
      });

      const cookie = { secrets: ["s".repeat(32)], maxAge: 600 };
      await t.step("sessions spread over the three masters", async () => {
        const router = app(createRedisSessionStorage({ client, cookie }));
        const masters = new Set<number>();
        for (let i = 0; i < 30; i++) {
          const { body } = await send(router, new Jar(), "POST", "/set/n/1");
          masters.add(await cluster.masterOf(`session:${body.id}`));
        }
        assert.equal(masters.size, 3);
      });

      await t.step(
        "regenerateId across two slots: a change to the old session meanwhile is kept, the old key is deleted, no stray new key",
        async () => {
          // Two "servers": one client each.
          const gate = createGate();
          const one = app(createRedisSessionStorage({ client, cookie }), {
            gate,
          });
          const two = app(
            createRedisSessionStorage({ client: other, cookie }),
          );
          const jar = new Jar();
          const first = await send(one, jar, "POST", "/set/user/ada");
          const oldId = first.body.id;
          // The regenerate loads the session, then waits at the gate while
          // the other server changes it.
          const copy = new Jar();
          copy.cookie = jar.cookie;
          const regenerating = send(
            one,
            jar,
            "POST",
            "/regenerate/true?gate=gate",
          );
          await gate.loaded;
          await send(two, copy, "POST", "/set/role/admin");
          gate.release();
          const regenerated = await regenerating;
          assert.notEqual(regenerated.body.id, oldId);
          const read = await send(one, jar, "GET", "/all?names=user,role");
          assert.deepEqual(read.body.values, { user: "ada", role: "admin" });
          assert.equal(await client.exists(`session:${oldId}`), 0);
        },
      );

      await t.step(
        "a hash-tagged prefix keeps every key in one slot: one script per save",
        async () => {
          const router = app(
            createRedisSessionStorage({ client, cookie, prefix: "{app}:s:" }),
          );
          const jar = new Jar();
          await send(router, jar, "POST", "/set/user/ada");
          const regenerated = await send(
            router,
            jar,
            "POST",
            "/regenerate/true",
          );
          assert.equal(
            (await send(router, jar, "GET", "/get/user")).body.value,
            "ada",
          );
          assert.equal(
            await client.exists(`{app}:s:${regenerated.body.id}`),
            1,
          );
        },
      );
    } finally {
      client.destroy();
      other.destroy();
      await cluster.stop();
    }
  },
});
