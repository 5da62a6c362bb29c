/**
 * Cost per request of the KV and Redis rate-limit stores against a bare
 * round trip of the same database, interleaved: each round runs every
 * contender for `--n` sequential operations (in a rotated order); figures
 * are medians over rounds of wall time per operation, and ratios are
 * medians of the per-round ratios.
 *
 *     deno run --unstable-kv --allow-all bench/rate_limit/store_report.ts [--rounds 9] [--n 1000]
 *
 * Deno KV is a local SQLite file (as `deno task dev` uses); Redis is a
 * throwaway `redis-server` on loopback, through `npm:redis`.
 *
 * @module
 */
import { createClient } from "redis";
import {
  createKvRateLimitStore,
  createRedisRateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import { median } from "../_stats.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const ROUNDS = option("--rounds", 9);
const N = option("--n", 1000);
const policy = { limit: 1_000_000_000, windowMs: 60_000 };

type Op = (i: number) => unknown;

async function run(
  title: string,
  contenders: Record<string, Op>,
  pairs: [string, string][],
): Promise<void> {
  const times: Record<string, number[]> = {};
  for (const [name, op] of Object.entries(contenders)) {
    times[name] = [];
    for (let i = 0; i < 100; i++) await op(i); // warm-up
  }
  const names = Object.keys(contenders);
  let offset = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round) % names.length];
      const op = contenders[name];
      const start = performance.now();
      for (let i = 0; i < N; i++) await op(offset + i);
      times[name].push((performance.now() - start) * 1000 / N);
    }
    offset += N;
  }
  console.log(`| ${title} | µs/operation (median) | quartiles |`);
  console.log("|---|---:|---:|");
  for (const name of names) {
    const sorted = [...times[name]].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))];
    console.log(
      `| ${name} | ${median(times[name]).toFixed(1)} | ${q(0.25).toFixed(1)}-${
        q(0.75).toFixed(1)
      } |`,
    );
  }
  for (const [a, b] of pairs) {
    const ratios = times[a].map((value, i) => value / times[b][i]);
    console.log(
      `| ratio ${a} / ${b} | ${median(ratios).toFixed(2)}x | |`,
    );
  }
  console.log();
}

console.log(
  `${Deno.version.deno}, ${ROUNDS} rounds x ${N} sequential operations\n`,
);

// Deno KV on a local file.
const dir = await Deno.makeTempDir({ prefix: "rate-limit-bench-" });
const kv = await Deno.openKv(`${dir}/kv.sqlite`);
const kvStore = createKvRateLimitStore({ client: kv });
let stamp: string | null = null;
await run("Deno KV (local file)", {
  "bare kv.atomic().set().commit(), one key": async (i) => {
    await kv.atomic().set(["bare", "k"], i).commit();
  },
  "bare kv.atomic().check().set().commit(), one key": async (i) => {
    const result = await kv.atomic()
      .check({ key: ["cas", "k"], versionstamp: stamp })
      .set(["cas", "k"], i).commit();
    if (result.ok) stamp = result.versionstamp;
  },
  "store.hit(), one key": (_i) => kvStore.hit("client", policy),
  "bare kv.atomic().set().commit(), a new key each time": async (i) => {
    await kv.atomic().set(["bare-new", i], i).commit();
  },
  "store.hit(), a new key each time": (i) => kvStore.hit(`new-${i}`, policy),
}, [
  ["store.hit(), one key", "bare kv.atomic().set().commit(), one key"],
  ["store.hit(), one key", "bare kv.atomic().check().set().commit(), one key"],
  [
    "store.hit(), a new key each time",
    "bare kv.atomic().set().commit(), a new key each time",
  ],
]);
kv.close();
await Deno.remove(dir, { recursive: true });

// Redis.
const redisPath = await findRedisServer();
if (redisPath === undefined) {
  console.log("redis-server is not installed: Redis figures skipped");
} else {
  const redis = await startRedis(redisPath);
  const client = createClient({ url: redis.url });
  await client.connect();
  const redisStore = createRedisRateLimitStore({ client });
  // The floor of any script: EVALSHA of one that only reads the key.
  const trivial = await client.scriptLoad('return redis.call("GET", KEYS[1])');
  try {
    await run("Redis (loopback, npm:redis)", {
      "bare INCR": () => client.incr("bare"),
      "bare SET PX": (i) =>
        client.set("bare-set", String(i), {
          expiration: { type: "PX", value: 60_000 },
        }),
      "bare EVALSHA of a script that only GETs": () =>
        client.evalSha(trivial, { keys: ["bare"], arguments: [] }),
      "store.hit() (EVALSHA)": () => redisStore.hit("client", policy),
    }, [
      [
        "store.hit() (EVALSHA)",
        "bare EVALSHA of a script that only GETs",
      ],
      ["store.hit() (EVALSHA)", "bare INCR"],
      ["store.hit() (EVALSHA)", "bare SET PX"],
    ]);
  } finally {
    await client.quit();
    await redis.stop();
  }
}
