// Redis killed (SIGKILL) for 5 s in the middle of a run, then started
// again on the same port and append-only file: enqueue fails with a 503
// meanwhile, both workers pause and resume by themselves, and every job
// runs (none lost; duplicates counted, none expected with
// `appendfsync always`).
import assert from "node:assert/strict";
import { createClient } from "redis";
import { createJobQueue, createRedisJobStore } from "@fetchkit/toolkit/jobs";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { freePort, redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { sleep, until } from "./_test_suite.ts";

const redisServer = await redisServerOrSkip();

Deno.test({
  name:
    "redis job store: Redis killed for 5 s during a run: enqueue is a 503 meanwhile, workers resume, no job lost",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jobs-redis-aof-" });
    const port = freePort();
    const args = [
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
    ];
    let server = await startRedis(redisServer!, port, args);
    const connect = () =>
      createClient({
        url: server.url,
        socket: { reconnectStrategy: () => 100 },
        // Commands fail at once while disconnected rather than wait and
        // run after reconnecting, when the worker has given up on them
        // (a claim made then would hold its jobs until their visibility
        // timeout).
        disableOfflineQueue: true,
      }).on("error", () => {}).connect();
    const one = await connect();
    const two = await connect();
    const lines: string[] = [];
    const runs = new Map<number, number>();
    const queues = [one, two].map((client) => {
      const queue = createJobQueue({
        store: createRedisJobStore(client),
        name: "outage",
        storeTimeoutMs: 1000,
        log: (line) => lines.push(line),
      });
      queue.define<{ i: number }>("job", async (payload) => {
        await sleep(5);
        runs.set(payload.i, (runs.get(payload.i) ?? 0) + 1);
      }, { visibilityTimeoutMs: 10_000, backoff: { initialMs: 50 } });
      return queue;
    });
    const total = 400;
    try {
      for (let i = 0; i < total; i++) {
        await queues[i % 2].enqueue("job", { i });
      }
      const workers = queues.map((queue) =>
        queue.work({ concurrency: 4, pollMs: 50 })
      );
      await until(() => runs.size >= 100);
      Deno.kill(server.pid, "SIGKILL");
      const killedAt = Date.now();
      await sleep(200);
      await assert.rejects(
        queues[0].enqueue("job", { i: -1 }),
        StoreUnavailableError,
      );
      const doneWhileDown = runs.size;
      await sleep(5000 - (Date.now() - killedAt));
      await server.stop().catch(() => {});
      server = await startRedis(redisServer!, port, args);
      await until(() => runs.size === total, 30_000, "every job ran");
      await until(
        async () => (await queues[0].stats()).active === 0,
        10_000,
        "nothing active",
      );
      await Promise.all(workers.map((worker) => worker.stop()));
      const duplicates = [...runs.values()].filter((n) => n > 1).length;
      console.log(
        `  ${total} jobs, Redis down 5 s after ${doneWhileDown} ran: none missing, ${duplicates} ran twice`,
      );
      for (let i = 0; i < total; i++) assert.ok(runs.has(i), `job ${i} lost`);
      assert.equal(duplicates, 0);
      assert.deepEqual(await queues[1].stats(), {
        waiting: 0,
        delayed: 0,
        active: 0,
        dead: 0,
      });
      assert.ok(lines.some((line) => /paused/.test(line)), lines.join("\n"));
      assert.ok(lines.some((line) => /resumed/.test(line)), lines.join("\n"));
    } finally {
      one.destroy();
      two.destroy();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
