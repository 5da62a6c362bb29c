// Two server processes on one store share one budget exactly: 30
// concurrent requests across both with limit 10 let 10 through.
import assert from "node:assert/strict";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import {
  type ServerProcess,
  startServerProcess,
} from "../_tools/server_process.ts";

const serverScript = new URL("./_test_server.ts", import.meta.url).pathname;

function startServer(
  kind: string,
  target: string,
  algorithm: string,
): Promise<ServerProcess> {
  return startServerProcess(serverScript, [kind, target, algorithm]);
}

async function thirtyAcrossTwo(
  kind: string,
  target: string,
  algorithm = "gcra",
): Promise<void> {
  const a = await startServer(kind, target, algorithm);
  const b = await startServer(kind, target, algorithm);
  try {
    const responses = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const response = await fetch((i % 2 === 0 ? a : b).origin + "/");
        await response.body?.cancel();
        return response;
      }),
    );
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 200).length, 10);
    assert.equal(statuses.filter((status) => status === 429).length, 20);
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) =>
        Number(/;r=(\d+)/.exec(response.headers.get("RateLimit")!)![1])
      )
      .sort((x, y) => x - y);
    // Each pass saw its own place in the budget.
    assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  } finally {
    await a.stop();
    await b.stop();
  }
}

Deno.test({
  name: "rate limit: two servers on one KV file share the budget exactly",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "rate-limit-kv-" });
    try {
      await thirtyAcrossTwo("kv", `${dir}/limits.sqlite`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "rate limit: a lockout on one KV file is shared exactly by two servers",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "rate-limit-kv-" });
    try {
      await thirtyAcrossTwo("kv", `${dir}/limits.sqlite`, "lockout");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const redisServer = await redisServerOrSkip();

Deno.test({
  name: "rate limit: two servers on one Redis share the budget exactly",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      await thirtyAcrossTwo("redis", redis.url);
    } finally {
      await redis.stop();
    }
  },
});

Deno.test({
  name: "rate limit: a lockout on one Redis is shared exactly by two servers",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      await thirtyAcrossTwo("redis", redis.url, "lockout");
    } finally {
      await redis.stop();
    }
  },
});
