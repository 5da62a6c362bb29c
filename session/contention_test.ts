// Many concurrent requests changing one session, over real HTTP: every one
// is answered 200 and every change survives, on memory, a Deno KV file and
// Redis. Saves of one id run one after another within a process, so the
// store never sees two writers of one session from this process.

import assert from "node:assert/strict";
import { createClient } from "redis";
import type {
  Session,
  SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { app, createBarrier, Jar, send } from "./_test_app.ts";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import {
  createIdSessionStorage,
  SessionConflictError,
  type SessionStore,
} from "./_id_storage.ts";

const redisServer = await redisServerOrSkip();
const cookie = {
  secrets: ["contention-secret-0123456789abcdefghijklmnop"],
  maxAge: 3600,
};
const WRITERS = 200;

/**
 * Serves the test app on a free port, logs in once, then sends `writers`
 * concurrent `POST /set/k<i>/<i>` with the same cookie, all loaded before
 * any saves. Returns the statuses and the values read back afterwards.
 */
async function writeConcurrently(
  storage: SessionStorage,
  writers: number,
): Promise<{ statuses: number[]; values: Record<string, unknown> }> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    app(storage, { all: createBarrier(writers) }).fetch,
  );
  try {
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const first = await fetch(`${origin}/set/base/0`, { method: "POST" });
    await first.body?.cancel();
    const sessionCookie = first.headers.getSetCookie()[0].split(";")[0];
    const names = Array.from({ length: writers }, (_, i) => `k${i}`);
    const statuses = await Promise.all(names.map(async (name, i) => {
      const response = await fetch(`${origin}/set/${name}/${i}?gate=all`, {
        method: "POST",
        headers: { cookie: sessionCookie },
      });
      await response.body?.cancel();
      return response.status;
    }));
    const read = await fetch(`${origin}/all?names=base,${names}`, {
      headers: { cookie: sessionCookie },
    });
    const { values } = await read.json();
    return { statuses, values };
  } finally {
    await server.shutdown();
  }
}

function assertAllKept(
  { statuses, values }: Awaited<ReturnType<typeof writeConcurrently>>,
): void {
  const failed = statuses.filter((status) => status !== 200);
  assert.deepEqual(failed, [], `${failed.length} writers not answered 200`);
  const missing = Array.from({ length: WRITERS }, (_, i) => i).filter((i) =>
    values[`k${i}`] !== String(i)
  );
  assert.deepEqual(missing, [], `${missing.length} keys lost`);
  assert.equal(values.base, "0");
}

Deno.test("contention: 200 concurrent writers on one session, memory storage", async () => {
  assertAllKept(
    await writeConcurrently(createMemorySessionStorage({ cookie }), WRITERS),
  );
});

/**
 * A KV handle that counts commits and how many of them were in flight at
 * once, and how many failed their check.
 */
function watchedKv(kv: Deno.Kv) {
  const stats = { commits: 0, failed: 0, inFlight: 0, maxInFlight: 0 };
  const client = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (property !== "atomic") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const operation = target.atomic();
        const commit = operation.commit.bind(operation);
        operation.commit = async () => {
          stats.commits++;
          stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
          try {
            const result = await commit();
            if (!result.ok) stats.failed++;
            return result;
          } finally {
            stats.inFlight--;
          }
        };
        return operation;
      };
    },
  });
  return { client, stats };
}

