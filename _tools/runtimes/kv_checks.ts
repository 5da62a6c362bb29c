/**
 * The Deno KV session storage on Node (and Bun) with the npm package
 * `@deno/kv` over a local database file: the storage suite every session
 * storage passes, plus data under `[prefix, id]`. Registered with the
 * harness; `runtimes_test.ts` bundles this file, `@deno/kv` (native code)
 * stays external.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { openKv } from "@deno/kv";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createKvRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { storageSuite } from "../../session/_test_suite.ts";
import { userSessionSuite } from "../../session/_user_test_suite.ts";
import { app, Jar, send } from "../../session/_test_app.ts";
import { test, type TestContext } from "./harness.ts";

type Kv = Awaited<ReturnType<typeof openKv>>;

async function withKv(
  run: (kv: Kv, again: () => Promise<Kv>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fetchkit-kv-"));
  // Bun's node:v8 writes JavaScriptCore's format, not V8's: @deno/kv asks
  // for the functions explicitly there (such a file is Bun's alone).
  const bun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
  const open = () =>
    openKv(
      join(dir, "kv.db"),
      bun ? { encodeV8: serialize, decodeV8: deserialize } : {},
    );
  const opened: Kv[] = [];
  const again = async () => {
    const kv = await open();
    opened.push(kv);
    return kv;
  };
  try {
    await run(await again(), again);
  } finally {
    for (const kv of opened) kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test("kv storage on @deno/kv (local file)", async (t: TestContext) => {
  await withKv(async (kv) => {
    await storageSuite(t as unknown as Deno.TestContext, {
      storage: (cookie) => createKvSessionStorage({ client: kv, cookie }),
      revocable: true,
      shared: true,
    });
  });
});

test("kv storage on @deno/kv: sessions by user", async (t: TestContext) => {
  await withKv(async (kv) => {
    await userSessionSuite(t as unknown as Deno.TestContext, {
      storage: (cookie, options) =>
        createKvSessionStorage({ client: kv, cookie, ...options }),
    });
  });
});

test("kv storage on @deno/kv: data lives under [prefix, id] with its expiry", async () => {
  await withKv(async (kv) => {
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
  });
});

test("rate-limit KV store on @deno/kv: counts, refuses, sees another process's reset", async () => {
  await withKv(async (kv, again) => {
    const other = await again();
    const store = createKvRateLimitStore({ client: kv });
    const elsewhere = createKvRateLimitStore({ client: other });
    const policy = { limit: 2, windowMs: 60_000 };
    assert.equal((await store.hit("k", policy)).remaining, 1);
    assert.equal((await store.hit("k", policy)).remaining, 0);
    assert.equal((await store.hit("k", policy)).allowed, false);
    await elsewhere.reset("k");
    assert.equal((await store.hit("k", policy)).allowed, true);
    assert.equal((await elsewhere.hit("k", policy)).remaining, 0);
    assert.equal((await store.hit("k", policy)).allowed, false);
    const entry = await kv.get(["rate_limit", "k"]);
    assert.equal(typeof entry.value, "number");
  });
});
