/**
 * Every Redis-backed store on one node against a 3-master, 3-replica Redis
 * Cluster, in the same run: sessions saved, limits checked and events
 * delivered per second, and each operation's latency (p50, p99), with 16
 * operations in flight. Rounds interleave the contenders in a rotated
 * order; figures are medians over rounds. Then the failover scenario of
 * `store/redis_failover_test.ts` (a master SIGKILLed under session writes
 * and limit counts from two processes, node-redis and stores on their
 * defaults, then with node-redis' topology refresh after 1 s instead of 5,
 * interleaved): seconds of 503, and acknowledged writes the promoted
 * replica lacks.
 *
 *     deno run --unstable-kv --allow-all bench/store/cluster.ts [--rounds 5] [--ms 1500] [--failovers 3]
 *
 * `REDIS_SERVER=valkey-server` runs it all on Valkey.
 *
 * @module
 */
import { createClient, createCluster } from "redis";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { createRedisRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
import {
  findRedisServer,
  redisServerName,
  startRedis,
} from "../../_tools/redis.ts";
import {
  findClusterTools,
  startRedisCluster,
} from "../../_tools/redis_cluster.ts";
import { runFailover } from "../../store/_test_failover.ts";
import { median, quantile } from "../_stats.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const ROUNDS = option("--rounds", 5);
const MS = option("--ms", 1500);
const FAILOVERS = option("--failovers", 3);
const IN_FLIGHT = 16;

const server = await findRedisServer();
const tools = await findClusterTools();
if (server === undefined || tools === undefined) {
  console.log(`${redisServerName()} or its CLI is not installed`);
  Deno.exit(1);
}

/** One measured run: operations per second, latencies in ms. */
interface Run {
  perSecond: number;
  latencies: number[];
}

/** Runs `op` with IN_FLIGHT in flight for MS milliseconds. */
async function measure(
  op: (i: number) => Promise<unknown>,
  ms = MS,
): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() - started < ms) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: latencies.length / seconds, latencies };
}

// A node-redis client or cluster client: each store takes either.
// deno-lint-ignore no-explicit-any
type Client = any;

/** The three workloads on one client (and a second one, for pub/sub). */
function workloads(client: Client, reader: Client) {
  const storage = createRedisSessionStorage({
    client,
    cookie: { secrets: ["bench-secret-0123456789abcdefghijklmn"] },
  });
  // 256 sessions, each saved in turn (one read, one compare-and-set).
  const cookies: (string | null)[] = Array(256).fill(null);
  const sessions = async (i: number) => {
    const slot = i % cookies.length;
    const session = await storage.read(cookies[slot]);
    session.set("n", i);
    cookies[slot] = (await storage.save(session))?.split(";")[0] ??
      cookies[slot];
  };
  const store = createRedisRateLimitStore({
    client,
  });
  const policy = { limit: 1_000_000_000, windowMs: 60_000 };
  const limits = (i: number) => store.hit(`bench-${i % 1000}`, policy);
  // Events: a publish on one of 8 topics, done when the subscriber (on
  // another client, as another server) received it.
  const pub = createRedisPubSub({
    client,
  });
  const sub = createRedisPubSub({
    client: reader,
    maxQueued: 100_000,
  });
  const waiting = new Map<number, () => void>();
  const topics = Array.from({ length: 8 }, (_, t) => `bench-${t}`);
  const subscriptions = topics.map((topic) => sub.subscribe<number>(topic));
  const drained = subscriptions.map(async (subscription) => {
    for await (const { data } of subscription) waiting.get(data)?.();
  });
  const events = (i: number) =>
    new Promise<void>((resolve) => {
      waiting.set(i, () => {
        waiting.delete(i);
        resolve();
      });
      pub.publish(topics[i % topics.length], i);
    });
  return {
    ready: Promise.all(subscriptions.map((s) => s.ready)),
    ops: { sessions, limits, events } as Record<
      string,
      (i: number) => Promise<unknown>
    >,
    async close() {
      await pub.close();
      await sub.close();
      await Promise.allSettled(drained);
    },
  };
}

