// The versioned store on a real Deno KV file and a real redis-server.

import { createClient } from "redis";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { createKvVersionedStore } from "./versioned_kv.ts";
import { createRedisVersionedStore } from "./versioned_redis.ts";
import { versionedStoreSuite } from "./_test_versioned_suite.ts";

const redisServer = await redisServerOrSkip();

Deno.test("Deno KV versioned store", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "versioned-kv-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    await versionedStoreSuite(
      t,
      createKvVersionedStore({ client: kv, prefix: "t" }),
    );
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "Redis versioned store",
  ignore: redisServer === undefined,
  async fn(t) {
    const server = await startRedis(redisServer!);
    const client = await createClient({ url: server.url }).connect();
    try {
      await versionedStoreSuite(
        t,
        createRedisVersionedStore({ client, prefix: "t:" }),
      );
    } finally {
      await client.quit();
      await server.stop();
    }
  },
});
