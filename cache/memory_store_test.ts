// The memory store of cache() and idempotency(): cache entries go least
// recently used first, pinned entries (idempotency keys) never go before
// they expire, and a pinned entry with no room is refused. Portable.

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  createMemoryCacheStore,
  StoreFullError,
} from "@fetchkit/toolkit/cache-middleware";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import { versionedStoreSuite } from "../store/_test_versioned_suite.ts";

const value = (size: number) => new Uint8Array(size);

Deno.test("memory cache store: the versioned store's behaviours", async (t) => {
  await versionedStoreSuite(t, createMemoryCacheStore());
});

Deno.test("memory cache store: cache entries go least recently used first", async () => {
  const store = createMemoryCacheStore({ maxBytes: 4096 });
  for (const key of ["a", "b", "c", "d"]) {
    await store.set(key, value(500), { ttlMs: 10_000 });
  }
  assert.ok(await store.get("a"));
  for (const key of ["e", "f", "g"]) {
    await store.set(key, value(500), { ttlMs: 10_000 });
  }
  assert.equal(await store.get("b"), undefined, "b was least recently used");
  assert.ok(await store.get("a"));
  assert.ok(await store.get("g"));
});

Deno.test("memory cache store: reading the newest entry, then an older one, keeps the order of use", async () => {
  const store = createMemoryCacheStore({ maxBytes: 4096 });
  for (const key of ["a", "b", "c", "d", "e", "f"]) {
    await store.set(key, value(500), { ttlMs: 10_000 });
  }
  // f is the newest already; then a, then f again: b, c, d, e, a, f.
  assert.ok(await store.get("f"));
  assert.ok(await store.get("a"));
  assert.ok(await store.get("f"));
  await store.set("g", value(500), { ttlMs: 10_000 });
  await store.set("h", value(500), { ttlMs: 10_000 });
  assert.equal(await store.get("b"), undefined, "b went first");
  assert.equal(await store.get("c"), undefined, "then c");
  // Read in this order: a, d, e, f, g, h (h, the newest, stays last).
  for (const key of ["a", "d", "e", "f", "g", "h"]) {
    assert.ok(await store.get(key), `${key} is kept`);
  }
  // The newest deleted, then a and d read: e, f, g, a, d.
  await store.delete("h");
  assert.ok(await store.get("a"));
  assert.ok(await store.get("d"));
  await store.set("i", value(500), { ttlMs: 10_000 });
  await store.set("j", value(500), { ttlMs: 10_000 });
  assert.equal(await store.get("e"), undefined, "e was least recently used");
  assert.ok(await store.get("a"));
});

Deno.test("memory cache store: pinned entries are never evicted; a new one with no room is refused", async () => {
  const store = createMemoryCacheStore({ maxBytes: 4096 });
  const pinned = { ttlMs: 10_000, pinned: true };
  await store.set("p1", value(400), pinned);
  await store.set("p2", value(400), pinned);
  await store.set("p3", value(400), pinned);
  // Cache entries make room by dropping each other, not the pinned ones.
  for (let i = 0; i < 20; i++) {
    await store.set(`c${i}`, value(500), { ttlMs: 10_000 });
  }
  for (const key of ["p1", "p2", "p3"]) assert.ok(await store.get(key), key);
  assert.ok(await store.get("c19"));
  // Pinned entries take the cache entries' room, then are refused.
  let error: unknown;
  let count = 3;
  for (; error === undefined && count < 20; count++) {
    error = await store.set(`p${count + 1}`, value(500), pinned).then(
      () => undefined,
      (error) => error,
    );
  }
  assert.equal(count, 8, "p4 to p7 fit; p8 is refused");
  assert.ok(error instanceof StoreFullError);
  assert.ok(error instanceof StoreUnavailableError, "a 503 with Retry-After");
  assert.match(error.message, /memory store is full.*4096 bytes/);
  assert.equal(await store.get("p8"), undefined);
  // A cache entry that finds no room is refused the same way.
  await assert.rejects(
    store.set("c-late", value(500), { ttlMs: 10_000 }),
    StoreFullError,
  );
  for (const key of ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]) {
    assert.ok(await store.get(key), key);
  }
});

Deno.test("memory cache store: a reservation makes a later, larger write over the entry succeed", async () => {
  const store = createMemoryCacheStore({ maxBytes: 8192 });
  const version = await store.set("key", value(10), {
    ttlMs: 10_000,
    pinned: true,
    reserveBytes: 1000,
  });
  // Fill the rest with other pinned entries.
  let filled = 0;
  try {
    for (;; filled++) {
      await store.set(`other${filled}`, value(100), {
        ttlMs: 10_000,
        pinned: true,
      });
    }
  } catch (error) {
    assert.ok(error instanceof StoreFullError);
  }
  assert.ok(filled > 10);
  const written = await store.set("key", value(800), {
    ttlMs: 10_000,
    ifVersion: version,
    pinned: true,
  });
  assert.equal(typeof written, "string");
  assert.equal((await store.get("key"))!.value.byteLength, 800);
});

Deno.test("memory cache store: expired pinned entries free their room", async () => {
  const clock = FakeTimers.install({ now: 1_000_000, toFake: ["Date"] });
  try {
    const store = createMemoryCacheStore({ maxBytes: 4096 });
    const pinned = { ttlMs: 5_000, pinned: true };
    for (let i = 0; i < 6; i++) await store.set(`p${i}`, value(500), pinned);
    await assert.rejects(store.set("late", value(500), pinned), StoreFullError);
    clock.tick(5_001);
    assert.equal(typeof await store.set("late", value(500), pinned), "string");
  } finally {
    clock.uninstall();
  }
});
