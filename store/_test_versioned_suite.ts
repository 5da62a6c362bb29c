// The behaviours every versioned store shares, run against each kind.

import assert from "node:assert/strict";
import type { VersionedStore } from "./versioned.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (value: Uint8Array): string => new TextDecoder().decode(value);

/** Runs the shared checks on `store` as steps of `t`. */
export async function versionedStoreSuite(
  t: Deno.TestContext,
  store: VersionedStore,
): Promise<void> {
  await t.step("get of a missing key is undefined", async () => {
    assert.equal(await store.get("missing"), undefined);
  });

  await t.step("set then get gives the bytes and a version", async () => {
    const version = await store.set("a", bytes("one"), { ttlMs: 10_000 });
    assert.equal(typeof version, "string");
    const read = await store.get("a");
    assert.equal(text(read!.value), "one");
    assert.equal(read!.version, version);
  });

  await t.step("ifVersion: null writes only a new key", async () => {
    assert.equal(
      await store.set("a", bytes("two"), { ttlMs: 10_000, ifVersion: null }),
      undefined,
    );
    assert.equal(text((await store.get("a"))!.value), "one");
    const version = await store.set("fresh", bytes("x"), {
      ttlMs: 10_000,
      ifVersion: null,
    });
    assert.ok(version);
  });

  await t.step("ifVersion: writes only over that version", async () => {
    const first = (await store.get("a"))!.version;
    const second = await store.set("a", bytes("two"), {
      ttlMs: 10_000,
      ifVersion: first,
    });
    assert.ok(second);
    assert.notEqual(second, first);
    assert.equal(
      await store.set("a", bytes("three"), { ttlMs: 10_000, ifVersion: first }),
      undefined,
      "a stale version must not write",
    );
    assert.equal(text((await store.get("a"))!.value), "two");
  });

  await t.step("delete with ifVersion deletes only that version", async () => {
    const { version } = (await store.get("a"))!;
    assert.equal(
      await store.delete("a", { ifVersion: "0123456789abcdef" }),
      false,
    );
    assert.ok(await store.get("a"));
    assert.equal(await store.delete("a", { ifVersion: version }), true);
    assert.equal(await store.get("a"), undefined);
    await store.set("b", bytes("b"), { ttlMs: 10_000 });
    assert.equal(await store.delete("b"), true);
    assert.equal(await store.get("b"), undefined);
  });

  await t.step(
    "an expired entry is gone, and free for ifVersion: null",
    async () => {
      await store.set("short", bytes("s"), { ttlMs: 30 });
      await new Promise((resolve) => setTimeout(resolve, 60));
      assert.equal(await store.get("short"), undefined);
      assert.ok(
        await store.set("short", bytes("t"), {
          ttlMs: 10_000,
          ifVersion: null,
        }),
      );
    },
  );

  await t.step("binary values come back byte for byte", async () => {
    const value = new Uint8Array(300);
    for (let i = 0; i < value.length; i++) value[i] = i % 256;
    await store.set("binary", value, { ttlMs: 10_000 });
    assert.deepEqual([...(await store.get("binary"))!.value], [...value]);
  });

  await t.step("a long key works", async () => {
    const key = "k".repeat(5000);
    await store.set(key, bytes("long"), { ttlMs: 10_000 });
    assert.equal(text((await store.get(key))!.value), "long");
  });

  await t.step("bad values and ttls are refused with the limit", async () => {
    await assert.rejects(
      () =>
        store.set("big", new Uint8Array(store.maxValueBytes + 1), {
          ttlMs: 1000,
        }),
      (error: Error) =>
        error instanceof RangeError &&
        error.message.includes(String(store.maxValueBytes)),
    );
    await assert.rejects(
      () => store.set("zero", bytes("z"), { ttlMs: 0 }),
      RangeError,
    );
  });

  await t.step(
    "20 concurrent ifVersion: null writes: exactly one wins",
    async () => {
      const results = await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) =>
            store.set("race", bytes(String(i)), {
              ttlMs: 10_000,
              ifVersion: null,
            }),
        ),
      );
      assert.equal(
        results.filter((version) => version !== undefined).length,
        1,
      );
    },
  );
}
