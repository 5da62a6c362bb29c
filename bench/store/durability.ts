/**
 * What `durability: "replica"` costs on a 3-master, 3-replica Redis
 * Cluster, against `durability: "none"` on the same cluster and client:
 * the latency of one sign-out (a session destroy), one lockout count that
 * reaches its limit (limit 1, a fresh key each) and one idempotency claim
 * (a versioned compare-and-set of a new key), one operation at a time.
 * And what the index of sessions by user costs on a session save, on
 * Deno KV (`:memory:`), one Redis node and the cluster: a save that
 * changes a value of a session bound to a user (`setUser`) against the
 * same save of an unbound session, and a new bound session (a sign-in)
 * against a new unbound one (20 users per run of 200: 10 sessions each). Rounds alternate the contenders (A B A B);
 * figures are medians over rounds of each round's p50 and p99.
 *
 *     deno run --unstable-kv --allow-all bench/store/durability.ts [--rounds 6] [--ops 200]
 *
 * @module
 */
import { createClient, createCluster } from "redis";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import type { UserSessionStorage } from "@fetchkit/toolkit/session-middleware";
import { createRedisRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { createRedisCacheStore } from "@fetchkit/toolkit/cache-middleware";
import { findRedisServer, startRedis } from "../../_tools/redis.ts";
import {
  findClusterTools,
  startRedisCluster,
} from "../../_tools/redis_cluster.ts";
import { median, quantile } from "../_stats.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const ROUNDS = option("--rounds", 6);
const OPS = option("--ops", 200);

const server = await findRedisServer();
const tools = await findClusterTools();
if (server === undefined || tools === undefined) {
  console.log("redis-server or redis-cli is not installed");
  Deno.exit(1);
}

const cookie = {
  secrets: ["bench-secret-0123456789abcdefghijkl"],
  maxAge: 3600,
};
const encoder = new TextEncoder();

/** Milliseconds of each of `OPS` calls of `measured`, after `prepare`. */
async function latencies<T>(
  prepare: (i: number) => Promise<T>,
  measured: (value: T, i: number) => Promise<unknown>,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < OPS; i++) {
    const value = await prepare(i);
    const started = performance.now();
    await measured(value, i);
    times.push(performance.now() - started);
  }
  return times;
}

type Workload = () => Promise<number[]>;

/** Rounds of `contenders`, alternated; medians of each round's p50 and p99. */
async function compare(
  title: string,
  contenders: Record<string, Workload>,
): Promise<void> {
  const names = Object.keys(contenders);
  const p50 = new Map<string, number[]>(names.map((name) => [name, []]));
  const p99 = new Map<string, number[]>(names.map((name) => [name, []]));
  for (const name of names) await contenders[name](); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : names.toReversed();
    for (const name of order) {
      const times = await contenders[name]();
      p50.get(name)!.push(quantile(times, 0.5));
      p99.get(name)!.push(quantile(times, 0.99));
    }
  }
  for (const name of names) {
    console.log(
      `| ${title} | ${name} | ${median(p50.get(name)!).toFixed(3)} | ${
        median(p99.get(name)!).toFixed(3)
      } |`,
    );
  }
}

let sequence = 0;

function signOut(storage: UserSessionStorage): Workload {
  return () =>
    latencies(async () => {
      const fresh = await storage.read(null);
      fresh.set("user", "ada");
      const setCookie = await storage.save(fresh);
      const loaded = await storage.read(setCookie!.split(";")[0]);
      loaded.destroy();
      return loaded;
    }, (loaded) => storage.save(loaded));
}

function lockoutCount(
  store: ReturnType<typeof createRedisRateLimitStore>,
): Workload {
  const policy = { limit: 1, windowMs: 60_000, algorithm: "lockout" as const };
  return () =>
    latencies(
      () => Promise.resolve(`k${++sequence}`),
      async (key) => await store.hit(key, policy),
    );
}

function claim(store: ReturnType<typeof createRedisCacheStore>): Workload {
  const value = encoder.encode('{"st":"running"}');
  return () =>
    latencies(
      () => Promise.resolve(`claim${++sequence}`),
      (key) =>
        store.set(key, value, {
          ttlMs: 60_000,
          ifVersion: null,
          durable: true,
        }),
    );
}

/** A save that changes a value, of a session bound to a user or not. */
function valueSave(storage: UserSessionStorage, bound: boolean): Workload {
  return () => {
    const run = ++sequence;
    return latencies(async (i) => {
      const fresh = await storage.read(null);
      if (bound) fresh.setUser(`user${run}-${i % 20}`, { userAgent: "bench" });
      fresh.set("n", 0);
      const setCookie = await storage.save(fresh);
      const loaded = await storage.read(setCookie!.split(";")[0]);
      loaded.set("n", 1);
      return loaded;
    }, (loaded) => storage.save(loaded));
  };
}

/** A new session saved, bound to a user (a sign-in) or not. */
function newSave(storage: UserSessionStorage, bound: boolean): Workload {
  return () => {
    const run = ++sequence;
    return latencies(async (i) => {
      const fresh = await storage.read(null);
      if (bound) fresh.setUser(`user${run}-${i % 20}`, { userAgent: "bench" });
      fresh.set("n", 0);
      return fresh;
    }, (fresh) => storage.save(fresh));
  };
}

const cluster = await startRedisCluster(tools);
const single = await startRedis(server);
const clusterClient = await createCluster({ rootNodes: cluster.rootNodes })
  .on("error", () => {}).connect();
const singleClient = await createClient({ url: single.url }).connect();
const kv = await Deno.openKv(":memory:");
try {
  console.log(`${OPS} operations one at a time, ${ROUNDS} rounds (ms)`);
  console.log("| operation | durability | p50 ms | p99 ms |");
  console.log("| --- | --- | ---: | ---: |");
  const modes = ["replica", "none"] as const;
  await compare(
    "sign-out (session destroy), cluster",
    Object.fromEntries(modes.map((durability) => [
      durability,
      signOut(
        createRedisSessionStorage({
          client: clusterClient,
          cookie,
          durability,
        }),
      ),
    ])),
  );
  await compare(
    "lockout count reaching the limit, cluster",
    Object.fromEntries(modes.map((durability) => [
      durability,
      lockoutCount(
        createRedisRateLimitStore({
          client: clusterClient,
          prefix: `bench-${durability}:`,
          durability,
        }),
      ),
    ])),
  );
  await compare(
    "idempotency claim, cluster",
    Object.fromEntries(modes.map((durability) => [
      durability,
      claim(
        createRedisCacheStore({
          client: clusterClient,
          prefix: `bench-${durability}:`,
          durability,
        }),
      ),
    ])),
  );

  console.log();
  console.log("| backend | save | index | p50 ms | p99 ms |");
  console.log("| --- | --- | --- | ---: | ---: |");
  const backends: [string, UserSessionStorage][] = [
    ["Deno KV :memory:", createKvSessionStorage({ client: kv, cookie })],
    [
      "Redis one node",
      createRedisSessionStorage({ client: singleClient, cookie }),
    ],
    [
      "Redis cluster",
      createRedisSessionStorage({ client: clusterClient, cookie }),
    ],
  ];
  for (const [name, storage] of backends) {
    await compare(`${name} | value changed`, {
      "bound (index)": valueSave(storage, true),
      "unbound (none)": valueSave(storage, false),
    });
    await compare(`${name} | new session`, {
      "bound (index)": newSave(storage, true),
      "unbound (none)": newSave(storage, false),
    });
  }
} finally {
  kv.close();
  clusterClient.destroy();
  await singleClient.quit();
  await single.stop();
  await cluster.stop();
}
