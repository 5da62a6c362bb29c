// withTimeout's shared timer: calls under one limit share a timer, yet each
// fails at its own deadline, in the order they started; a call that answers
// in time is never failed; the timer comes back after the calls went idle.
// Portable (runs on Node and Bun).

import assert from "node:assert/strict";
import { StoreUnavailableError, withTimeout } from "@fetchkit/toolkit/store";

const hang = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** When `promise` rejected, in ms after `start`, with the error checked. */
async function failedAt(promise: Promise<unknown>, start: number) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StoreUnavailableError);
    return performance.now() - start;
  }
  throw new Error("did not fail");
}

Deno.test("withTimeout: calls under one limit each fail at their own deadline, in order", async () => {
  const start = performance.now();
  const order: number[] = [];
  const calls = [0, 40, 80].map(async (delay, index) => {
    await sleep(delay);
    const began = performance.now();
    const ms = await failedAt(
      withTimeout(hang, 60, { store: "Redis", what: `call ${index}` }),
      began,
    );
    order.push(index);
    return ms;
  });
  // A call that answers in time, among them: its value, never a failure.
  const quick = withTimeout(
    () => sleep(30).then(() => "answer"),
    60,
    { store: "Redis" },
  );
  const waited = await Promise.all(calls);
  assert.equal(await quick, "answer");
  assert.deepEqual(order, [0, 1, 2]);
  for (const ms of waited) {
    assert.ok(ms >= 59, `failed after ${ms} ms, before its 60 ms`);
    assert.ok(ms < 60 + 400, `failed ${ms} ms after it started`);
  }
  assert.ok(performance.now() - start < 80 + 60 + 400);
});

Deno.test("withTimeout: after the calls went idle, a new one still fails in time", async () => {
  assert.equal(
    await withTimeout(() => Promise.resolve(1), 30, { store: "Deno KV" }),
    1,
  );
  // The shared timer fires with nothing due and stops.
  await sleep(60);
  const began = performance.now();
  const ms = await failedAt(withTimeout(hang, 30, { store: "Deno KV" }), began);
  assert.ok(ms >= 29 && ms < 30 + 400, `failed after ${ms} ms`);
  // Another limit at the same time: its own deadline.
  const other = performance.now();
  const [short, long] = await Promise.all([
    failedAt(withTimeout(hang, 20, { store: "Redis" }), other),
    failedAt(withTimeout(hang, 70, { store: "Redis" }), other),
  ]);
  assert.ok(short >= 19 && short < 70, `20 ms limit failed after ${short}`);
  assert.ok(long >= 69, `70 ms limit failed after ${long}`);
});
