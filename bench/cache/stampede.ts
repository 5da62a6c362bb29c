/**
 * The stampede test as a measurement: two server processes share one
 * store (a Deno KV file, then a real redis-server); each round, `--n`
 * concurrent requests for one uncached entry (a handler taking 300 ms) are
 * split across both. Prints how often the handler ran and the latency the
 * clients saw, per round.
 *
 *     deno run --allow-all bench/cache/stampede.ts [--rounds 3] [--n 100]
 *
 * @module
 */
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import { runsOf, withServers } from "../../cache/_test_processes.ts";
import type { ServerProcess } from "../../_tools/server_process.ts";
import { median } from "../_stats.ts";
import { option } from "./_rounds.ts";

const ROUNDS = option("--rounds", 3);
const N = option("--n", 100);

async function rounds(servers: ServerProcess[]): Promise<string[]> {
  const lines: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = (await runsOf(servers)).cache;
    // A fresh entry each round: the query is part of the key.
    const path = `/slow?round=${round}-${crypto.randomUUID()}`;
    const times = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const start = performance.now();
        const response = await fetch(servers[i % 2].origin + path);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${response.status}`);
        return performance.now() - start;
      }),
    );
    const runs = (await runsOf(servers)).cache - before;
    lines.push(
      `| ${round + 1} | ${N} | ${runs} | ${median(times).toFixed(0)} | ${
        Math.max(...times).toFixed(0)
      } |`,
    );
  }
  return lines;
}

const header = [
  "| round | concurrent requests | handler runs | median ms | max ms |",
  "| ---: | ---: | ---: | ---: | ---: |",
];
const dir = await Deno.makeTempDir({ prefix: "cache-stampede-" });
try {
  let lines: string[] = [];
  await withServers("kv", `${dir}/kv.sqlite`, async (servers) => {
    lines = await rounds(servers);
  });
  console.log("Deno KV, one file, two processes\n");
  console.log([...header, ...lines].join("\n"));
} finally {
  await Deno.remove(dir, { recursive: true });
}
const redisPath = await findRedisServer();
if (redisPath !== undefined) {
  const redis = await startRedis(redisPath);
  try {
    let lines: string[] = [];
    await withServers("redis", redis.url, async (servers) => {
      lines = await rounds(servers);
    });
    console.log("\nRedis, two processes\n");
    console.log([...header, ...lines].join("\n"));
  } finally {
    await redis.stop();
  }
}
