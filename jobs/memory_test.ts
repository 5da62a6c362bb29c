import assert from "node:assert/strict";
import {
  createJobQueue,
  createMemoryJobStore,
  jobBackoffMs,
} from "@fetchkit/toolkit/jobs";
import { isDraining, serve } from "@fetchkit/toolkit/serve";
import { jobStoreSuite } from "./_test_suite.ts";

jobStoreSuite({
  name: "memory job store",
  open() {
    const store = createMemoryJobStore();
    return Promise.resolve({
      store,
      other: store,
      done: () => Promise.resolve(),
    });
  },
});

Deno.test("jobBackoffMs: exponential, capped, with jitter in the upper half", () => {
  assert.equal(jobBackoffMs(1, 1000, 300_000, () => 0), 500);
  assert.equal(jobBackoffMs(1, 1000, 300_000, () => 1), 1000);
  assert.equal(jobBackoffMs(4, 1000, 300_000, () => 1), 8000);
  assert.equal(jobBackoffMs(30, 1000, 300_000, () => 1), 300_000);
  assert.equal(jobBackoffMs(30, 1000, 300_000, () => 0), 150_000);
});

Deno.test("createJobQueue and define: bad options are TypeErrors naming them", () => {
  const store = createMemoryJobStore();
  assert.throws(
    () => createJobQueue({ store, maxPayloadBytes: 0 }),
    /maxPayloadBytes/,
  );
  const queue = createJobQueue({ store });
  assert.throws(
    () => queue.define("a", () => {}, { attempts: 1.5 }),
    /attempts/,
  );
  assert.throws(
    () => queue.define("a", () => {}, { timeoutMs: -1 }),
    /timeoutMs/,
  );
  queue.define("a", () => {});
  assert.throws(() => queue.define("a", () => {}), /already defined/);
  assert.throws(() => queue.work({ concurrency: 0 }), /concurrency/);
});

Deno.test("work() started while serve() drains: the worker stops at once, no throw", async () => {
  const server = serve(() => new Response("ok"), {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    drainMs: 200,
  });
  const finished = server.shutdown();
  assert.equal(isDraining(), true);
  const queue = createJobQueue({ store: createMemoryJobStore() });
  queue.define("noop", () => {});
  // Before: onDrain() called the listener at once, which read `offDrain`
  // before it was assigned (ReferenceError).
  const worker = queue.work();
  await worker.stop();
  await finished;
});

Deno.test("onSettled sees each attempt end once: done, retry, dead; a throw in it changes nothing", async () => {
  const seen: string[] = [];
  const lines: string[] = [];
  const queue = createJobQueue({
    store: createMemoryJobStore(),
    log: (line) => lines.push(line),
    onSettled: ({ name, attempt, outcome, durationMs }) => {
      assert.ok(durationMs >= 0);
      seen.push(`${name} ${attempt} ${outcome}`);
      if (name === "ok") throw new Error("listener broke");
    },
  });
  queue.define("ok", () => {});
  queue.define("flaky", (_payload, job) => {
    if (job.attempt < 2) throw new Error("once");
  }, { attempts: 3, backoff: { initialMs: 1, maxMs: 1 } });
  queue.define("doomed", () => {
    throw new Error("always");
  }, { attempts: 2, backoff: { initialMs: 1, maxMs: 1 } });
  await queue.enqueue("ok", {});
  await queue.enqueue("flaky", {});
  await queue.enqueue("doomed", {});
  const worker = queue.work({ pollMs: 5 });
  const deadline = Date.now() + 5000;
  while (seen.length < 5 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await worker.stop();
  assert.deepEqual(seen.sort(), [
    "doomed 1 retry",
    "doomed 2 dead",
    "flaky 1 retry",
    "flaky 2 done",
    "ok 1 done",
  ]);
  // The listener's throw is logged; the job still counts as done.
  assert.ok(lines.some((line) => line.includes("onSettled threw")));
  const counts = await queue.stats();
  assert.equal(counts.dead, 1);
  assert.equal(counts.waiting + counts.delayed + counts.active, 0);
});
