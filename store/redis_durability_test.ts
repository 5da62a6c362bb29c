// Durability of security-relevant writes on Redis: on a real Redis
// Cluster (3 masters, 3 replicas; Valkey with REDIS_SERVER=valkey-server)
// with every replica frozen (SIGSTOP: a replica that lags without end), a
// sign-out, a regenerated session id, the rate-limit count that reaches
// the limit and an idempotency claim are refused with 503 rather than
// confirmed while only the master has them (a failover then would lose
// them). The mode is on by default for a cluster client; `durability:
// "none"` turns it off; a one-node client has it off by default and on
// when asked.
import assert from "node:assert/strict";
import { createClient, createCluster } from "redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import {
  createRedisRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
import { createRedisCacheStore } from "@fetchkit/toolkit/cache-middleware";
import {
  clusterToolsOrSkip,
  type RedisCluster,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import {
  findExecutable,
  redisServerOrSkip,
  startRedis,
} from "../_tools/redis.ts";
import { quietErrors } from "../_tools/console.ts";

const tools = await clusterToolsOrSkip();
const redisServer = await redisServerOrSkip();
// WAITAOF is Redis and Valkey 7.2 and later: Debian's Valkey 8 has it.
const valkey = await findExecutable("valkey-server");
if (valkey === undefined) {
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(
      "valkey-server is not installed, and CI or TOOLKIT_REQUIRE_ALL is set",
    );
  }
  console.log(
    'skipping durability "replica-aof" tests: valkey-server is not installed',
  );
}
const SECRET = "durability-secret-0123456789abcdef";
const address = { hostname: "192.0.2.9", port: 1, transport: "tcp" as const };

/** A jar of one cookie. */
class Jar {
  cookie: string | undefined;
  take(response: Response): void {
    const line = response.headers.getSetCookie().find((line) =>
      line.startsWith("__session=")
    );
    if (line === undefined) return;
    this.cookie = /Max-Age=0/.test(line) ? undefined : line.split(";")[0];
  }
}

type Client = Parameters<typeof createRedisSessionStorage>[0]["client"];

/** An app with sign-in, regenerate, sign-out, a lockout and an order. */
function durableApp(
  client: Client,
  options: {
    durability?: "replica" | "replica-aof" | "none";
    replicaTimeout?: number;
  } = {},
  tag: string = crypto.randomUUID(),
) {
  const Key = createContextKey<Session>();
  const storage = createRedisSessionStorage({
    client,
    cookie: { secrets: [SECRET], maxAge: 600 },
    ...options,
  });
  const router = createRouter({ middleware: [session(Key, storage)] });
  router.post("/login", (context) => {
    const current = context.get(Key)!;
    current.regenerateId(true);
    current.set("user", "ada");
    return new Response("signed in");
  });
  router.post("/regenerate", (context) => {
    context.get(Key)!.regenerateId(true);
    return new Response("regenerated");
  });
  router.post("/logout", (context) => {
    context.get(Key)!.destroy();
    return new Response("signed out");
  });
  router.get("/me", (context) => {
    return new Response(String(context.get(Key)!.get("user") ?? "nobody"));
  });
  const lockout = rateLimit({
    limit: 2,
    windowMs: 60_000,
    algorithm: "lockout",
    name: `login-${tag}`,
    store: createRedisRateLimitStore({
      client: client as unknown as Parameters<
        typeof createRedisRateLimitStore
      >[0][
        "client"
      ],
      prefix: `rl-${tag}:`,
      ...options,
    }),
  });
  router.post("/attempt", lockout, () => new Response("counted"));
  let orders = 0;
  router.post(
    "/orders",
    idempotency({
      store: createRedisCacheStore({
        client: client as unknown as Parameters<
          typeof createRedisCacheStore
        >[0]["client"],
        prefix: `idem-${tag}:`,
        ...options,
      }),
    }),
    () => Response.json({ order: ++orders }, { status: 201 }),
  );
  async function send(
    jar: Jar,
    method: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const response = await router.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: {
          ...(jar.cookie === undefined ? {} : { cookie: jar.cookie }),
          ...headers,
        },
      }),
      { remoteAddr: address },
    );
    jar.take(response);
    return response;
  }
  return { send, orders: () => orders };
}

