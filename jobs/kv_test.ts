// The job store suite on Deno KV: two handles on one database file, as
// two processes would have.
import assert from "node:assert/strict";
import { createJobQueue, createKvJobStore } from "@fetchkit/toolkit/jobs";
import { jobStoreSuite, until } from "./_test_suite.ts";

jobStoreSuite({
  name: "kv job store",
  async open() {
    const dir = await Deno.makeTempDir({ prefix: "jobs-kv-" });
    const one = await Deno.openKv(`${dir}/kv.db`);
    const two = await Deno.openKv(`${dir}/kv.db`);
    return {
      store: createKvJobStore(one),
      other: createKvJobStore(two),
      async done() {
        one.close();
        two.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
});

Deno.test({
  name: "kv job store: two processes on one database file run every job once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "jobs-kv2-" });
    const path = `${dir}/kv.db`;
    const kv = await Deno.openKv(path);
    const queue = createJobQueue({ store: createKvJobStore(kv), name: "two" });
    queue.define("effect", () => {});
    const total = 300;
    for (let i = 0; i < total; i++) await queue.enqueue("effect", { i });
    const children = [0, 1].map(() =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--unstable-kv",
          new URL("./_test_worker_process.ts", import.meta.url).pathname,
          "kv",
          path,
          "two",
          "4",
        ],
        stdout: "null",
        stderr: "inherit",
      }).spawn()
    );
    try {
      await until(
        async () =>
          (await queue.stats()).waiting === 0 &&
          (await queue.stats()).active === 0,
        60_000,
        "every job done",
      );
      const counts: number[] = [];
      for await (const entry of kv.list({ prefix: ["effects", "two"] })) {
        counts.push(Number((entry.value as Deno.KvU64).value));
      }
      assert.equal(counts.length, total);
      assert.ok(counts.every((n) => n === 1));
    } finally {
      for (const child of children) child.kill("SIGTERM");
      await Promise.all(children.map((child) => child.status));
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "kv job store: a commit or read that finds SQLite locked is tried again",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const kv = await Deno.openKv(":memory:");
    // SQLite answers a transaction whose snapshot went stale under another
    // connection's write with this error at once, without waiting.
    let locks = 0;
    const lockedTwice = <T>(call: () => Promise<T>) => (): Promise<T> => {
      if (locks++ % 3 < 2) {
        return Promise.reject(new TypeError("database is locked"));
      }
      return call();
    };
    const flaky = {
      get: (key: Deno.KvKey) => lockedTwice(() => kv.get(key))(),
      getMany: (keys: Deno.KvKey[]) => lockedTwice(() => kv.getMany(keys))(),
      list: kv.list.bind(kv),
      atomic() {
        const operation = kv.atomic();
        const commit = operation.commit.bind(operation);
        operation.commit = lockedTwice(commit) as typeof operation.commit;
        return operation;
      },
    } as unknown as Deno.Kv;
    try {
      const queue = createJobQueue({
        store: createKvJobStore(flaky),
        name: "lock",
      });
      let ran = 0;
      queue.define("effect", () => void ran++);
      await queue.enqueue("effect", { i: 0 });
      await queue.enqueue("effect", { i: 1 }, { key: "one" });
      assert.equal((await queue.stats()).waiting, 2);
      const worker = queue.work({ pollMs: 10 });
      await until(() => ran === 2);
      await worker.stop();
      assert.ok(locks >= 6, `${locks} calls`);
    } finally {
      kv.close();
    }
  },
});
