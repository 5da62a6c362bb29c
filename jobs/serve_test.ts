// A worker started with serve() stops with it: on SIGTERM it takes no new
// job, lets a short one finish, hands a long one back (waiting again, its
// attempt not counted) and the process exits.
import assert from "node:assert/strict";
import { createJobQueue, createKvJobStore } from "@fetchkit/toolkit/jobs";
import { until } from "./_test_suite.ts";

Deno.test({
  name:
    "jobs with serve(): SIGTERM finishes the short job, hands the long one back, and the process exits",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jobs-serve-" });
    const path = `${dir}/kv.db`;
    const kv = await Deno.openKv(path);
    const queue = createJobQueue({ store: createKvJobStore(kv), name: "app" });
    queue.define("long", () => {});
    queue.define("short", () => {});
    await queue.enqueue("long", {});
    await queue.enqueue("short", {});
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--unstable-kv",
        new URL("./_test_serve_process.ts", import.meta.url).pathname,
        path,
        "1000",
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    try {
      await until(
        async () => (await queue.stats()).active === 2,
        30_000,
        "both jobs active",
      );
      const signalledAt = Date.now();
      child.kill("SIGTERM");
      const status = await child.status;
      const tookMs = Date.now() - signalledAt;
      assert.equal(status.code, 0);
      assert.ok(tookMs < 4000, `exit took ${tookMs} ms`);
      assert.equal((await kv.get(["ended", "short"])).value, true);
      assert.equal((await kv.get(["ended", "long"])).value, null);
      assert.deepEqual(await queue.stats(), {
        waiting: 1,
        delayed: 0,
        active: 0,
        dead: 0,
      });
      // Handed back: its next run is attempt 1 again.
      const attempts: number[] = [];
      const next = createJobQueue({
        store: createKvJobStore(kv),
        name: "app",
      });
      next.define("long", (_payload, job) => void attempts.push(job.attempt));
      const worker = next.work({ pollMs: 20, stopWithServer: false });
      await until(() => attempts.length === 1);
      await worker.stop();
      assert.deepEqual(attempts, [1]);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited
      }
      await child.stdout.cancel();
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
