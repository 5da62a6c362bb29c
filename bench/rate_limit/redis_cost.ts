/**
 * What the Redis rate-limit script costs Redis itself, next to `INCR` and a
 * one-line script: `redis-benchmark` (Debian's, C, no JavaScript client in
 * the way) sends each command `--n` times from 50 connections, interleaved
 * over rounds; `usec_per_call` comes from `INFO commandstats` (reset before
 * each), requests per second from `redis-benchmark`. Medians over rounds.
 *
 *     deno run --allow-all bench/rate_limit/redis_cost.ts [--rounds 5] [--n 200000]
 *
 * @module
 */
import { createClient } from "redis";
import { SCRIPT } from "../../rate_limit/redis_store.ts";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import { median } from "../_stats.ts";

const option = (name: string, fallback: number) => {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Number(Deno.args[at + 1]);
};
const ROUNDS = option("--rounds", 5);
const N = option("--n", 200_000);
const path = await findRedisServer();
if (path === undefined) throw new Error("redis-server is not installed");
const redis = await startRedis(path);
const port = new URL(redis.url).port;
const client = createClient({ url: redis.url });
await client.connect();

function run(command: string, ...args: string[]): string {
  const { stdout } = new Deno.Command(command, {
    args: ["-p", port, ...args],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout);
}

try {
  const ours = await client.scriptLoad(SCRIPT);
  const trivial = await client.scriptLoad('return redis.call("GET", KEYS[1])');
  const contenders: Record<string, [string, string[]]> = {
    "INCR": ["incr", ["INCR", "bare"]],
    "EVALSHA, a script that only GETs": ["evalsha", [
      "EVALSHA",
      trivial,
      "1",
      "bare",
    ]],
    "EVALSHA, the rate-limit script": ["evalsha", [
      "EVALSHA",
      ours,
      "1",
      "rate_limit:bench",
      "1000000000",
      "60000",
    ]],
  };
  const usec: Record<string, number[]> = {};
  const rps: Record<string, number[]> = {};
  const names = Object.keys(contenders);
  for (const name of names) [usec[name], rps[name]] = [[], []];
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round) % names.length];
      const [stat, command] = contenders[name];
      run("redis-cli", "CONFIG", "RESETSTAT");
      const out = run(
        "redis-benchmark",
        "-n",
        String(N),
        "-c",
        "50",
        "-q",
        ...command,
      );
      rps[name].push(Number(/([\d.]+) requests per second/.exec(out)?.[1]));
      const info = run("redis-cli", "INFO", "commandstats");
      const line = new RegExp(`cmdstat_${stat}:.*usec_per_call=([\\d.]+)`)
        .exec(info);
      usec[name].push(Number(line?.[1]));
    }
  }
  console.log(
    `redis-server ${
      run("redis-cli", "INFO", "server").match(/redis_version:(\S+)/)?.[1]
    }, ${ROUNDS} rounds x ${N} calls, 50 connections\n`,
  );
  console.log("| command | µs per call inside Redis | requests/s |");
  console.log("|---|---:|---:|");
  for (const name of names) {
    console.log(
      `| ${name} | ${median(usec[name]).toFixed(2)} | ${
        Math.round(median(rps[name]))
      } |`,
    );
  }
} finally {
  await client.quit();
  await redis.stop();
}
