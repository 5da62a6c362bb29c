// Two server processes sharing one session store: a session written
// through one is read and changed through the other.

import assert from "node:assert/strict";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import {
  type ServerProcess,
  startServerProcess,
} from "../_tools/server_process.ts";

const redisServer = await redisServerOrSkip();
const serverScript = new URL("./_test_server.ts", import.meta.url).pathname;

function startServer(
  kind: string,
  target: string,
  barrier?: number,
): Promise<ServerProcess> {
  return startServerProcess(serverScript, [
    kind,
    target,
    ...(barrier === undefined ? [] : [String(barrier)]),
  ], {
    flags: [
      "--unstable-kv",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-sys",
    ],
  });
}

/** Sends a request with `cookie`; returns the body and the new cookie. */
async function call(
  server: ServerProcess,
  method: string,
  path: string,
  cookie: string | undefined,
): Promise<
  {
    body: { id: string; values: Record<string, unknown> };
    cookie: string | undefined;
  }
> {
  const response = await fetch(server.origin + path, {
    method,
    headers: cookie === undefined ? {} : { cookie },
  });
  const setCookie = response.headers.getSetCookie()[0];
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return {
    body: text === "destroyed" ? { id: "", values: {} } : JSON.parse(text),
    cookie: setCookie === undefined
      ? cookie
      : /Max-Age=0/.test(setCookie)
      ? undefined
      : setCookie.split(";")[0],
  };
}

async function shareSessions(
  a: ServerProcess,
  b: ServerProcess,
): Promise<void> {
  let cookie: string | undefined;
  const written = await call(a, "POST", "/set/user/ada", cookie);
  cookie = written.cookie;
  assert.ok(cookie);
  const read = await call(b, "GET", "/all?names=user", cookie);
  assert.deepEqual(read.body.values, { user: "ada" });
  assert.equal(read.body.id, written.body.id);
  cookie = (await call(b, "POST", "/set/role/admin", cookie)).cookie;
  const both = await call(a, "GET", "/all?names=user,role", cookie);
  assert.deepEqual(both.body.values, { user: "ada", role: "admin" });
  // Concurrent writes through both servers are all kept.
  await Promise.all(
    ["k0", "k1", "k2", "k3"].map((name, i) =>
      call(i % 2 ? a : b, "POST", `/set/${name}/${i}`, cookie)
    ),
  );
  const merged = await call(b, "GET", "/all?names=k0,k1,k2,k3", cookie);
  assert.deepEqual(merged.body.values, { k0: "0", k1: "1", k2: "2", k3: "3" });
  // Regenerated on one, the old id is dead on the other.
  const oldCookie = cookie;
  cookie = (await call(a, "POST", "/regenerate/true", cookie)).cookie;
  assert.notEqual(cookie, oldCookie);
  assert.deepEqual(
    (await call(b, "GET", "/all?names=user", cookie)).body.values,
    { user: "ada" },
  );
  assert.deepEqual(
    (await call(b, "GET", "/all?names=user", oldCookie)).body.values,
    {},
  );
  // Destroyed on one, gone on the other.
  const destroyed = await call(b, "POST", "/destroy", cookie);
  assert.equal(destroyed.cookie, undefined);
  assert.deepEqual(
    (await call(a, "GET", "/all?names=user", cookie)).body.values,
    {},
  );
}

const WRITERS = 100;

/**
 * 100 concurrent writers on one session through each server, all loaded
 * before any saves: every request is answered 200 and all 200 changes
 * survive, whichever server made them.
 */
async function contend(a: ServerProcess, b: ServerProcess): Promise<void> {
  const { cookie } = await call(a, "POST", "/set/base/0", undefined);
  const names = Array.from({ length: 2 * WRITERS }, (_, i) => `k${i}`);
  const statuses = await Promise.all(names.map(async (name, i) => {
    const server = i % 2 === 0 ? a : b;
    const response = await fetch(`${server.origin}/set/${name}/${i}?gate=all`, {
      method: "POST",
      headers: { cookie: cookie! },
    });
    await response.body?.cancel();
    return response.status;
  }));
  const failed = statuses.filter((status) => status !== 200);
  assert.deepEqual(failed, [], `${failed.length} writers not answered 200`);
  for (const server of [a, b]) {
    const { body } = await call(
      server,
      "GET",
      `/all?names=base,${names}`,
      cookie,
    );
    const missing = names.filter((name, i) => body.values[name] !== String(i));
    assert.deepEqual(missing, [], `${missing.length} keys lost`);
  }
}

Deno.test("two servers x 100 concurrent writers on one session, one Deno KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "session-kv-" });
  const path = `${dir}/sessions.sqlite`;
  const a = await startServer("kv", path, WRITERS);
  const b = await startServer("kv", path, WRITERS).catch(async (error) => {
    await a.stop();
    throw error;
  });
  try {
    await contend(a, b);
  } finally {
    await a.stop();
    await b.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "two servers x 100 concurrent writers on one session, one redis-server",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      const a = await startServer("redis", redis.url, WRITERS);
      const b = await startServer("redis", redis.url, WRITERS).catch(
        async (error) => {
          await a.stop();
          throw error;
        },
      );
      try {
        await contend(a, b);
      } finally {
        await a.stop();
        await b.stop();
      }
    } finally {
      await redis.stop();
    }
  },
});

Deno.test("two servers share sessions through one Deno KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "session-kv-" });
  const path = `${dir}/sessions.sqlite`;
  const a = await startServer("kv", path);
  const b = await startServer("kv", path).catch(async (error) => {
    await a.stop();
    throw error;
  });
  try {
    await shareSessions(a, b);
  } finally {
    await a.stop();
    await b.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "two servers share sessions through one redis-server",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    try {
      const a = await startServer("redis", redis.url);
      const b = await startServer("redis", redis.url).catch(async (error) => {
        await a.stop();
        throw error;
      });
      try {
        await shareSessions(a, b);
      } finally {
        await a.stop();
        await b.stop();
      }
    } finally {
      await redis.stop();
    }
  },
});
