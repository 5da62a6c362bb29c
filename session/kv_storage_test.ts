import assert from "node:assert/strict";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { storageSuite } from "./_test_suite.ts";
import { app, Jar, send } from "./_test_app.ts";
import { userSessionSuite } from "./_user_test_suite.ts";

Deno.test("kv storage: sessions by user", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    await userSessionSuite(t, {
      storage: (cookie, options) =>
        createKvSessionStorage({ client: kv, cookie, ...options }),
    });
  } finally {
    kv.close();
  }
});

Deno.test("kv storage", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    await storageSuite(t, {
      storage: (cookie) => createKvSessionStorage({ client: kv, cookie }),
      revocable: true,
      shared: true,
    });
  } finally {
    kv.close();
  }
});

Deno.test("kv storage: data lives under [prefix, id] with its expiry", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const storage = createKvSessionStorage({
      client: kv,
      cookie: { secrets: ["s".repeat(32)], maxAge: 600 },
      prefix: "app-sessions",
    });
    const jar = new Jar();
    const { body } = await send(app(storage), jar, "POST", "/set/user/ada");
    const entry = await kv.get<Uint8Array>(["app-sessions", body.id]);
    assert.ok(entry.value instanceof Uint8Array);
    const record = JSON.parse(new TextDecoder().decode(entry.value));
    assert.deepEqual(record.v, { user: "ada" });
    assert.ok(Math.abs(record.e - (Date.now() + 600_000)) < 5_000);
    // The cookie holds only the signed id.
    assert.match(
      jar.cookie!,
      new RegExp(`^__session=${body.id}\\.[A-Za-z0-9_-]{43}$`),
    );
  } finally {
    kv.close();
  }
});

Deno.test("kv storage: data over 64 KiB is a clear error", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const storage = createKvSessionStorage({
      client: kv,
      cookie: { secrets: ["s".repeat(32)] },
    });
    const session = await storage.read(null);
    session.set("big", "é".repeat(33_000));
    await assert.rejects(
      () => storage.save(session),
      (error: Error) =>
        error instanceof RangeError &&
        /Session data is 660\d\d bytes, over Deno KV's 65536-byte value limit/
          .test(error.message),
    );
    session.set("big", "x".repeat(60_000));
    assert.ok(await storage.save(session));
  } finally {
    kv.close();
  }
});

Deno.test("kv storage: needs a client", () => {
  assert.throws(
    // @ts-expect-error: checking the run-time guard
    () => createKvSessionStorage({ cookie: { secrets: ["s".repeat(32)] } }),
    TypeError,
  );
});

/** Counts the calls a storage makes on its Deno KV client. */
function countingKv(kv: Deno.Kv): { client: Deno.Kv; calls: string[] } {
  const calls: string[] = [];
  const client = new Proxy(kv, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (property === "atomic") {
          // An atomic operation is one round trip, at `commit()`.
          const commit = result.commit.bind(result);
          result.commit = () => {
            calls.push("commit");
            return commit();
          };
        } else {
          calls.push(String(property));
        }
        return result;
      };
    },
  });
  return { client, calls };
}

Deno.test("kv storage: KV round trips per request (no more than needed)", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { client, calls } = countingKv(kv);
    const storage = createKvSessionStorage({
      client,
      cookie: { secrets: ["s".repeat(32)] },
    });
    const router = app(storage);
    const jar = new Jar();

    // No session cookie: no KV call at all, even when the handler reads.
    await send(router, jar, "GET", "/get/user");
    assert.deepEqual(calls, []);
    assert.equal(jar.cookie, undefined);

    // First write of a new session: one atomic commit.
    await send(router, jar, "POST", "/set/user/ada");
    assert.deepEqual(calls.splice(0), ["commit"]);

    // A read: exactly one `get`, and no write since nothing changed.
    const { body } = await send(router, jar, "GET", "/get/user");
    assert.equal(body.value, "ada");
    assert.deepEqual(calls.splice(0), ["get"]);

    // A change: one `get` to load, one commit to save.
    await send(router, jar, "POST", "/set/user/bob");
    assert.deepEqual(calls.splice(0), ["get", "commit"]);

    // Setting the value it already has changes nothing: no write.
    await send(router, jar, "POST", "/set/user/bob");
    assert.deepEqual(calls.splice(0), ["get"]);

    // Requests that only read never write.
    for (let i = 0; i < 3; i++) {
      await send(router, jar, "GET", "/all?names=user");
    }
    assert.deepEqual(calls.splice(0), ["get", "get", "get"]);

    // A forged cookie: no KV call (the signature fails first).
    const forged = new Jar();
    forged.cookie = jar.cookie!.replace(/.$/, (c) => c === "A" ? "B" : "A");
    await send(router, forged, "GET", "/get/user");
    assert.deepEqual(calls.splice(0), []);
  } finally {
    kv.close();
  }
});