Deno.test("contention: 200 concurrent writers on one session, Deno KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "session-contention-" });
  const kv = await Deno.openKv(`${dir}/sessions.sqlite`);
  try {
    const { client, stats } = watchedKv(kv);
    assertAllKept(
      await writeConcurrently(
        createKvSessionStorage({ client, cookie }),
        WRITERS,
      ),
    );
    // One writer of the session at a time, and no write lost a race: each
    // built on the one before it. The saves that waited for the first one
    // were written together: the login, the first save, then one batch.
    assert.equal(stats.maxInFlight, 1);
    assert.equal(stats.failed, 0);
    assert.equal(stats.commits, 3);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("contention: two Deno KV handles on one file, 100 writers each", async () => {
  const dir = await Deno.makeTempDir({ prefix: "session-contention-" });
  const handles = [
    await Deno.openKv(`${dir}/sessions.sqlite`),
    await Deno.openKv(`${dir}/sessions.sqlite`),
  ];
  try {
    const gate = { all: createBarrier(WRITERS) };
    const watched = handles.map(watchedKv);
    const [a, b] = watched.map(({ client }) =>
      app(createKvSessionStorage({ client, cookie }), gate)
    );
    const jar = new Jar();
    await send(a, jar, "POST", "/set/base/0");
    const names = Array.from({ length: WRITERS }, (_, i) => `k${i}`);
    await Promise.all(names.map((name, i) => {
      const own = new Jar();
      own.cookie = jar.cookie;
      // send() throws on any status but 200.
      return send(i % 2 ? a : b, own, "POST", `/set/${name}/${i}?gate=all`);
    }));
    const { body } = await send(b, jar, "GET", `/all?names=base,${names}`);
    assertAllKept({ statuses: [], values: body.values });
    // The two storages raced (a lost compare-and-set, then a retry on the
    // newer entry): the path servers sharing a database take.
    const failed = watched[0].stats.failed + watched[1].stats.failed;
    assert.ok(failed >= 1, "no write lost a race");
  } finally {
    for (const handle of handles) handle.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "contention: 200 concurrent writers on one session, Redis",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = await createClient({ url: redis.url }).connect();
    try {
      assertAllKept(
        await writeConcurrently(
          createRedisSessionStorage({ client, cookie }),
          WRITERS,
        ),
      );
    } finally {
      await client.quit();
      await redis.stop();
    }
  },
});

Deno.test("contention: the same name written concurrently keeps the last save", async () => {
  const storage = createMemorySessionStorage({ cookie });
  const first = await storage.read(null);
  first.set("color", "none");
  const header = (await storage.save(first))!.split(";")[0];
  // All load the same version, then save in this order.
  const sessions = await Promise.all(
    ["red", "green", "blue"].map(() => storage.read(header)),
  );
  ["red", "green", "blue"].forEach((color, i) =>
    sessions[i].set("color", color)
  );
  await Promise.all(sessions.map((session) => storage.save(session)));
  assert.equal((await storage.read(header)).get("color"), "blue");
});

/** A store where another server always wrote first. */
function alwaysConflicting(): SessionStore & { writes: number } {
  const json = JSON.stringify({ v: { user: "ada" }, e: Date.now() + 60_000 });
  let version = 0;
  return {
    writes: 0,
    get: () => Promise.resolve({ json, version: ++version }),
    write(write) {
      this.writes++;
      return Promise.resolve(
        write.loaded === undefined ? { version: 0 } : null,
      );
    },
    delete: () => Promise.resolve(),
  };
}

Deno.test("contention: a save that keeps losing to other servers gives up after its budget, saying so", async () => {
  const store = alwaysConflicting();
  const storage = createIdSessionStorage(cookie, store, { retryBudgetMs: 150 });
  const signed = createIdSessionStorage(cookie, {
    get: () => Promise.resolve(null),
    write: () => Promise.resolve({ version: 0 }),
    delete: () => Promise.resolve(),
  });
  // A validly signed cookie, as the storage would have issued it.
  const fresh = await signed.read(null);
  fresh.set("user", "ada");
  const header = (await signed.save(fresh))!.split(";")[0];
  const session = await storage.read(header);
  assert.equal(session.get("user"), "ada");
  session.set("cart", 1);
  const started = performance.now();
  const error = await storage.save(session).then(
    () => assert.fail("the save should give up"),
    (error) => error,
  );
  const took = performance.now() - started;
  assert.ok(error instanceof SessionConflictError, String(error));
  assert.match(
    error.message,
    /^Session save gave up after (\d+) attempts in \d+ ms \(retry budget 150 ms\)/,
  );
  const attempts = Number(/after (\d+) attempts/.exec(error.message)![1]);
  assert.equal(attempts, store.writes);
  // Backoff, not a busy loop: a handful of attempts, not thousands.
  assert.ok(attempts >= 3 && attempts < 60, `${attempts} attempts`);
  assert.ok(took >= 50 && took < 1000, `gave up after ${took} ms`);
});

/** Reads the session behind `header` `count` times, as concurrent requests do. */
function readMany(
  storage: SessionStorage,
  header: string,
  count: number,
): Promise<Session[]> {
  return Promise.all(
    Array.from({ length: count }, () => storage.read(header)),
  );
}

/** Logs in once on `storage`; the `Cookie` header to send back. */
async function login(storage: SessionStorage): Promise<string> {
  const first = await storage.read(null);
  first.set("base", 0);
  return (await storage.save(first))!.split(";")[0];
}

Deno.test("contention: saves written together where one is too large: only that one fails", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const storage = createKvSessionStorage({ client: kv, cookie });
    const header = await login(storage);
    const sessions = await readMany(storage, header, 5);
    sessions.forEach((session, i) => session.set(`k${i}`, i));
    sessions[2].set("big", "x".repeat(70_000));
    const results = await Promise.allSettled(
      sessions.map((session) => storage.save(session)),
    );
    assert.deepEqual(results.map((result) => result.status), [
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    const failed = results[2] as PromiseRejectedResult;
    assert.ok(failed.reason instanceof RangeError, String(failed.reason));
    const after = await storage.read(header);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => after.get(`k${i}`)),
      [0, 1, undefined, 3, 4],
    );
    assert.equal(after.get("big"), undefined);
  } finally {
    kv.close();
  }
});