/** The status and body text of `response`. */
async function answer(response: Response): Promise<[number, string]> {
  return [response.status, await response.text()];
}

Deno.test({
  name:
    "Redis Cluster with every replica frozen: sign-out, regenerate, the refusing count and an idempotency claim answer 503, not confirmed",
  ignore: tools === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const cluster: RedisCluster = await startRedisCluster(tools!);
    const client = await createCluster({ rootNodes: cluster.rootNodes })
      .on("error", () => {}).connect();
    const quiet = quietErrors();
    try {
      // Default options: the mode is on for a cluster client.
      const tag = crypto.randomUUID();
      const app = durableApp(client as unknown as Client, {
        replicaTimeout: 300,
      }, tag);
      const jar = new Jar();
      const other = new Jar();
      assert.equal((await app.send(jar, "POST", "/login")).status, 200);
      assert.equal((await app.send(other, "POST", "/login")).status, 200);
      assert.equal((await app.send(new Jar(), "POST", "/attempt")).status, 200);
      const replicas = await cluster.replicas();
      assert.equal(replicas.length, 3);
      for (const replica of replicas) cluster.pause(replica);
      try {
        await t.step("sign-out: 503, and the cookie is kept", async () => {
          const response = await app.send(jar, "POST", "/logout");
          assert.equal(response.status, 503);
          assert.ok(response.headers.get("Retry-After"));
          await response.body?.cancel();
          assert.ok(jar.cookie !== undefined);
        });
        await t.step("regenerateId(true): 503", async () => {
          const before = other.cookie;
          const [status] = await answer(
            await app.send(other, "POST", "/regenerate"),
          );
          assert.equal(status, 503);
          assert.equal(other.cookie, before);
        });
        await t.step(
          "the count that reaches the limit: 503; counts below it are not held",
          async () => {
            // The second of 2: it would lock the next one out.
            const [status] = await answer(
              await app.send(new Jar(), "POST", "/attempt"),
            );
            assert.equal(status, 503);
          },
        );
        await t.step(
          "a refusal writes and waits for nothing: 429 at once",
          async () => {
            // A WAIT would fail with every replica frozen: 503.
            const [status] = await answer(
              await app.send(new Jar(), "POST", "/attempt"),
            );
            assert.equal(status, 429);
          },
        );
        await t.step(
          "an idempotency claim: 503, and the handler did not run",
          async () => {
            const [status] = await answer(
              await app.send(new Jar(), "POST", "/orders", {
                "Idempotency-Key": "order-1",
                "Content-Type": "application/json",
              }),
            );
            assert.equal(status, 503);
            assert.equal(app.orders(), 0);
          },
        );
        await t.step(
          'durability: "none" confirms on the master alone (what it can lose)',
          async () => {
            const loose = durableApp(client as unknown as Client, {
              durability: "none",
            });
            const mine = new Jar();
            assert.equal(
              (await loose.send(mine, "POST", "/login")).status,
              200,
            );
            const [status] = await answer(
              await loose.send(mine, "POST", "/logout"),
            );
            assert.equal(status, 200);
          },
        );
      } finally {
        for (const replica of replicas) await cluster.resume(replica);
      }

      await t.step("with the replicas back, each is confirmed", async () => {
        // The same keys; time enough for a replica just thawed on a
        // loaded machine.
        const app = durableApp(client as unknown as Client, {
          replicaTimeout: 5000,
        }, tag);
        assert.equal(
          (await answer(await app.send(jar, "POST", "/logout")))[0],
          200,
        );
        assert.equal(jar.cookie, undefined);
        // The refused regenerateId(true) deleted the old id on the
        // master before no replica confirmed: it fails closed, signed out.
        assert.equal(
          (await answer(await app.send(other, "GET", "/me")))[1],
          "nobody",
        );
        assert.equal(
          (await answer(await app.send(other, "POST", "/login")))[0],
          200,
        );
        assert.equal(
          (await answer(await app.send(other, "POST", "/regenerate")))[0],
          200,
        );
        assert.equal(
          (await answer(await app.send(other, "GET", "/me")))[1],
          "ada",
        );
        // The same key again: the refused claim was taken back, so it runs.
        const order = await app.send(new Jar(), "POST", "/orders", {
          "Idempotency-Key": "order-1",
          "Content-Type": "application/json",
        });
        assert.equal(order.status, 201);
        assert.deepEqual(await order.json(), { order: 1 });
        // The count the 503 refused stays counted on the master: the
        // next attempt is refused, not let through.
        assert.equal(
          (await answer(await app.send(new Jar(), "POST", "/attempt")))[0],
          429,
        );
      });
    } finally {
      quiet[Symbol.dispose]();
      client.destroy();
      await cluster.stop();
    }
  },
});

