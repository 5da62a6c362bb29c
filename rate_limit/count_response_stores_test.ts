// countResponse on Deno KV (a real file) and Redis (a real redis-server).
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
