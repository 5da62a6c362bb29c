/**
 * Test helper: what every rate-limit store must do for `countResponse`
 * (counted on arrival, given back after), run by count_response_test.ts on
 * the memory store and by stores_test.ts on Deno KV and Redis.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  rateLimit,
  type RateLimitAlgorithm,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { from } from "./_test_app.ts";

/** A fresh store per case, and how to close it. */
export type StoreFactory = () => Promise<
  { store: RateLimitStore; close(): Promise<void> | void }
>;

let names = 0;

/** The `countResponse` cases, on stores from `open`, for `algorithm`. */
export function countResponseSuite(
  label: string,
  open: StoreFactory,
  algorithm: RateLimitAlgorithm,
  options: { ignore?: boolean } = {},
): void {
  const test = (name: string, fn: (store: RateLimitStore) => Promise<void>) =>
    Deno.test({
      name: `countResponse, ${label}, ${algorithm}: ${name}`,
      ignore: options.ignore,
      async fn() {
        const { store, close } = await open();
        try {
          await fn(store);
        } finally {
          await close();
        }
      },
    });

  /** A router counting only answers of status 401 on `/`. */
  function failuresOnly(store: RateLimitStore, limit: number) {
    const limiter = rateLimit({
      name: `failures-${++names}`,
      algorithm,
      limit,
      windowMs: 3_600_000,
      store,
      countResponse: (response) => response.status === 401,
    });
    let gate: Promise<void> = Promise.resolve();
    const router = createRouter({ middleware: [limiter] });
    router.get("/", async ({ url }) => {
      await gate;
      return new Response(null, {
        status: url.searchParams.has("fail") ? 401 : 204,
      });
    });
    return {
      limiter,
      hold(promise: Promise<void>) {
        gate = promise;
      },
      get: (fail: boolean) =>
        router.fetch(
          new Request(`http://localhost/${fail ? "?fail" : ""}`),
          from("192.0.2.7"),
        ),
    };
  }

  test("outcomes that do not count are given back", async (store) => {
    const { get } = failuresOnly(store, 3);
    for (let i = 0; i < 20; i++) {
      const response = await get(false);
      assert.equal(response.status, 204, `success ${i + 1}`);
      // The header shows the budget after the give-back: still all there.
      assert.match(response.headers.get("RateLimit") ?? "", /;r=3;/);
    }
    for (let i = 0; i < 3; i++) {
      assert.equal((await get(true)).status, 401, `failure ${i + 1}`);
    }
    assert.equal((await get(true)).status, 429, "the fourth failure");
    assert.equal((await get(false)).status, 429, "and then anything");
  });

  test("admitted before the handler: concurrent requests cannot overshoot", async (store) => {
    const app = failuresOnly(store, 3);
    let open!: () => void;
    app.hold(new Promise((resolve) => open = resolve));
    const pending = Array.from({ length: 12 }, () => app.get(true));
    // The handlers wait; the limiter has answered the others already.
    const answered: number[] = [];
    for (const response of pending) {
      Promise.resolve(response).then((r) => answered.push(r.status));
    }
    for (let waited = 0; answered.length < 9 && waited < 5000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(answered, Array(9).fill(429));
    open();
    const statuses = (await Promise.all(pending)).map((r) => r.status);
    assert.equal(statuses.filter((status) => status === 401).length, 3);
    assert.equal((await app.get(true)).status, 429);
  });

  test("in-flight requests hold their unit; successes give it back", async (store) => {
    const app = failuresOnly(store, 2);
    let open!: () => void;
    app.hold(new Promise((resolve) => open = resolve));
    const pending = [app.get(false), app.get(false)];
    await new Promise((resolve) => setTimeout(resolve, 50));
    app.hold(Promise.resolve());
    assert.equal((await app.get(false)).status, 429, "two in flight");
    open();
    assert.deepEqual((await Promise.all(pending)).map((r) => r.status), [
      204,
      204,
    ]);
    assert.equal((await app.get(false)).status, 204, "given back");
    assert.equal((await app.get(true)).status, 401);
    assert.equal((await app.get(true)).status, 401);
    assert.equal((await app.get(true)).status, 429);
  });

  test("a give-back never drives a count below nothing", async (store) => {
    const policy = { limit: 2, windowMs: 3_600_000, algorithm };
    const key = `below-zero-${++names}`;
    // Nothing stored: give-backs change nothing.
    for (let i = 0; i < 5; i++) await store.giveBack!(key, policy);
    assert.equal((await store.hit(key, policy)).remaining, 1);
    // Reset between a hit and its give-back (or an expiry): still nothing.
    await store.reset(key);
    for (let i = 0; i < 5; i++) await store.giveBack!(key, policy);
    assert.equal((await store.hit(key, policy)).allowed, true);
    assert.equal((await store.hit(key, policy)).allowed, true);
    assert.equal((await store.hit(key, policy)).allowed, false, "limit 2");
    // Give back two of the two: then exactly two again.
    await store.giveBack!(key, policy);
    await store.giveBack!(key, policy);
    await store.giveBack!(key, policy);
    assert.equal((await store.hit(key, policy)).allowed, true);
    assert.equal((await store.hit(key, policy)).allowed, true);
    assert.equal((await store.hit(key, policy)).allowed, false);
  });

  test("concurrent give-backs are each applied once", async (store) => {
    const policy = { limit: 20, windowMs: 3_600_000, algorithm };
    const key = `concurrent-${++names}`;
    await Promise.all(Array.from({ length: 20 }, () => store.hit(key, policy)));
    assert.equal((await store.hit(key, policy)).allowed, false);
    await Promise.all(
      Array.from({ length: 8 }, () => store.giveBack!(key, policy)),
    );
    const again = await Promise.all(
      Array.from({ length: 12 }, () => store.hit(key, policy)),
    );
    assert.equal(again.filter((r) => r.allowed).length, 8);
  });
}
