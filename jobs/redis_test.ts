// The job store suite on one Redis node (Valkey with
// REDIS_SERVER=valkey-server), two clients as two processes would have.
// Portable: the server is started with node:child_process, so this file
// also runs on Node and Bun.
import process from "node:process";
import { createClient } from "redis";
import { createRedisJobStore } from "@fetchkit/toolkit/jobs";
import {
  findRedisServer,
  type NodeRedis,
  startNodeRedis,
} from "../_tools/runtimes/node_redis.ts";
import { jobStoreSuite } from "./_test_suite.ts";

const path = findRedisServer();
if (path === undefined) {
  if (process.env.CI || process.env.TOOLKIT_REQUIRE_ALL) {
    throw new Error("redis-server is not installed (CI needs it)");
  }
  console.log("jobs/redis_test.ts: redis-server not installed; skipped");
}
let server: NodeRedis | undefined;

jobStoreSuite({
  name: "redis job store",
  ignore: path === undefined,
  async open() {
    server ??= await startNodeRedis(path!);
    const one = await createClient({ url: server.url }).connect();
    const two = await createClient({ url: server.url }).connect();
    return {
      store: createRedisJobStore(one),
      other: createRedisJobStore(two),
      done() {
        one.destroy();
        two.destroy();
        return Promise.resolve();
      },
    };
  },
});

// Last: tests run in order of registration.
Deno.test({
  name: "redis job store: (stop redis-server)",
  ignore: path === undefined,
  fn: () => server?.stop(),
});