Deno.test({
  name:
    'one Redis node: off by default (no replica needed); durability: "replica" without a replica answers 503',
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startRedis(redisServer!);
    const client = await createClient({ url: server.url }).connect();
    const quiet = quietErrors();
    try {
      const plain = durableApp(client as unknown as Client);
      const jar = new Jar();
      assert.equal((await plain.send(jar, "POST", "/login")).status, 200);
      assert.equal(
        (await answer(await plain.send(jar, "POST", "/logout")))[0],
        200,
      );
      const strict = durableApp(client as unknown as Client, {
        durability: "replica",
        replicaTimeout: 100,
      });
      const mine = new Jar();
      assert.equal((await strict.send(mine, "POST", "/login")).status, 200);
      assert.equal(
        (await answer(await strict.send(mine, "POST", "/logout")))[0],
        503,
      );
    } finally {
      quiet[Symbol.dispose]();
      await client.quit();
      await server.stop();
    }
  },
});

Deno.test({
  name:
    'one Redis node and its replica, durability: "replica": confirmed while the replica runs, 503 while it is frozen',
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const master = await startRedis(redisServer!);
    const masterPort = new URL(master.url).port;
    const replica = await startRedis(redisServer!, undefined, [
      "--replicaof",
      "127.0.0.1",
      masterPort,
    ]);
    const client = await createClient({ url: master.url }).connect();
    const quiet = quietErrors();
    let frozen = false;
    try {
      // Until the replica has synced, WAIT finds no replica.
      for (let i = 0; i < 100; i++) {
        if (Number(await client.sendCommand(["WAIT", "1", "100"])) >= 1) break;
      }
      const app = durableApp(client as unknown as Client, {
        durability: "replica",
        replicaTimeout: 300,
      });
      const jar = new Jar();
      assert.equal((await app.send(jar, "POST", "/login")).status, 200);
      assert.equal(
        (await answer(await app.send(jar, "POST", "/logout")))[0],
        200,
      );
      assert.equal((await app.send(jar, "POST", "/login")).status, 200);
      Deno.kill(replica.pid, "SIGSTOP");
      frozen = true;
      assert.equal(
        (await answer(await app.send(jar, "POST", "/logout")))[0],
        503,
      );
    } finally {
      if (frozen) Deno.kill(replica.pid, "SIGCONT");
      quiet[Symbol.dispose]();
      await client.quit();
      await replica.stop();
      await master.stop();
    }
  },
});

