// 10,000 jobs over 3 worker processes, one SIGKILLed midway: every job's
// side effect is recorded (none missing), and only the killed worker's
// in-flight jobs may run twice (at most its concurrency; counted and
// printed). On Redis, and on Deno KV (one database file).
import assert from "node:assert/strict";
import { createClient } from "redis";
import {
  createJobQueue,
  createKvJobStore,
  createRedisJobStore,
  type JobQueue,
} from "@fetchkit/toolkit/jobs";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { sleep, until } from "./_test_suite.ts";

const WORKER = new URL("./_test_worker_process.ts", import.meta.url).pathname;
const CONCURRENCY = 16;

async function run(options: {
  kind: "redis" | "kv";
  where: string;
  total: number;
  queue: JobQueue;
  effects(): Promise<Map<number, number>>;
  done(): Promise<number>;
}) {
  const { total, queue } = options;
  const started = Date.now();
  for (let i = 0; i < total; i += 200) {
    await Promise.all(
      Array.from(
        { length: Math.min(200, total - i) },
        (_, j) => queue.enqueue("effect", { i: i + j }),
      ),
    );
  }
  const enqueuedMs = Date.now() - started;
  const spawn = () =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--unstable-kv",
        WORKER,
        options.kind,
        options.where,
        queue.name,
        String(CONCURRENCY),
        "2",
      ],
      stdout: "null",
      stderr: "inherit",
    }).spawn();
  const workers = [spawn(), spawn(), spawn()];
  try {
    await until(
      async () => (await options.done()) >= total * 0.3,
      45_000,
      "30% done",
    );
    workers[0].kill("SIGKILL");
    const killedAt = await options.done();
    await until(
      async () => (await options.done()) >= total,
      45_000,
      "every job's effect",
    );
    await until(
      async () => {
        const stats = await queue.stats();
        return stats.waiting + stats.active + stats.delayed === 0;
      },
      10_000,
      "queue empty",
    );
    const effects = await options.effects();
    const missing = [];
    for (let i = 0; i < total; i++) if (!effects.has(i)) missing.push(i);
    const twice = [...effects.values()].filter((n) => n > 1).length;
    console.log(
      `  ${options.kind}: ${total} jobs (enqueued in ${enqueuedMs} ms), worker 1 of 3 SIGKILLed after ${killedAt} effects; done in ${
        Date.now() - started
      } ms: ${missing.length} missing, ${twice} ran twice (the killed worker ran up to ${CONCURRENCY} at once)`,
    );
    assert.deepEqual(missing, []);
    assert.ok(twice <= CONCURRENCY, `${twice} jobs ran twice`);
    assert.equal((await queue.stats()).dead, 0);
  } finally {
    for (const worker of workers) {
      try {
        worker.kill("SIGKILL");
      } catch {
        // already ended
      }
    }
    await Promise.all(workers.map((worker) => worker.status));
  }
}

const redisServer = await redisServerOrSkip();

Deno.test({
  name:
    "jobs on Redis: 10,000 jobs over 3 worker processes, one SIGKILLed midway: none missing, duplicates only its in-flight jobs",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startRedis(redisServer!);
    const client = await createClient({ url: server.url }).connect();
    try {
      const queue = createJobQueue({
        store: createRedisJobStore(client),
        name: "many",
      });
      queue.define("effect", () => {}, { visibilityTimeoutMs: 2000 });
      await run({
        kind: "redis",
        where: server.url,
        total: 10_000,
        queue,
        async effects() {
          const all = await client.hGetAll("effects:many");
          return new Map(
            Object.entries(all).map(([i, n]) => [Number(i), Number(n)]),
          );
        },
        done: () => client.hLen("effects:many"),
      });
    } finally {
      client.destroy();
      await server.stop();
    }
  },
});

Deno.test({
  name:
    "jobs on Deno KV: 1,000 jobs over 3 worker processes on one file, one SIGKILLed midway: none missing, duplicates only its in-flight jobs",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jobs-many-" });
    const path = `${dir}/kv.db`;
    const kv = await Deno.openKv(path);
    try {
      const queue = createJobQueue({
        store: createKvJobStore(kv),
        name: "many",
      });
      queue.define("effect", () => {}, { visibilityTimeoutMs: 2000 });
      const effects = async () => {
        const map = new Map<number, number>();
        for await (const entry of kv.list({ prefix: ["effects", "many"] })) {
          map.set(
            entry.key[2] as number,
            Number((entry.value as Deno.KvU64).value),
          );
        }
        return map;
      };
      await run({
        kind: "kv",
        where: path,
        total: 1000,
        queue,
        effects,
        done: async () => (await effects()).size,
      });
    } finally {
      kv.close();
      await sleep(10);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
