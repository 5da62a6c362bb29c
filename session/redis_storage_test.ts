import assert from "node:assert/strict";
import { createClient } from "redis";
import {
  createRedisSessionStorage,
  type RedisSetOptions,
} from "@fetchkit/toolkit/session-storage-redis";
import { storageSuite } from "./_test_suite.ts";
import { userSessionSuite } from "./_user_test_suite.ts";
import { app, Jar, send } from "./_test_app.ts";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";

const redisServer = await redisServerOrSkip();

Deno.test({
  name: "redis storage",
  ignore: redisServer === undefined,
  async fn(t) {
    const server = await startRedis(redisServer!);
    const client = await createClient({ url: server.url }).connect();
    try {
      await storageSuite(t, {
        storage: (cookie) => createRedisSessionStorage({ client, cookie }),
        revocable: true,
        shared: true,
      });
      await t.step("sessions by user", async (t) => {
        await userSessionSuite(t, {
          storage: (cookie, options) =>
            createRedisSessionStorage({ client, cookie, ...options }),
        });
      });

      await t.step("keys carry a TTL from maxAge", async () => {
        const storage = createRedisSessionStorage({
          client,
          cookie: { secrets: ["s".repeat(32)], maxAge: 600 },
          prefix: "app:",
        });
        const { body } = await send(
          app(storage),
          new Jar(),
          "POST",
          "/set/user/ada",
        );
        const ttl = await client.pTTL(`app:${body.id}`);
        assert.ok(ttl > 590_000 && ttl <= 600_000, `TTL ${ttl}`);
        const record = JSON.parse((await client.get(`app:${body.id}`))!);
        assert.deepEqual(record.v, { user: "ada" });
      });

      await t.step("a client without eval still round-trips", async () => {
        const plain = {
          get: (key: string) => client.get(key),
          set: (key: string, value: string, options: RedisSetOptions) =>
            client.set(key, value, options),
          del: (key: string) => client.del(key),
        };
        const router = app(
          createRedisSessionStorage({
            client: plain,
            cookie: { secrets: ["s".repeat(32)] },
          }),
        );
        const jar = new Jar();
        await send(router, jar, "POST", "/set/user/ada");
        await send(router, jar, "POST", "/set/role/admin");
        const read = await send(router, jar, "GET", "/all?names=user,role");
        assert.deepEqual(read.body.values, { user: "ada", role: "admin" });
        await send(router, jar, "POST", "/regenerate/true");
        assert.equal(
          (await send(router, jar, "GET", "/get/user")).body.value,
          "ada",
        );
      });
    } finally {
      await client.quit();
      await server.stop();
    }
  },
});

Deno.test("redis storage: needs a client with get, set and del", () => {
  assert.throws(
    () =>
      createRedisSessionStorage({
        // @ts-expect-error: checking the run-time guard
        client: {},
        cookie: { secrets: ["s".repeat(32)] },
      }),
    TypeError,
  );
});
