/**
 * Sessions under contention, and the cost of one save without it.
 *
 * 1. 200 concurrent writers on one session over real HTTP (each sets its own
 *    name; every handler is held until all 200 have loaded the session, so
 *    the saves overlap as much as they can): time from the first request to
 *    the last answer, and how many were not answered 200, on memory, a Deno
 *    KV file and Redis (when `redis-server` is installed).
 * 2. One writer at a time through `router.fetch` (a `POST` that changes the
 *    session, with a valid cookie): µs of CPU per request, memory and Deno
 *    KV (`:memory:`).
 *
 * With `--against <dir>`, the storages of another checkout (for example a
 * worktree of the main branch) run interleaved with this one's, round by
 * round, and both are reported.
 *
 * Run: deno run --unstable-kv --allow-all bench/session/contention.ts [--against <dir>] [--rounds 9]
 */
import process from "node:process";
import { createClient } from "redis";
import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import {
  type Session,
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { median, quantile } from "../_stats.ts";
import {
  type RedisServer,
  redisServerOrSkip,
  startRedis,
} from "../../_tools/redis.ts";

const args = Deno.args;
const option = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const against = option("--against");
const rounds = Number(option("--rounds") ?? 9);
const WRITERS = 200;
const SEQUENTIAL = 3000;

const cookie = {
  secrets: ["bench-secret-0123456789abcdefghijklmnopqrstuvwxyz"],
  maxAge: 3600,
};

interface Storages {
  memory(): SessionStorage;
  kv(client: Deno.Kv): SessionStorage;
  redis(client: unknown): SessionStorage;
}
// deno-lint-ignore no-explicit-any
type AnyModule = any;

/** The storage constructors of the checkout at `dir`. */
async function storagesOf(dir: string): Promise<Storages> {
  const base = new URL(`${dir.replace(/\/?$/, "/")}session/`, `file://`);
  const memory: AnyModule = await import(
    new URL("memory_storage.ts", base).href
  );
  const kv: AnyModule = await import(new URL("kv_storage.ts", base).href);
  const redis: AnyModule = await import(
    new URL("redis_storage.ts", base).href
  );
  return {
    memory: () => memory.createMemorySessionStorage({ cookie }),
    kv: (client) => kv.createKvSessionStorage({ client, cookie }),
    redis: (client) => redis.createRedisSessionStorage({ client, cookie }),
  };
}

const here = new URL("../../", import.meta.url).pathname;
const contenders: [string, Storages][] = [["this", await storagesOf(here)]];
if (against !== undefined) {
  contenders.push([against, await storagesOf(against)]);
}

/** The app: `POST /set/:name` sets a name, held at a barrier first. */
function app(storage: SessionStorage, barrier?: () => Promise<void>): Router {
  const Key = createContextKey<Session>();
  const router = createRouter({ middleware: [session(Key, storage)] });
  router.post("/set/:name", async (context) => {
    const current = context.get(Key)!;
    current.set(context.params.name!, 1);
    if (barrier !== undefined) await barrier();
    return new Response("ok");
  });
  return router;
}

function createBarrier(count: number): () => Promise<void> {
  const released = Promise.withResolvers<void>();
  let entered = 0;
  return () => {
    if (++entered === count) released.resolve();
    return released.promise;
  };
}

/** One round of 200 concurrent writers over HTTP; ms and failures. */
async function concurrentRound(
  storage: SessionStorage,
): Promise<{ ms: number; failed: number }> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    app(storage, createBarrier(WRITERS)).fetch,
  );
  try {
    const origin = `http://127.0.0.1:${server.addr.port}`;
    // A session to contend on (the login).
    const login = await app(storage).fetch(
      new Request("http://localhost/set/base", { method: "POST" }),
    );
    const header = login.headers.getSetCookie()[0].split(";")[0];
    const start = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: WRITERS }, async (_, i) => {
        const response = await fetch(`${origin}/set/k${i}`, {
          method: "POST",
          headers: { cookie: header },
        });
        await response.body?.cancel();
        return response.status;
      }),
    );
    const ms = performance.now() - start;
    return { ms, failed: statuses.filter((status) => status !== 200).length };
  } finally {
    await server.shutdown();
  }
}

