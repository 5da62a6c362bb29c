// An app process for serve_test.ts: serve() and a job worker on one
// Deno KV file. The "long" job takes 5 s, "short" 300 ms; each records
// its end in the KV. Prints the port once listening.
import { serve } from "@fetchkit/toolkit/serve";
import { createJobQueue, createKvJobStore } from "@fetchkit/toolkit/jobs";

const [path, graceMs] = Deno.args;
const kv = await Deno.openKv(path);
const queue = createJobQueue({ store: createKvJobStore(kv), name: "app" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
queue.define("long", async (_payload, job) => {
  await sleep(5000);
  if (!job.signal.aborted) await kv.set(["ended", "long"], true);
});
queue.define("short", async () => {
  await sleep(300);
  await kv.set(["ended", "short"], true);
});
queue.work({ concurrency: 2, pollMs: 20, shutdownGraceMs: Number(graceMs) });
serve(() => new Response("ok"), {
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(port),
});
