// Bytes per waiting job: 100,000 jobs with the same small payload
// (`{ i, to }`) enqueued and left waiting, measured as Redis' own
// `used_memory` growth (ours against BullMQ, on one redis-server, each
// after a FLUSHALL), as the V8 heap growth for the memory store (after
// a GC), and as the database file growth for Deno KV (10,000 jobs:
// its writes are fsync-bound, about 100 a second here).
//
//   deno run -A --unstable-kv --v8-flags=--expose-gc bench/jobs/memory.ts
import { Queue } from "bullmq";
import { createClient } from "redis";
import {
  createJobQueue,
  createKvJobStore,
  createMemoryJobStore,
  createRedisJobStore,
  type JobQueue,
} from "@fetchkit/toolkit/jobs";
import { startRedis } from "../../_tools/redis.ts";

const N = 100_000;
const payload = (i: number) => ({ i, to: `user-${i}@example.com` });
const redis = await startRedis("redis-server");
const client = await createClient({ url: redis.url }).connect();

async function usedMemory(): Promise<number> {
  const info = await client.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function fill(queue: JobQueue, n: number, batch = 500) {
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from(
        { length: Math.min(batch, n - i) },
        (_, j) => queue.enqueue("send", payload(i + j)),
      ),
    );
  }
}

const rows: string[] = [];

// Redis, ours.
await client.flushAll();
let before = await usedMemory();
const ours = createJobQueue({ store: createRedisJobStore(client) });
ours.define("send", () => {});
await fill(ours, N);
rows.push(
  `| Redis (ours) | ${N} | ${((await usedMemory() - before) / N).toFixed(0)} |`,
);

// Redis, BullMQ.
await client.flushAll();
before = await usedMemory();
const bull = new Queue("send", { connection: client });
for (let i = 0; i < N; i += 1000) {
  await bull.addBulk(
    Array.from({ length: Math.min(1000, N - i) }, (_, j) => ({
      name: "send",
      data: payload(i + j),
      opts: {
        attempts: 5,
        backoff: { type: "exponential", delay: 1000 },
        removeOnComplete: true,
      },
    })),
  );
}
rows.push(
  `| BullMQ 6.7.0 | ${N} | ${((await usedMemory() - before) / N).toFixed(0)} |`,
);
await bull.close();

// Memory store.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = Deno.memoryUsage().heapUsed;
const memory = createJobQueue({ store: createMemoryJobStore() });
memory.define("send", () => {});
await fill(memory, N);
gc?.();
rows.push(
  `| memory | ${N} | ${
    ((Deno.memoryUsage().heapUsed - heapBefore) / N).toFixed(0)
  } |`,
);

// Deno KV file.
const dir = await Deno.makeTempDir({ prefix: "bench-jobs-mem-" });
const kv = await Deno.openKv(`${dir}/kv.db`);
const size = async () => {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    total += (await Deno.stat(`${dir}/${entry.name}`)).size;
  }
  return total;
};
const kvBefore = await size();
const onKv = createJobQueue({ store: createKvJobStore(kv) });
onKv.define("send", () => {});
const kvN = 10_000;
await fill(onKv, kvN, 50);
kv.close();
rows.push(
  `| Deno KV (file) | ${kvN} | ${
    ((await size() - kvBefore) / kvN).toFixed(0)
  } |`,
);

console.log("| store | waiting jobs | bytes per job |");
console.log("| --- | --- | --- |");
for (const row of rows) console.log(row);
client.destroy();
await redis.stop();
await Deno.remove(dir, { recursive: true });