Deno.test("contention: when the store fails, the saves waiting behind fail at once with it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let failing = false;
    let commits = 0;
    const client = new Proxy(kv, {
      get(target, property) {
        if (property === "atomic") {
          return () => {
            const operation = target.atomic();
            const commit = operation.commit.bind(operation);
            operation.commit = () => {
              commits++;
              return failing
                ? Promise.reject(new Error("store is down"))
                : commit();
            };
            return operation;
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const storage = createKvSessionStorage({ client, cookie });
    const header = await login(storage);
    const sessions = await readMany(storage, header, 20);
    sessions.forEach((session, i) => session.set(`k${i}`, i));
    failing = true;
    commits = 0;
    const results = await Promise.allSettled(
      sessions.map((session) => storage.save(session)),
    );
    for (const result of results) {
      assert.equal(result.status, "rejected");
      assert.match(String(result.reason), /store is down/);
    }
    assert.equal(commits, 1, "the waiting saves did not try again, one by one");
    // The queue is gone: the next save tries the store again.
    failing = false;
    const next = await storage.read(header);
    next.set("again", true);
    assert.ok(await storage.save(next));
  } finally {
    kv.close();
  }
});

Deno.test("contention: a destroy queued between writes is kept, in order", async () => {
  const storage = createMemorySessionStorage({ cookie });
  const header = await login(storage);
  const [a, b, c, d] = await readMany(storage, header, 4);
  a.set("a", 1);
  b.destroy();
  c.set("c", 1);
  d.set("d", 1);
  const cookies = await Promise.all([a, b, c, d].map((s) => storage.save(s)));
  assert.match(cookies[0]!, /^__session=/);
  assert.match(cookies[1]!, /Max-Age=0/);
  // Saved after the destroy: not brought back, and no cookie for it.
  assert.deepEqual(cookies.slice(2), [null, null]);
  const after = await storage.read(header);
  assert.equal(after.get("base"), undefined);
  assert.notEqual(after.id, a.id);
});

Deno.test("contention: a flash read by concurrent requests is gone afterwards", async () => {
  const storage = createMemorySessionStorage({ cookie });
  const header = await login(storage);
  const flashing = await storage.read(header);
  flashing.flash("notice", "saved");
  await storage.save(flashing);
  const sessions = await readMany(storage, header, 3);
  for (const session of sessions) assert.equal(session.get("notice"), "saved");
  sessions.forEach((session, i) => session.set(`k${i}`, i));
  await Promise.all(sessions.map((session) => storage.save(session)));
  const after = await storage.read(header);
  assert.equal(after.get("notice"), undefined);
  assert.deepEqual([after.get("k0"), after.get("k1"), after.get("k2")], [
    0,
    1,
    2,
  ]);
});

/**
 * A store shared by two storages, as by two servers, whose calls take a
 * random few milliseconds, so that reads, merges and compare-and-set writes
 * interleave differently on every run.
 */
function slowSharedStore(
  random: () => number,
): SessionStore & { conflicts: number } {
  const entries = new Map<string, { json: string; version: number }>();
  let versions = 0;
  const pause = () =>
    new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
  return {
    conflicts: 0,
    async get(id) {
      await pause();
      const entry = entries.get(id);
      return entry === undefined ? null : { ...entry };
    },
    async write({ id, record, loaded, deleteId }) {
      await pause();
      const current = entries.get(loaded?.id ?? id);
      if (
        loaded === undefined
          ? current !== undefined
          : current?.version !== loaded.version
      ) {
        this.conflicts++;
        return null;
      }
      if (deleteId !== undefined) entries.delete(deleteId);
      const entry = { json: JSON.stringify(record), version: ++versions };
      entries.set(id, entry);
      return { version: entry.version };
    },
    async delete(id) {
      await pause();
      entries.delete(id);
    },
  };
}

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("contention: random interleavings of two servers' saves keep every change", async () => {
  let conflicts = 0;
  for (let seed = 1; seed <= 20; seed++) {
    const random = seeded(seed);
    const store = slowSharedStore(random);
    const servers = [
      createIdSessionStorage(cookie, store),
      createIdSessionStorage(cookie, store),
    ];
    const header = await login(servers[0]);
    const requests = 40;
    await Promise.all(
      Array.from({ length: requests }, async (_, i) => {
        const storage = servers[random() < 0.5 ? 0 : 1];
        await new Promise((resolve) => setTimeout(resolve, random() * 5));
        const session = await storage.read(header);
        session.set(`k${i}`, i);
        if (i % 5 === 0) session.unset("base");
        await new Promise((resolve) => setTimeout(resolve, random() * 3));
        assert.ok(await storage.save(session), `seed ${seed}: save ${i}`);
      }),
    );
    const after = await servers[1].read(header);
    const missing = Array.from({ length: requests }, (_, i) => i).filter((i) =>
      after.get(`k${i}`) !== i
    );
    assert.deepEqual(missing, [], `seed ${seed}: lost keys`);
    assert.equal(after.has("base"), false, `seed ${seed}: an unset came back`);
    conflicts += store.conflicts;
  }
  // The servers did race: saves lost compare-and-sets and merged.
  assert.ok(conflicts >= 5, `only ${conflicts} conflicts in 20 runs`);
});
