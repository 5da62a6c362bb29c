// countStoreCall(), the one seam every counted store call goes through
// (withTimeout for Deno KV and Redis, the memory stores and S3 file
// storage directly): how a call's outcome is told, and that nothing is
// timed or changed while no observer listens. Portable (runs on Node and
// Bun).

import assert from "node:assert/strict";
import {
  countStoreCall,
  observeStoreCalls,
  storeCallOutcome,
  StoreUnavailableError,
  withTimeout,
} from "@fetchkit/toolkit/store";

const CALL = { store: "memory", what: "get" };

/** Runs `fn` with an observer; the calls it was told of, as text. */
async function told(fn: () => unknown): Promise<string[]> {
  const seen: string[] = [];
  const stop = observeStoreCalls(({ store, what }, outcome, seconds) => {
    assert.ok(seconds >= 0 && seconds < 60, `seconds ${seconds}`);
    seen.push(`${store} ${what} ${outcome}`);
  });
  try {
    await fn();
  } finally {
    stop();
  }
  return seen;
}

Deno.test("countStoreCall: a synchronous answer is counted ok and returned as it is", async () => {
  const value = { answer: 1 };
  let got: unknown;
  const seen = await told(() => {
    got = countStoreCall(CALL, () => value);
  });
  assert.equal(got, value);
  assert.deepEqual(seen, ["memory get ok"]);
});

Deno.test("countStoreCall: a promise is counted once it settles, with its outcome", async () => {
  const seen = await told(async () => {
    assert.equal(
      await countStoreCall(CALL, () => Promise.resolve("a")),
      "a",
    );
    await assert.rejects(
      countStoreCall(CALL, () => Promise.reject(new RangeError("too large"))),
      RangeError,
    );
    await assert.rejects(
      countStoreCall(
        { store: "S3", what: "PutObject" },
        () => Promise.reject(new StoreUnavailableError("S3", "503")),
      ),
      StoreUnavailableError,
    );
  });
  assert.deepEqual(seen, [
    "memory get ok",
    "memory get error",
    "S3 PutObject unavailable",
  ]);
});

Deno.test("countStoreCall: a synchronous throw is counted and rethrown unchanged", async () => {
  const thrown = new TypeError("bad key");
  const seen = await told(() => {
    assert.throws(
      () =>
        countStoreCall(CALL, () => {
          throw thrown;
        }),
      (error) => error === thrown,
    );
  });
  assert.deepEqual(seen, ["memory get error"]);
});

Deno.test("countStoreCall: without an observer the operation's own promise comes back", async () => {
  const promise = Promise.resolve(1);
  assert.equal(countStoreCall(CALL, () => promise), promise);
  // With one, a promise that settles the same way.
  const seen = await told(async () => {
    const counted = countStoreCall(CALL, () => promise);
    assert.notEqual(counted, promise);
    assert.equal(await counted, 1);
  });
  assert.deepEqual(seen, ["memory get ok"]);
});

Deno.test("countStoreCall: an observer that throws changes nothing for the call or the others", async () => {
  const stopBad = observeStoreCalls(() => {
    throw new Error("observer bug");
  });
  try {
    const seen = await told(() => countStoreCall(CALL, () => 7));
    assert.deepEqual(seen, ["memory get ok"]);
  } finally {
    stopBad();
  }
});

Deno.test("withTimeout counts through the same seam: ok, timeout, unavailable, error", async () => {
  const seen = await told(async () => {
    await withTimeout(() => Promise.resolve(1), 1000, {
      store: "Redis",
      what: "read session",
    });
    await assert.rejects(
      withTimeout(() => new Promise(() => {}), 10, {
        store: "Redis",
        what: "read session",
      }),
      StoreUnavailableError,
    );
    await assert.rejects(
      withTimeout(
        () =>
          Promise.reject(
            Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
          ),
        1000,
        { store: "Redis", what: "save session" },
      ),
      StoreUnavailableError,
    );
    await assert.rejects(
      withTimeout(() => Promise.reject(new RangeError("70000 bytes")), 1000, {
        store: "Deno KV",
        what: "save session",
      }),
      RangeError,
    );
  });
  assert.deepEqual(seen, [
    "Redis read session ok",
    "Redis read session timeout",
    "Redis save session unavailable",
    "Deno KV save session error",
  ]);
});

Deno.test("storeCallOutcome: an outage is unavailable, any other error is error", () => {
  assert.equal(
    storeCallOutcome(new StoreUnavailableError("Redis", "down")),
    "unavailable",
  );
  assert.equal(storeCallOutcome(new TypeError("bad")), "error");
  assert.equal(storeCallOutcome("a string"), "error");
  assert.equal(storeCallOutcome(undefined), "error");
});
