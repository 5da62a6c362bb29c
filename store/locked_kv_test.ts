// retryWhileLocked(): calls that find SQLite locked are tried again, an
// atomic operation is rebuilt per attempt, other errors pass at once.
// Portable: a KV of its own (a class with private state, as Deno.Kv is)
// whose calls fail with SQLite's message while `locks` is above 0.
import assert from "node:assert/strict";
import {
  retryWhileLocked,
  StoreUnavailableError,
} from "@fetchkit/toolkit/store";

type Key = readonly unknown[];

class FakeKv {
  #data = new Map<string, { value: unknown; versionstamp: string }>();
  #version = 0;
  locks = 0;
  calls = 0;
  #enter(): void {
    this.calls++;
    if (this.locks > 0) {
      this.locks--;
      throw new TypeError("database is locked");
    }
  }
  get(key: Key): Promise<{ value: unknown; versionstamp: string | null }> {
    try {
      this.#enter();
    } catch (error) {
      return Promise.reject(error);
    }
    const entry = this.#data.get(JSON.stringify(key));
    return Promise.resolve(entry ?? { value: null, versionstamp: null });
  }
  async set(key: Key, value: unknown): Promise<{ ok: true }> {
    this.#enter();
    this.#data.set(JSON.stringify(key), {
      value,
      versionstamp: String(++this.#version),
    });
    return await Promise.resolve({ ok: true });
  }
  atomic() {
    const checks: { key: Key; versionstamp: string | null }[] = [];
    const sets: [Key, unknown][] = [];
    const operation = {
      check: (...more: { key: Key; versionstamp: string | null }[]) => {
        checks.push(...more);
        return operation;
      },
      set: (key: Key, value: unknown) => {
        sets.push([key, value]);
        return operation;
      },
      commit: async () => {
        this.#enter();
        for (const check of checks) {
          const found = this.#data.get(JSON.stringify(check.key));
          if ((found?.versionstamp ?? null) !== check.versionstamp) {
            return { ok: false };
          }
        }
        for (const [key, value] of sets) await this.set(key, value);
        return { ok: true };
      },
    };
    return operation;
  }
  list(): string[] {
    return [...this.#data.keys()];
  }
}

Deno.test("retryWhileLocked: reads, writes and commits that find the lock are tried again", async () => {
  const raw = new FakeKv();
  const kv = retryWhileLocked(raw);
  raw.locks = 2;
  await kv.set(["a"], 1);
  assert.equal(raw.calls, 3);
  raw.locks = 3;
  assert.equal((await kv.get(["a"])).value, 1);
  // An atomic operation: its steps replayed on a fresh one per attempt.
  raw.locks = 2;
  const result = await kv.atomic()
    .check({ key: ["b"], versionstamp: null })
    .set(["b"], 2)
    .commit();
  assert.deepEqual(result, { ok: true });
  assert.equal((await kv.get(["b"])).value, 2);
  // A failed check is an answer, not a lock: no retry.
  const calls = raw.calls;
  assert.deepEqual(
    await kv.atomic().check({ key: ["b"], versionstamp: null }).set(["b"], 3)
      .commit(),
    { ok: false },
  );
  assert.equal(raw.calls, calls + 1);
  // Other methods pass through, bound to the database (private state).
  assert.deepEqual(kv.list(), ['["a"]', '["b"]']);
});

Deno.test("retryWhileLocked: another error passes at once; a lock held past 2 s is a StoreUnavailableError", async () => {
  const raw = new FakeKv();
  const kv = retryWhileLocked(raw);
  const failing = retryWhileLocked({
    calls: 0,
    get(): Promise<never> {
      this.calls++;
      return Promise.reject(new RangeError("key too large"));
    },
  });
  await assert.rejects(failing.get(), RangeError);
  assert.equal(failing.calls, 1);
  raw.locks = Number.POSITIVE_INFINITY;
  await assert.rejects(
    kv.set(["a"], 1),
    (error: Error) =>
      error instanceof StoreUnavailableError &&
      /stayed locked by another process: \d+ attempts in \d+ ms \(retry budget 2000 ms\)/
        .test(error.message),
  );
  assert.ok(raw.calls > 5, `${raw.calls} attempts`);
});

Deno.test("retryWhileLocked: a database wrapped already is given back as it is", () => {
  const kv = retryWhileLocked(new FakeKv());
  assert.equal(retryWhileLocked(kv), kv);
});