const single = await startRedis(server);
const cluster = await startRedisCluster(tools);
const singleClients = await Promise.all(
  [0, 1].map(() => createClient({ url: single.url }).connect()),
);
const clusterClients = await Promise.all(
  [0, 1].map(() =>
    createCluster({ rootNodes: cluster.rootNodes }).on("error", () => {})
      .connect()
  ),
);
const backends = {
  "one node": workloads(
    singleClients[0],
    singleClients[1],
  ),
  "cluster 3+3": workloads(
    clusterClients[0],
    clusterClients[1],
  ),
};
await Promise.all(Object.values(backends).map((b) => b.ready));

const names = ["sessions", "limits", "events"] as const;
const units = {
  sessions: "sessions saved/s",
  limits: "limits checked/s",
  events: "events delivered/s",
};
const results = new Map<string, Run[]>();
// Warm-up, not counted: scripts loaded on every node, code compiled.
for (const backend of Object.values(backends)) {
  for (const name of names) await measure(backend.ops[name], 300);
}
const contenders = Object.keys(backends).flatMap((backend) =>
  names.map((name) => [backend, name] as const)
);
for (let round = 0; round < ROUNDS; round++) {
  const order = contenders.map((_, i) =>
    contenders[(i + round) % contenders.length]
  );
  for (const [backend, name] of order) {
    const run = await measure(
      backends[backend as keyof typeof backends].ops[name],
    );
    const key = `${name}|${backend}`;
    results.set(key, [...(results.get(key) ?? []), run]);
  }
}

console.log(
  `\n${redisServerName()} ${
    new TextDecoder().decode(
      (await new Deno.Command(server, { args: ["--version"] }).output())
        .stdout,
    ).split(" ")[2]
  }, ${ROUNDS} rounds of ${MS} ms, ${IN_FLIGHT} in flight; medians over rounds\n`,
);
console.log("| workload | backend | per second | p50 ms | p99 ms |");
console.log("| --- | --- | ---: | ---: | ---: |");
for (const name of names) {
  for (const backend of Object.keys(backends)) {
    const runs = results.get(`${name}|${backend}`)!;
    console.log(
      `| ${units[name]} | ${backend} | ${
        Math.round(median(runs.map((r) => r.perSecond)))
      } | ${median(runs.map((r) => quantile(r.latencies, 0.5))).toFixed(2)} | ${
        median(runs.map((r) => quantile(r.latencies, 0.99))).toFixed(2)
      } |`,
    );
  }
}

for (const backend of Object.values(backends)) await backend.close();
for (const client of [...singleClients, ...clusterClients]) client.destroy();
await single.stop();
await cluster.stop();

if (FAILOVERS > 0) {
  console.log(
    "\nFailover: a master SIGKILLed under load (24 sessions written and one limit counted through two processes; cluster-node-timeout 1000 ms; node-redis and stores on their defaults)\n",
  );
  console.log(
    "| run | node-redis topology refresh | cluster ok after s | 503s until s | answers 200 / 503 / other | acknowledged | lost session writes | lost limit counts |",
  );
  console.log("| ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |");
  for (let run = 1; run <= FAILOVERS * 2; run++) {
    // Interleaved: node-redis' default, then a refresh after 1 s.
    const refresh = run % 2 === 0 ? 1000 : undefined;
    const fresh = await startRedisCluster(tools, { nodeTimeoutMs: 1000 });
    try {
      const report = await runFailover(fresh, { topologyRefreshMs: refresh });
      const other = Object.entries(report.statuses)
        .filter(([status]) => status !== "200" && status !== "503")
        .reduce((sum, [, count]) => sum + count, 0);
      console.log(
        `| ${run} | ${
          refresh === undefined ? "default (5 s)" : "1 s"
        } | ${report.cluster_ok_s} | ${report.unavailable_s} | ${
          report.statuses[200] ?? 0
        } / ${
          report.statuses[503] ?? 0
        } / ${other} | ${report.acknowledged} | ${report.lost_session_writes} | ${report.lost_limit_counts} |`,
      );
    } finally {
      await fresh.stop();
    }
  }
}
