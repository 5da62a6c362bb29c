// The behaviour every job store shares, run against each of them
// (memory_test.ts, redis_test.ts, redis_cluster_test.ts, kv_test.ts).
// Portable: no Deno.* API but Deno.test.

import assert from "node:assert/strict";
import {
  createJobQueue,
  type JobQueueOptions,
  type JobStore,
} from "@fetchkit/toolkit/jobs";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import type { StandardSchemaV1 } from "@fetchkit/toolkit/form-validation";

/** Makes a fresh store (and, where it can, a second handle on the same data). */
export interface SuiteTarget {
  name: string;
  ignore?: boolean;
  open(): Promise<{ store: JobStore; other: JobStore; done(): Promise<void> }>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check()` holds, failing after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
  what = "condition",
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await sleep(10);
  }
}

/** A store whose calls fail like an outage (or hang) while `down` is set. */
export function faulty(
  store: JobStore,
): { store: JobStore; down: "no" | "fail" | "hang"; calls: number } {
  const state = { down: "no" as "no" | "fail" | "hang", calls: 0, store };
  state.store = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "subscribe") {
        return value;
      }
      return (...args: unknown[]) => {
        state.calls++;
        if (state.down === "fail") {
          return Promise.reject(
            Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
              code: "ECONNREFUSED",
            }),
          );
        }
        if (state.down === "hang") return new Promise(() => {});
        return value.apply(target, args);
      };
    },
  });
  return state;
}

const schema: StandardSchemaV1<unknown, { to: string }> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate(value) {
      const to = (value as { to?: unknown } | null)?.to;
      return typeof to === "string" && to.includes("@")
        ? { value: { to } }
        : { issues: [{ message: "an email is required", path: ["to"] }] };
    },
  },
};

let counter = 0;

export function jobStoreSuite(target: SuiteTarget): void {
  const test = (
    name: string,
    fn: (
      open: (
        options?: Partial<JobQueueOptions>,
      ) => ReturnType<typeof createJobQueue>,
      stores: { store: JobStore; other: JobStore },
    ) => Promise<void>,
  ) =>
    Deno.test({
      name: `${target.name}: ${name}`,
      ignore: target.ignore,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const opened = await target.open();
        const queueName = `q${Date.now()}-${counter++}`;
        const lines: string[] = [];
        try {
          await fn(
            (options) =>
              createJobQueue({
                store: opened.store,
                name: queueName,
                log: (line) => lines.push(line),
                ...options,
              }),
            opened,
          );
        } finally {
          await opened.done();
        }
      },
    });

  test("a job runs once, with its id, name, attempt and signal", async (open) => {
    const queue = open();
    const seen: unknown[] = [];
    queue.define<{ n: number }>("one", (payload, job) => {
      seen.push([payload.n, job.id, job.name, job.attempt, job.signal.aborted]);
    });
    const { id, duplicate } = await queue.enqueue("one", { n: 7 });
    assert.equal(duplicate, false);
    const worker = queue.work({ pollMs: 20 });
    await until(() => seen.length === 1);
    await sleep(50);
    await worker.stop();
    assert.deepEqual(seen, [[7, id, "one", 1, false]]);
    assert.deepEqual(await queue.stats(), {
      waiting: 0,
      delayed: 0,
      active: 0,
      dead: 0,
    });
  });

  test("a failed attempt is retried with backoff, then succeeds; one log line per failure, no payload", async (open) => {
    const lines: string[] = [];
    const queue = open({ log: (line) => lines.push(line) });
    const attempts: number[] = [];
    const times: number[] = [];
    queue.define("flaky", (_payload, job) => {
      attempts.push(job.attempt);
      times.push(Date.now());
      if (job.attempt < 3) throw new Error(`refused ${job.attempt}`);
    }, { backoff: { initialMs: 40, maxMs: 1000 } });
    const { id } = await queue.enqueue("flaky", { secret: "s3cr3t@x.io" });
    const worker = queue.work({ pollMs: 10 });
    await until(() => attempts.length === 3);
    await sleep(30);
    await worker.stop();
    assert.deepEqual(attempts, [1, 2, 3]);
    // 40 ms then 80 ms, each at least half (jitter).
    assert.ok(times[1] - times[0] >= 19, `${times[1] - times[0]}`);
    assert.ok(times[2] - times[1] >= 39, `${times[2] - times[1]}`);
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(lines[0], new RegExp(`flaky ${id} attempt 1/5: refused 1`));
    assert.ok(lines.every((line) => !line.includes("s3cr3t")));
    assert.equal((await queue.stats()).waiting, 0);
  });

  test("after its attempts a job is dead; retry() runs it again, remove() deletes it", async (open) => {
    const queue = open();
    let refuse = true;
    let runs = 0;
    let done = 0;
    queue.define("send", () => {
      runs++;
      if (refuse) throw new Error("550 mailbox refused");
      done++;
    }, { attempts: 3, backoff: { initialMs: 5, maxMs: 10 } });
    const { id } = await queue.enqueue("send", { to: "a@b.c" });
    const second = await queue.enqueue("send", { to: "d@e.f" });
    const worker = queue.work({ pollMs: 10 });
    await until(async () => (await queue.stats()).dead === 2);
    assert.equal(runs, 6);
    const dead = await queue.deadLetters();
    assert.equal(dead.length, 2);
    const mine = dead.find((job) => job.id === id)!;
    assert.equal(mine.name, "send");
    assert.deepEqual(mine.payload, { to: "a@b.c" });
    assert.equal(mine.error, "550 mailbox refused");
    assert.equal(mine.attempts, 3);
    assert.ok(mine.failedAt instanceof Date);
    assert.equal((await queue.deadLetters({ limit: 1 })).length, 1);
    refuse = false;
    assert.equal(await queue.retry(id), true);
    await until(() => done === 1);
    assert.equal(await queue.retry(id), false); // done: not dead any more
    assert.equal(await queue.remove(second.id), true);
    assert.equal(await queue.remove(second.id), false);
    await worker.stop();
    assert.deepEqual(await queue.stats(), {
      waiting: 0,
      delayed: 0,
      active: 0,
      dead: 0,
    });
  });

  test("a key de-duplicates while waiting, active and after done; remove() frees it", async (open) => {
    const queue = open();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    queue.define("mail", async () => {
      runs++;
      await gate;
    });
    const first = await queue.enqueue("mail", { n: 1 }, { key: "k1" });
    const again = await queue.enqueue("mail", { n: 2 }, { key: "k1" });
    assert.deepEqual(again, { id: first.id, duplicate: true });
    assert.equal((await queue.stats()).waiting, 1);
    const worker = queue.work({ pollMs: 10 });
    await until(() => runs === 1);
    assert.deepEqual(await queue.enqueue("mail", {}, { key: "k1" }), {
      id: first.id,
      duplicate: true,
    });
    release();
    await until(async () => (await queue.stats()).active === 0);
    assert.deepEqual(await queue.enqueue("mail", {}, { key: "k1" }), {
      id: first.id,
      duplicate: true,
    });
    const other = await queue.enqueue("mail", {}, { key: "k2" });
    assert.equal(other.duplicate, false);
    await until(() => runs === 2);
    await worker.stop();
    // A removed waiting job frees its key.
    const waiting = await queue.enqueue("mail", {}, { key: "k3" });
    assert.equal(await queue.remove(waiting.id), true);
    assert.equal(
      (await queue.enqueue("mail", {}, { key: "k3" })).duplicate,
      false,
    );
  });

  test("a finished job's key frees after keyRetentionMs", async (open) => {
    const queue = open({ keyRetentionMs: 100 });
    let runs = 0;
    queue.define("mail", () => void runs++);
    const first = await queue.enqueue("mail", {}, { key: "k" });
    const worker = queue.work({ pollMs: 10 });
    await until(() => runs === 1);
    await sleep(30);
    assert.equal((await queue.enqueue("mail", {}, { key: "k" })).id, first.id);
    await sleep(200);
    const later = await queue.enqueue("mail", {}, { key: "k" });
    assert.notEqual(later.id, first.id);
    await until(() => runs === 2);
    await worker.stop();
  });

  test("unknown name, schema failure and payload over the limit: TypeError, nothing stored", async (open) => {
    const queue = open({ maxPayloadBytes: 1000 });
    queue.define("mail", () => {}, { schema });
    queue.define("blob", () => {});
    await assert.rejects(
      queue.enqueue("nope", {}),
      (error: Error) =>
        error instanceof TypeError &&
        /unknown job name "nope"/.test(error.message),
    );
    await assert.rejects(
      queue.enqueue("mail", { to: "not an email" }),
      (error: Error) =>
        error instanceof TypeError &&
        /fails the job's schema: to: an email is required/.test(error.message),
    );
    await assert.rejects(
      queue.enqueue("blob", { text: "é".repeat(600) }),
      (error: Error) =>
        error instanceof TypeError &&
        /is 1211 bytes as JSON, over the limit of 1000/.test(error.message),
    );
    await assert.rejects(
      queue.enqueue("blob", { n: 1n }),
      (error: Error) =>
        error instanceof TypeError && /JSON/.test(error.message),
    );
    await assert.rejects(
      queue.enqueue("blob", {}, { key: "x".repeat(513) }),
      TypeError,
    );
    // The key of a refused enqueue is not held either.
    await assert.rejects(
      queue.enqueue("mail", { to: "x" }, { key: "held?" }),
      TypeError,
    );
    assert.equal(
      (await queue.enqueue("mail", { to: "a@b.c" }, { key: "held?" }))
        .duplicate,
      false,
    );
    assert.deepEqual(await queue.stats(), {
      waiting: 1,
      delayed: 0,
      active: 0,
      dead: 0,
    });
  });

  test("a payload of 64 KiB is kept whole", async (open) => {
    const queue = open();
    let got = "";
    queue.define<{ text: string }>("big", (payload) => {
      got = payload.text;
    });
    const text = "x".repeat(65_536 - 12);
    await queue.enqueue("big", { text });
    const worker = queue.work({ pollMs: 10 });
    await until(() => got !== "");
    await worker.stop();
    assert.equal(got, text);
  });

  test("delayMs: delayed, then run", async (open) => {
    const queue = open();
    let ranAt = 0;
    queue.define("later", () => void (ranAt = Date.now()));
    const start = Date.now();
    await queue.enqueue("later", {}, { delayMs: 300 });
    assert.deepEqual(await queue.stats(), {
      waiting: 0,
      delayed: 1,
      active: 0,
      dead: 0,
    });
    const worker = queue.work({ pollMs: 20 });
    await until(() => ranAt > 0);
    await worker.stop();
    assert.ok(ranAt - start >= 300, `${ranAt - start}`);
  });

  test("concurrency: up to n jobs at once", async (open) => {
    const queue = open();
    let now = 0;
    let most = 0;
    let done = 0;
    queue.define("slow", async () => {
      now++;
      most = Math.max(most, now);
      await sleep(30);
      now--;
      done++;
    });
    for (let i = 0; i < 40; i++) await queue.enqueue("slow", { i });
    const worker = queue.work({ concurrency: 8, pollMs: 10 });
    await until(() => done === 40);
    await worker.stop();
    assert.equal(most, 8);
  });

  test("timeoutMs: the signal aborts and the attempt fails", async (open) => {
    const lines: string[] = [];
    const queue = open({ log: (line) => lines.push(line) });
    let aborted: unknown;
    queue.define("stuck", (_payload, job) =>
      new Promise<void>((resolve) => {
        job.signal.addEventListener("abort", () => {
          aborted = job.signal.reason;
          resolve();
        });
      }), { timeoutMs: 50, attempts: 1 });
    await queue.enqueue("stuck", {});
    const worker = queue.work({ pollMs: 10 });
    await until(async () => (await queue.stats()).dead === 1);
    await worker.stop();
    assert.match(String(aborted), /timed out after 50 ms/);
    assert.match(lines[0], /timed out after 50 ms \(dead: no attempts left\)/);
  });

  test("stop({ graceMs }) waits for active jobs, then hands the rest back without counting the attempt", async (open) => {
    const queue = open();
    const attempts: number[] = [];
    let quick = 0;
    let signal: AbortSignal | undefined;
    queue.define("long", (_payload, job) => {
      attempts.push(job.attempt);
      signal = job.signal;
      if (attempts.length === 1) return new Promise(() => {}); // never ends
    });
    queue.define("quick", async () => {
      await sleep(40);
      quick++;
    });
    await queue.enqueue("long", {});
    await queue.enqueue("quick", {});
    const worker = queue.work({ concurrency: 2, pollMs: 10 });
    await until(() => attempts.length === 1);
    await worker.stop({ graceMs: 100 });
    assert.equal(quick, 1); // finished within the grace period
    assert.equal(signal?.aborted, true);
    assert.deepEqual(await queue.stats(), {
      waiting: 1,
      delayed: 0,
      active: 0,
      dead: 0,
    });
    const next = queue.work({ pollMs: 10 });
    await until(() => attempts.length === 2);
    await next.stop();
    assert.deepEqual(attempts, [1, 1]);
  });

  test(
    "a job whose worker died runs again elsewhere after its visibility timeout",
    async (open, stores) => {
      const queue = open();
      const attempts: number[] = [];
      queue.define("job", (_payload, job) => void attempts.push(job.attempt), {
        visibilityTimeoutMs: 300,
      });
      const { id } = await queue.enqueue("job", {});
      // A worker that claims and dies: the store's claim, never settled.
      const claimed = await stores.other.claim(queue.name, 10, Date.now());
      assert.deepEqual(claimed.map((job) => job.id), [id]);
      assert.equal((await queue.stats()).active, 1);
      const worker = queue.work({ pollMs: 20 });
      await sleep(150);
      assert.deepEqual(attempts, []);
      await until(() => attempts.length === 1, 5000);
      await worker.stop();
      assert.deepEqual(attempts, [2]);
      // The dead worker's late settle is refused: its lease is gone.
      assert.equal(
        await stores.other.finish(
          queue.name,
          id,
          claimed[0].lease,
          1000,
          Date.now(),
        ),
        false,
      );
    },
  );

  test(
    "two workers on two handles run every job once",
    async (open, stores) => {
      const queue = open();
      const other = createJobQueue({
        store: stores.other,
        name: queue.name,
        log: () => {},
      });
      const seen = new Map<number, number>();
      const handler = (payload: { i: number }) => {
        seen.set(payload.i, (seen.get(payload.i) ?? 0) + 1);
      };
      queue.define("n", handler);
      other.define("n", handler);
      for (let i = 0; i < 100; i++) await queue.enqueue("n", { i });
      const a = queue.work({ concurrency: 4, pollMs: 10 });
      const b = other.work({ concurrency: 4, pollMs: 10 });
      await until(() => seen.size === 100);
      await Promise.all([a.stop(), b.stop()]);
      assert.ok([...seen.values()].every((count) => count === 1));
    },
  );

  test(
    "an outage: enqueue throws StoreUnavailableError; a worker pauses, keeps its job, and resumes",
    async (open, stores) => {
      const fault = faulty(stores.store);
      const lines: string[] = [];
      const queue = open({
        store: fault.store,
        storeTimeoutMs: 200,
        log: (line) => lines.push(line),
      });
      const runs: number[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      queue.define<{ i: number }>("job", async (payload) => {
        runs.push(payload.i);
        if (payload.i === 1) await gate;
      });
      await queue.enqueue("job", { i: 1 });
      const worker = queue.work({ concurrency: 2, pollMs: 10 });
      await until(() => runs.length === 1);
      fault.down = "fail";
      await assert.rejects(
        queue.enqueue("job", { i: 2 }),
        StoreUnavailableError,
      );
      fault.down = "hang";
      await assert.rejects(
        queue.enqueue("job", { i: 2 }),
        (error: Error) =>
          error instanceof StoreUnavailableError &&
          /did not answer within 200 ms \(enqueue job\)/.test(error.message),
      );
      release(); // the job ends while the store is down
      await sleep(400);
      fault.down = "no";
      await until(async () => (await queue.stats()).active === 0);
      await queue.enqueue("job", { i: 3 });
      await until(() => runs.length === 2);
      await worker.stop();
      assert.deepEqual(runs, [1, 3]);
      assert.deepEqual(await queue.stats(), {
        waiting: 0,
        delayed: 0,
        active: 0,
        dead: 0,
      });
      assert.ok(lines.some((line) => /paused/.test(line)), lines.join("\n"));
      assert.ok(lines.some((line) => /resumed/.test(line)), lines.join("\n"));
    },
  );
}
