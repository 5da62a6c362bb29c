import assert from "node:assert/strict";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { storageSuite } from "./_test_suite.ts";
import { app, Jar, send } from "./_test_app.ts";

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