/** µs of CPU per request for `SEQUENTIAL` single writes. */
async function sequentialRound(storage: SessionStorage): Promise<number> {
  const router = app(storage);
  const login = await router.fetch(
    new Request("http://localhost/set/base", { method: "POST" }),
  );
  const header = login.headers.getSetCookie()[0].split(";")[0];
  const requests = Array.from(
    { length: SEQUENTIAL },
    (_, i) =>
      new Request(`http://localhost/set/n${i % 8}`, {
        method: "POST",
        headers: { cookie: header },
      }),
  );
  const before = process.cpuUsage();
  for (const request of requests) {
    const response = await router.fetch(request);
    await response.body?.cancel();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / SEQUENTIAL;
}

// The previous code logs every failed save; only the count matters here.
console.error = () => {};

const dir = await Deno.makeTempDir({ prefix: "session-contention-bench-" });
const redisPath = await redisServerOrSkip();
let redis: RedisServer | undefined;
let redisClient: ReturnType<typeof createClient> | undefined;
if (redisPath !== undefined) {
  redis = await startRedis(redisPath);
  redisClient = createClient({ url: redis.url });
  await redisClient.connect();
}
const memoryKv = await Deno.openKv(":memory:");

type Row = { ms: number[]; failed: number[] };
const concurrent = new Map<string, Row>();
const sequential = new Map<string, number[]>();
const row = (key: string) => {
  if (!concurrent.has(key)) concurrent.set(key, { ms: [], failed: [] });
  return concurrent.get(key)!;
};

try {
  let file = 0;
  for (let round = 0; round < rounds + 1; round++) {
    // The first round warms up and is not counted; the order alternates.
    const order = round % 2 === 0 ? contenders : contenders.toReversed();
    for (const [name, storages] of order) {
      const kvFile = await Deno.openKv(`${dir}/sessions-${file++}.sqlite`);
      const cases: [string, () => SessionStorage][] = [
        ["memory", () => storages.memory()],
        ["Deno KV file", () => storages.kv(kvFile)],
      ];
      if (redisClient !== undefined) {
        cases.push(["Redis", () => storages.redis(redisClient)]);
      }
      for (const [kind, make] of cases) {
        const result = await concurrentRound(make());
        if (round === 0) continue;
        row(`${kind} | ${name}`).ms.push(result.ms);
        row(`${kind} | ${name}`).failed.push(result.failed);
      }
      kvFile.close();
      for (
        const [kind, make] of [
          ["memory", () => storages.memory()],
          ["Deno KV :memory:", () => storages.kv(memoryKv)],
        ] as const
      ) {
        const us = await sequentialRound(make());
        if (round === 0) continue;
        const key = `${kind} | ${name}`;
        sequential.set(key, [...(sequential.get(key) ?? []), us]);
      }
    }
  }
} finally {
  memoryKv.close();
  await redisClient?.quit();
  await redis?.stop();
  await Deno.remove(dir, { recursive: true });
}

const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${
    quantile(values, 0.25).toFixed(digits)
  }-${quantile(values, 0.75).toFixed(digits)})`;

console.log(
  `Deno ${Deno.version.deno}, ${rounds} rounds after one warm-up, contenders interleaved\n`,
);
console.log(
  `${WRITERS} concurrent writers on one session over HTTP: median ms (quartiles), answers other than 200 (median per round)\n`,
);
console.log("| storage | code | ms for all | not 200 |");
console.log("| --- | --- | ---: | ---: |");
for (const [key, { ms, failed }] of concurrent) {
  console.log(`| ${key} | ${spread(ms, 0)} | ${median(failed)} |`);
}
console.log(
  `\nOne writer at a time through router.fetch: µs of CPU per request, median (quartiles) of ${SEQUENTIAL}-request rounds\n`,
);
console.log("| storage | code | µs CPU/request |");
console.log("| --- | --- | ---: |");
for (const [key, values] of sequential) {
  console.log(`| ${key} | ${spread(values, 1)} |`);
}
