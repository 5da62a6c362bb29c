import assert from "node:assert/strict";
import { createClient } from "redis";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
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