Deno.test({
  name:
    'durability: "replica-aof" on Valkey: confirmed once a replica\'s append-only file has it; 503 when the replica keeps none or is frozen',
  ignore: valkey === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const master = await startRedis(valkey!);
    const port = new URL(master.url).port;
    const withAof = await startRedis(valkey!, undefined, [
      "--replicaof",
      "127.0.0.1",
      port,
      "--appendonly",
      "yes",
    ]);
    const client = await createClient({ url: master.url }).connect();
    const quiet = quietErrors();
    let frozen = false;
    try {
      for (let i = 0; i < 100; i++) {
        const reply = await client.sendCommand(["WAITAOF", "0", "1", "100"]);
        if (Array.isArray(reply) && Number(reply[1]) >= 1) break;
      }
      const app = durableApp(client as unknown as Client, {
        durability: "replica-aof",
        replicaTimeout: 1000,
      });
      const jar = new Jar();
      assert.equal((await app.send(jar, "POST", "/login")).status, 200);
      assert.equal(
        (await answer(await app.send(jar, "POST", "/logout")))[0],
        200,
      );
      assert.equal((await app.send(jar, "POST", "/login")).status, 200);
      Deno.kill(withAof.pid, "SIGSTOP");
      frozen = true;
      const strict = durableApp(client as unknown as Client, {
        durability: "replica-aof",
        replicaTimeout: 300,
      });
      assert.equal(
        (await answer(await strict.send(jar, "POST", "/logout")))[0],
        503,
      );
      Deno.kill(withAof.pid, "SIGCONT");
      frozen = false;
      await withAof.stop();
      // A replica without an append-only file confirms WAIT, not WAITAOF.
      const withoutAof = await startRedis(valkey!, undefined, [
        "--replicaof",
        "127.0.0.1",
        port,
      ]);
      try {
        for (let i = 0; i < 100; i++) {
          if (Number(await client.sendCommand(["WAIT", "1", "100"])) >= 1) {
            break;
          }
        }
        const mine = new Jar();
        assert.equal((await strict.send(mine, "POST", "/login")).status, 200);
        assert.equal(
          (await answer(await strict.send(mine, "POST", "/logout")))[0],
          503,
        );
        const plain = durableApp(client as unknown as Client, {
          durability: "replica",
          replicaTimeout: 1000,
        });
        assert.equal(
          (await answer(await plain.send(mine, "POST", "/logout")))[0],
          200,
        );
      } finally {
        await withoutAof.stop();
      }
    } finally {
      if (frozen) Deno.kill(withAof.pid, "SIGCONT");
      quiet[Symbol.dispose]();
      await client.quit();
      await withAof.stop().catch(() => {});
      await master.stop();
    }
  },
});

Deno.test({
  name:
    'durability: "replica-aof" on a server without WAITAOF: an error that says so',
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startRedis(redisServer!);
    const client = await createClient({ url: server.url }).connect();
    try {
      const info = String(await client.sendCommand(["INFO", "server"]));
      const version = /redis_version:(\d+)\.(\d+)/.exec(info);
      if (
        version === null || Number(version[1]) * 100 + Number(version[2]) >= 702
      ) {
        console.log("skipped: this server has WAITAOF");
        return;
      }
      const storage = createRedisSessionStorage({
        client: client as unknown as Client,
        cookie: { secrets: [SECRET] },
        durability: "replica-aof",
      });
      const fresh = await storage.read(null);
      fresh.set("user", "ada");
      const header = (await storage.save(fresh))!.split(";")[0];
      const loaded = await storage.read(header);
      loaded.destroy();
      await assert.rejects(
        storage.save(loaded),
        /durability "replica-aof" needs WAITAOF \(Redis or Valkey 7\.2 or later\)/,
      );
    } finally {
      await client.quit();
      await server.stop();
    }
  },
});

Deno.test("durability options are checked when the store is made", () => {
  const fake = { get() {}, set() {}, del() {} } as unknown as Client;
  assert.throws(
    () =>
      createRedisSessionStorage({
        client: fake,
        cookie: { secrets: [SECRET] },
        durability: "replica",
      }),
    /durability "replica" needs a client with sendCommand/,
  );
  assert.throws(
    () =>
      createRedisSessionStorage({
        client: fake,
        cookie: { secrets: [SECRET] },
        // @ts-expect-error: checking the run-time guard
        durability: "all",
      }),
    /durability must be "replica", "replica-aof" or "none", got "all"/,
  );
  assert.throws(
    () =>
      createRedisSessionStorage({
        client: fake,
        cookie: { secrets: [SECRET] },
        durability: "none",
        replicaTimeout: 0,
      }),
    /replicaTimeout must be a finite number >= 1, got 0/,
  );
});
