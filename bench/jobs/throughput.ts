// Jobs per second through one worker (no-op handler) with concurrency 1
// and 16, and enqueue latency (p50/p99 of sequential enqueues), for our
// stores (memory, Deno KV, Redis) against BullMQ on the same
// redis-server and Deno KV's bare enqueue/listenQueue. Contenders run in
// interleaved rounds (A B C ... A B C ...) and the medians are printed;
// CPU time is shared with other users of the machine, so absolute
// figures are noisy (see BENCHMARKS.md).
//
//   deno run -A --unstable-kv bench/jobs/throughput.ts [rounds=3]
import { Queue, Worker } from "bullmq";
import { createClient } from "redis";
import {
  createJobQueue,
  createKvJobStore,
  createMemoryJobStore,
  createRedisJobStore,
  type JobStore,
} from "@fetchkit/toolkit/jobs";
import { median, quantile } from "../_stats.ts";
import { startRedis } from "../../_tools/redis.ts";

const rounds = Number(Deno.args[0] ?? 3);
const redis = await startRedis("redis-server");
const client = await createClient({ url: redis.url }).connect();
const dir = await Deno.makeTempDir({ prefix: "bench-jobs-" });
let kvCount = 0;

interface Result {
  perSecond: number;
  p50: number;
  p99: number;
}

async function ours(
  store: JobStore,
  n: number,
  concurrency: number,
): Promise<Result> {
  const queue = createJobQueue({ store, name: `b${crypto.randomUUID()}` });
  let done = 0;
  let resolve!: () => void;
  const all = new Promise<void>((r) => (resolve = r));
  queue.define("noop", () => {
    if (++done === n) resolve();
  });
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await queue.enqueue("noop", { i });
    latencies.push(performance.now() - start);
  }
  const start = performance.now();
  const worker = queue.work({ concurrency, pollMs: 50 });
  await all;
  const seconds = (performance.now() - start) / 1000;
  await worker.stop();
  return {
    perSecond: n / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}

async function bull(n: number, concurrency: number): Promise<Result> {
  const name = `b${crypto.randomUUID()}`;
  const queue = new Queue(name, { connection: client });
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await queue.add("noop", { i }, {
      removeOnComplete: true,
      attempts: 5,
      backoff: { type: "exponential", delay: 1000 },
    });
    latencies.push(performance.now() - start);
  }
  let done = 0;
  let resolve!: () => void;
  const all = new Promise<void>((r) => (resolve = r));
  const start = performance.now();
  const worker = new Worker(name, () => {
    if (++done === n) resolve();
    return Promise.resolve();
  }, { connection: client, concurrency });
  await all;
  const seconds = (performance.now() - start) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  return {
    perSecond: n / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}

async function kvNative(n: number): Promise<Result> {
  const kv = await Deno.openKv(`${dir}/native-${kvCount++}.db`);
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await kv.enqueue({ i });
    latencies.push(performance.now() - start);
  }
  let done = 0;
  let resolve!: () => void;
  const all = new Promise<void>((r) => (resolve = r));
  const start = performance.now();
  const listening = kv.listenQueue(() => {
    if (++done === n) resolve();
  });
  await all;
  const seconds = (performance.now() - start) / 1000;
  kv.close();
  await listening.catch(() => {});
  return {
    perSecond: n / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}

const contenders: [string, number, () => Promise<Result>][] = [];
for (const concurrency of [1, 16]) {
  contenders.push(
    [
      `memory c=${concurrency}`,
      concurrency,
      () => ours(createMemoryJobStore(), 5000, concurrency),
    ],
    [
      `Redis (ours) c=${concurrency}`,
      concurrency,
      () => ours(createRedisJobStore(client), 3000, concurrency),
    ],
    [`BullMQ c=${concurrency}`, concurrency, () => bull(3000, concurrency)],
    [`Deno KV (ours) c=${concurrency}`, concurrency, async () => {
      const kv = await Deno.openKv(`${dir}/ours-${kvCount++}.db`);
      try {
        return await ours(createKvJobStore(kv), 500, concurrency);
      } finally {
        kv.close();
      }
    }],
  );
}
contenders.push(["Deno KV enqueue/listenQueue", 0, () => kvNative(500)]);

const results = new Map<string, Result[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, , run] of contenders) {
    const result = await run();
    results.set(name, [...(results.get(name) ?? []), result]);
    console.error(
      `round ${round + 1} ${name}: ${result.perSecond.toFixed(0)} jobs/s`,
    );
  }
}
console.log(
  "| contender | jobs/s (median, min-max) | enqueue p50 ms | enqueue p99 ms |",
);
console.log("| --- | --- | --- | --- |");
for (const [name] of contenders) {
  const list = results.get(name)!;
  const rates = list.map((r) => r.perSecond);
  console.log(
    `| ${name} | ${median(rates).toFixed(0)} (${
      Math.min(...rates).toFixed(0)
    }-${Math.max(...rates).toFixed(0)}) | ${
      median(list.map((r) => r.p50)).toFixed(3)
    } | ${median(list.map((r) => r.p99)).toFixed(3)} |`,
  );
}
client.destroy();
await redis.stop();
await Deno.remove(dir, { recursive: true });
