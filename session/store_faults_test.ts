// Faults under the session middleware, with real stores: Deno KV closed
// mid-run, redis-server killed and restarted. Requests fail cleanly (503
// with a clear text), the server keeps serving, and once the store is back
// requests succeed again without restarting the app; nothing half-written.

import assert from "node:assert/strict";
import { createClient } from "redis";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { quietErrors } from "../_tools/console.ts";

const SECRET = "faults-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const Key = Symbol("session");

/** An app that counts visits in the session, over a real server. */
function serve(storage: SessionStorage) {
  const router = createRouter({ middleware: [session(Key, storage)] });
  router.get("/", (context) => {
    const current = context.get(Key) as Session;
    const visits = ((current.get("visits") as number | undefined) ?? 0) + 1;
    current.set("visits", visits);
    return new Response(String(visits));
  });
  router.get("/health", () => new Response("ok"));
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
}

/** A browser-like client that keeps the session cookie. */
function client(port: number) {
  let cookie = "";
  return async (path = "/") => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      headers: cookie ? { cookie } : {},
    });
    const setCookie = response.headers.get("set-cookie");
    if (setCookie) cookie = setCookie.split(";")[0];
    return { status: response.status, text: await response.text(), response };
  };
}

Deno.test("faults: Deno KV closed mid-run answers 503, then recovers on a reopened handle", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite" });
  let kv = await Deno.openKv(path);
  // The app's handle on KV; an app reconnects by swapping in a new one.
  const handle = new Proxy({} as Deno.Kv, {
    get(_target, property) {
      const value = Reflect.get(kv, property);
      return typeof value === "function" ? value.bind(kv) : value;
    },
  });
  const server = serve(
    createKvSessionStorage({
      client: handle,
      cookie: { secrets: [SECRET], maxAge: 600 },
    }),
  );
  using logs = quietErrors();
  try {
    const browser = client(server.addr.port);
    assert.equal((await browser()).text, "1");
    assert.equal((await browser()).text, "2");

    kv.close(); // the store goes away
    for (let i = 0; i < 3; i++) {
      const { status, text, response } = await browser();
      assert.equal(status, 503);
      assert.match(text, /session store is not responding/);
      assert.equal(response.headers.get("retry-after"), "5");
      assert.equal(response.headers.get("set-cookie"), null);
    }
    assert.ok(logs.errors.length >= 3, "failures are logged server-side");

    kv = await Deno.openKv(path); // the store is back
    assert.equal((await browser()).text, "3", "session intact: 2 visits + 1");
  } finally {
    await server.shutdown();
    kv.close();
    await Deno.remove(path);
  }
});

Deno.test("faults: a KV write failing mid-request leaves the stored session as it was", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite" });
  const kv = await Deno.openKv(path);
  let failCommit = false;
  const handle = new Proxy({} as Deno.Kv, {
    get(_target, property) {
      if (property === "atomic") {
        return () => {
          const operation = kv.atomic();
          return new Proxy(operation, {
            get(target, name) {
              if (name === "commit" && failCommit) {
                return () => Promise.reject(new Error("database is locked"));
              }
              const value = Reflect.get(target, name);
              return typeof value === "function" ? value.bind(target) : value;
            },
          });
        };
      }
      const value = Reflect.get(kv, property);
      return typeof value === "function" ? value.bind(kv) : value;
    },
  });
  const server = serve(
    createKvSessionStorage({ client: handle, cookie: { secrets: [SECRET] } }),
  );
  using logs = quietErrors();
  try {
    const browser = client(server.addr.port);
    assert.equal((await browser()).text, "1");
    failCommit = true;
    const started = performance.now();
    assert.equal((await browser()).status, 503);
    // Retried with backoff until the budget was spent, and said so.
    const took = performance.now() - started;
    assert.ok(took > 1500 && took < 4000, `gave up after ${took} ms`);
    assert.match(
      String(logs.errors.flat().find((e) => e instanceof Error)),
      /Deno KV stayed locked by another process: \d+ attempts in \d+ ms \(retry budget 2000 ms\)/,
    );
    failCommit = false;
    // The failed write changed nothing: the count goes on from 1.
    assert.equal((await browser()).text, "2");
  } finally {
    await server.shutdown();
    kv.close();
    await Deno.remove(path);
  }
});

/**
 * Kills redis-server under a running app and starts it again on the same
 * port: requests get 503 meanwhile and succeed again after the restart,
 * with the same client and app.
 */
async function redisRestart(
  clientOptions: Record<string, unknown>,
  timeout?: number,
): Promise<void> {
  const redisPath = await redisServerOrSkip();
  if (redisPath === undefined) return;
  let redis = await startRedis(redisPath);
  const port = Number(new URL(redis.url).port);
  const redisClient = createClient({ url: redis.url, ...clientOptions });
  redisClient.on("error", () => {}); // reconnect errors are expected here
  await redisClient.connect();
  const server = serve(
    createRedisSessionStorage({
      client: redisClient,
      cookie: { secrets: [SECRET], maxAge: 600 },
      timeout,
    }),
  );
  using _logs = quietErrors();
  try {
    const browser = client(server.addr.port);
    assert.equal((await browser()).text, "1");

    await redis.stop(); // killed: its data is gone with it (no persistence)
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const { status, text } = await browser();
      assert.equal(status, 503);
      assert.match(text, /session store is not responding/);
      assert.ok(performance.now() - started < 3000, "answered in time");
    }

    redis = await startRedis(redisPath, port);
    let recovered = false;
    for (let i = 0; i < 50 && !recovered; i++) {
      recovered = (await browser()).status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(recovered, "requests succeed again after the restart");
    // A new session (the old data died with the server), counting again.
    assert.equal((await browser()).text, "2");
  } finally {
    await server.shutdown();
    await redisClient.close().catch(() => {});
    await redis.stop();
  }
}

Deno.test({
  name:
    "faults: redis-server killed and restarted answers 503, then recovers without an app restart",
  sanitizeResources: false,
  sanitizeOps: false,
  // Commands fail at once while disconnected; reconnect quickly.
  fn: () =>
    redisRestart({
      disableOfflineQueue: true,
      socket: { reconnectStrategy: () => 100, connectTimeout: 1000 },
    }),
});

Deno.test({
  name:
    "faults: with node-redis' offline queue, a dead Redis still gives 503 within the storage timeout",
  sanitizeResources: false,
  sanitizeOps: false,
  // The default client queues commands while disconnected: only the
  // storage's timeout keeps requests from hanging.
  fn: () => redisRestart({ socket: { reconnectStrategy: () => 100 } }, 300),
});
