import assert from "node:assert/strict";
import {
  createJobQueue,
  createMemoryJobStore,
  jobBackoffMs,
} from "@fetchkit/toolkit/jobs";
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
