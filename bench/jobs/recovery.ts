// Recovery: time from a worker's SIGKILL (its job in flight) to that job
// running in another process, on Redis and on Deno KV, with a visibility
// timeout of 2 s and 5 s (the default is the job's timeoutMs + 30 s).
// What it measures is the visibility timeout plus up to one poll
// (`pollMs`, 100 ms here) of the surviving worker.
//
//   deno run -A --unstable-kv bench/jobs/recovery.ts [rounds=3]
import { createClient } from "redis";
import {
  createJobQueue,
  createKvJobStore,
  createRedisJobStore,
  type JobStore,
} from "@fetchkit/toolkit/jobs";
import { median } from "../_stats.ts";
import { startRedis } from "../../_tools/redis.ts";

const WORKER =
  new URL("../../jobs/_test_worker_process.ts", import.meta.url).pathname;
const rounds = Number(Deno.args[0] ?? 3);
const redis = await startRedis("redis-server");
const client = await createClient({ url: redis.url }).connect();
const dir = await Deno.makeTempDir({ prefix: "bench-jobs-rec-" });
const kv = await Deno.openKv(`${dir}/kv.db`);

async function once(
  kind: "redis" | "kv",
  store: JobStore,
  visibilityMs: number,
): Promise<number> {
  const name = `r${crypto.randomUUID()}`;
  const queue = createJobQueue({ store, name, log: () => {} });
  let ranAt = 0;
  queue.define("effect", () => void (ranAt = performance.now()), {
    visibilityTimeoutMs: visibilityMs,
  });
  await queue.enqueue("effect", { i: 0 });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      WORKER,
      kind,
      kind === "redis" ? redis.url : `${dir}/kv.db`,
      name,
      "1",
      "600000", // the handler outlives the process
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  while ((await queue.stats()).active === 0) {
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGKILL");
  const killedAt = performance.now();
  await child.status;
  const worker = queue.work({ pollMs: 100 });
  while (ranAt === 0) await new Promise((r) => setTimeout(r, 5));
  await worker.stop();
  return ranAt - killedAt;
}

const results = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const visibilityMs of [2000, 5000]) {
    for (const kind of ["redis", "kv"] as const) {
      const store = kind === "redis"
        ? createRedisJobStore(client)
        : createKvJobStore(kv);
      const ms = await once(kind, store, visibilityMs);
      const label = `${kind === "redis" ? "Redis" : "Deno KV"}, visibility ${
        visibilityMs / 1000
      } s`;
      results.set(label, [...(results.get(label) ?? []), ms]);
      console.error(`round ${round + 1} ${label}: ${ms.toFixed(0)} ms`);
    }
  }
}
console.log(
  "| store, visibility timeout | SIGKILL to running elsewhere (median, min-max) |",
);
console.log("| --- | --- |");
for (const [label, list] of results) {
  console.log(
    `| ${label} | ${median(list).toFixed(0)} ms (${
      Math.min(...list).toFixed(0)
    }-${Math.max(...list).toFixed(0)}) |`,
  );
}
client.destroy();
kv.close();
await redis.stop();
await Deno.remove(dir, { recursive: true });
