// A worker process for the multi-process tests: runs the "effect" job of
// queue `name` on Deno KV (a file) or Redis (a URL) until it gets
// SIGTERM (then stops gracefully) or is killed. Each run records its
// side effect in the same database, counted per job, so the parent sees
// duplicates. Prints "ready" once working.
//
//   deno run -A --unstable-kv jobs/_test_worker_process.ts kv /tmp/x/kv.db queue 16
//   deno run -A jobs/_test_worker_process.ts redis redis://127.0.0.1:6379 queue 16
import { createClient } from "redis";
import {
  createJobQueue,
  createKvJobStore,
  createRedisJobStore,
  type JobStore,
} from "@fetchkit/toolkit/jobs";

const [kind, where, name, concurrency = "8", delayMs = "0"] = Deno.args;
let store: JobStore;
let record: (i: number) => Promise<void>;
if (kind === "kv") {
  const kv = await Deno.openKv(where);
  store = createKvJobStore(kv);
  record = async (i) => {
    await kv.atomic().sum(["effects", name, i], 1n).commit();
  };
} else {
  const client = await createClient({ url: where }).on("error", () => {})
    .connect();
  store = createRedisJobStore(client);
  record = async (i) => {
    await client.hIncrBy(`effects:${name}`, String(i), 1);
  };
}
const queue = createJobQueue({ store, name, log: () => {} });
queue.define<{ i: number }>("effect", async (payload) => {
  if (Number(delayMs) > 0) {
    await new Promise((resolve) => setTimeout(resolve, Number(delayMs)));
  }
  await record(payload.i);
}, { timeoutMs: 5000, visibilityTimeoutMs: 2000 });
const worker = queue.work({ concurrency: Number(concurrency), pollMs: 50 });
Deno.addSignalListener("SIGTERM", async () => {
  await worker.stop({ graceMs: 2000 });
  Deno.exit(0);
});
console.log("ready");
