// Two server processes sharing one store (a Deno KV file, a real
// redis-server): 20 concurrent requests with one Idempotency-Key, sent
// through both, run the handler exactly once. The server is the cache
// folder's (cache/_test_server.ts), which serves both middlewares.

import assert from "node:assert/strict";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import type { ServerProcess } from "../_tools/server_process.ts";
import { runsOf, withServers } from "../cache/_test_processes.ts";

const redisServer = await redisServerOrSkip();

async function once(servers: ServerProcess[]): Promise<void> {
  const key = crypto.randomUUID();
  const order = (server: ServerProcess, body = "tea") =>
    fetch(server.origin + "/orders", {
      method: "POST",
      headers: { "Idempotency-Key": `"${key}"` },
      body,
    });
  const responses = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      const response = await order(servers[i % 2]);
      return { status: response.status, body: await response.text() };
    }),
  );
  const runs = (await runsOf(servers)).idempotency;
  assert.equal(runs, 1, `the handler ran ${runs} times`);
  const created = responses.filter((r) => r.status === 201);
  assert.equal(created.length, 1);
  assert.equal(responses.filter((r) => r.status === 409).length, 19);
  // Once done, either server replays the one answer.
  for (const server of servers) {
    const replay = await order(server);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get("Idempotent-Replayed"), "true");
    assert.equal(await replay.text(), created[0].body);
  }
  const other = await order(servers[1], "coffee");
  assert.equal(other.status, 422);
  await other.body?.cancel();
  assert.equal((await runsOf(servers)).idempotency, 1);
}

Deno.test("idempotency: 20 concurrent requests with one key across two processes on one Deno KV file run the handler once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "idempotency-multi-" });
  try {
    await withServers("kv", `${dir}/kv.sqlite`, once);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "idempotency: 20 concurrent requests with one key across two processes on one redis-server run the handler once",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      await withServers("redis", redis.url, once);
    } finally {
      await redis.stop();
    }
  },
});
