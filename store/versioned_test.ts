import assert from "node:assert/strict";
import { createMemoryVersionedStore } from "./versioned.ts";
import { versionedStoreSuite } from "./_test_versioned_suite.ts";

Deno.test("memory versioned store", async (t) => {
  await versionedStoreSuite(t, createMemoryVersionedStore());
});

Deno.test("memory versioned store drops least recently used entries past maxBytes", async () => {
  const store = createMemoryVersionedStore({
    maxBytes: 4096,
    maxValueBytes: 1000,
  });
  const value = new Uint8Array(900);
  for (const key of ["a", "b", "c", "d"]) {
    await store.set(key, value, { ttlMs: 10_000 });
  }
  assert.ok(await store.get("a")); // a is now the most recently used
  await store.set("e", value, { ttlMs: 10_000 });
  assert.ok(store.bytes <= 4096, `holds ${store.bytes} bytes`);
  assert.equal(await store.get("b"), undefined, "b was least recently used");
  assert.ok(await store.get("a"));
  assert.ok(await store.get("e"));
});

Deno.test("memory versioned store refuses a bad maxBytes", () => {
  assert.throws(
    () => createMemoryVersionedStore({ maxBytes: 10 }),
    /maxBytes must be a finite number of bytes >= 1024, got 10/,
  );
});
