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
