// Faults under the session middleware, over a real Deno.serve: Deno KV
// closed mid-run, then a new KV on the same file; redis-server killed and
// started again on the same port. Each failing request is a clean 503 and
// the app serves again once the store is back, without a restart.
import assert from "node:assert/strict";
import { createClient } from "redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  type Session,
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { freePort, redisServerOrSkip, startRedis } from "./_test_redis.ts";

const cookie = { secrets: ["fault-test-secret-".padEnd(40, "z")] };

/** A counter app served on loopback; returns its URL and a stopper. */
function serve(storage: SessionStorage) {
  const Key = createContextKey<Session>();
  const router = createRouter({ middleware: [session(Key, storage)] });
  router.post("/count", (context) => {
    const s = context.get(Key)!;
    const n = ((s.get("n") as number | undefined) ?? 0) + 1;
    s.set("n", n);
    return new Response(String(n));
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  return { url: `http://127.0.0.1:${server.addr.port}/count`, server };
}

/** Posts with the jar's cookie; keeps a new cookie. */
async function post(url: string, jar: { cookie: string }) {
  const response = await fetch(url, {
    method: "POST",
    headers: jar.cookie ? { Cookie: jar.cookie } : {},
  });
  const set = response.headers.get("set-cookie");
  if (set) jar.cookie = set.split(";")[0];
  return { status: response.status, text: await response.text(), response };
}

/** Silences the expected console.error of the 503s; returns their count. */
function quietErrors(): { count: () => number; restore: () => void } {
  const original = console.error;
  let count = 0;
  console.error = () => count++;
  return { count: () => count, restore: () => (console.error = original) };
}

Deno.test("fault: Deno KV closed mid-run is a 503, and a reopened KV serves again", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  let kv = await Deno.openKv(path);
  // The app holds one client; the test swaps what is behind it, as a
  // reconnecting wrapper would.
  const client = new Proxy({} as Deno.Kv, {
    get(_, prop) {
      const value = Reflect.get(kv, prop);
      return typeof value === "function" ? value.bind(kv) : value;
    },
  });
  const { url, server } = serve(createKvSessionStorage({ client, cookie }));
  const errors = quietErrors();
  try {
    const jar = { cookie: "" };
    assert.equal((await post(url, jar)).text, "1");
    assert.equal((await post(url, jar)).text, "2");
    kv.close();
    for (let i = 0; i < 3; i++) {
      const failed = await post(url, jar);
      assert.equal(failed.status, 503);
      assert.match(failed.text, /session store is not responding/);
      assert.equal(failed.response.headers.get("retry-after"), "1");
    }
    assert.ok(errors.count() >= 3, "each failure is logged");
    kv = await Deno.openKv(path);
    // Back, with the session written before the fault intact.
    assert.equal((await post(url, jar)).text, "3");
  } finally {
    errors.restore();
    await server.shutdown();
    kv.close();
    await Deno.remove(path);
  }
});

const redisServer = await redisServerOrSkip();

Deno.test({
  name: "fault: redis-server killed and restarted is a 503, then serves again",
  ignore: redisServer === undefined,
  async fn() {
    const port = freePort();
    let redis = await startRedis(redisServer!, port);
    const client = createClient({
      url: redis.url,
      // Keep retrying quickly; fail commands at once while disconnected.
      socket: { reconnectStrategy: () => 50 },
      disableOfflineQueue: true,
    });
    client.on("error", () => {});
    await client.connect();
    const { url, server } = serve(
      createRedisSessionStorage({ client, cookie }),
    );
    const errors = quietErrors();
    try {
      const jar = { cookie: "" };
      assert.equal((await post(url, jar)).text, "1");
      await redis.stop();
      const failed = await post(url, jar);
      assert.equal(failed.status, 503);
      assert.match(failed.text, /session store is not responding/);
      redis = await startRedis(redisServer!, port);
      // The data did not persist (no disk), so the session starts again;
      // what matters is that the same app serves without a restart.
      let served: { status: number; text: string } | undefined;
      for (let i = 0; i < 100; i++) {
        served = await post(url, jar);
        if (served.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(served?.status, 200);
      assert.equal((await post(url, jar)).status, 200);
    } finally {
      errors.restore();
      await server.shutdown();
      await client.close().catch(() => {});
      await redis.stop();
    }
  },
});
