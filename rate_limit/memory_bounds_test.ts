// The memory store's bounds: at most maxKeys keys (a new key is refused
// when full), and no key longer than any the limiter makes is looked up
// (portable: runs on Node and Bun too).
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  createMemoryRateLimitStore,
  rateLimit,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { app } from "./_test_app.ts";
import { longestMapKey } from "../_tools/map_keys.ts";

Deno.test("memory store: full at maxKeys, a new key is refused until the earliest entry expires; held keys count on", () => {
  const clock = FakeTimers.install({ now: 1_000_000, toFake: ["Date"] });
  try {
    const store = createMemoryRateLimitStore({ maxKeys: 3 });
    const gcra = { limit: 2, windowMs: 10_000 };
    const lockout = {
      limit: 2,
      windowMs: 20_000,
      algorithm: "lockout" as const,
    };
    assert.equal(store.hit("a", gcra).allowed, true);
    clock.tick(1000);
    assert.equal(store.hit("b", gcra).allowed, true);
    assert.equal(store.hit("c", lockout).allowed, true);
    assert.equal(store.size, 3);
    // Full: a new key (either algorithm) is refused, nothing is evicted.
    for (const policy of [gcra, lockout]) {
      const refused = store.hit("d", policy);
      assert.equal(refused.allowed, false);
      assert.equal(refused.remaining, 0);
      // "a" (5 s of its 10 s window used) is restored first, in 4 s.
      assert.equal(refused.retryAfterMs, 4000);
    }
    assert.equal(store.size, 3);
    // Keys already held are counted as before.
    assert.equal(store.hit("a", gcra).allowed, true);
    assert.equal(store.hit("a", gcra).allowed, false, "limit 2");
    assert.equal(store.hit("c", lockout).remaining, 0);
    // Once "b" is fully restored (6 s on), a new key fits again.
    clock.tick(4000);
    assert.equal(store.hit("d", gcra).allowed, false, "not yet");
    clock.tick(1000);
    assert.equal(store.hit("d", gcra).allowed, true);
    assert.equal(store.size, 3);
    // A reset frees a place at once.
    store.reset("d");
    assert.equal(store.hit("e", gcra).allowed, true);
  } finally {
    clock.uninstall();
  }
});

Deno.test("memory store: maxKeys must be a whole number >= 1", () => {
  for (const maxKeys of [0, -1, 1.5, NaN]) {
    assert.throws(() => createMemoryRateLimitStore({ maxKeys }), {
      name: "TypeError",
      message:
        `createMemoryRateLimitStore(): maxKeys must be a whole number >= 1, got ${maxKeys}`,
    });
  }
});

Deno.test("memory store: the limiter answers 429 with Retry-After when the store is full", async () => {
  const store = createMemoryRateLimitStore({ maxKeys: 2 });
  const perEmail = rateLimit({
    limit: 5,
    windowMs: 60_000,
    store,
    key: ({ url }) => url.searchParams.get("email") ?? undefined,
  });
  const request = app(perEmail);
  for (const email of ["a", "b"]) {
    assert.equal((await request(undefined, `/?email=${email}`)).status, 200);
  }
  const refused = await request(undefined, "/?email=c");
  assert.equal(refused.status, 429);
  // Until "a" is fully restored: one interval, 60 s / 5.
  assert.equal(refused.headers.get("Retry-After"), "12");
});

Deno.test("rate-limit keys: a 17 KB key is never looked up: the store refuses it, the limiter stores its hash", async () => {
  const store = createMemoryRateLimitStore();
  const long = "e".repeat(17_000);
  const policy = { limit: 2, windowMs: 1000 };
  let thrown: unknown;
  const direct = await longestMapKey(() => {
    try {
      store.hit(long, policy);
    } catch (error) {
      thrown = error;
    }
  });
  assert.ok(thrown instanceof RangeError);
  assert.equal(
    thrown.message,
    "Rate limit memory store: a key of 17000 characters; the limit is 512 (rateLimit() stores long keys as their SHA-256)",
  );
  assert.equal(direct, 0, "refused before any lookup");
  assert.throws(() => store.giveBack(long, policy), RangeError);
  assert.throws(() => store.reset(long), RangeError);

  const request = app(rateLimit({
    name: "email",
    limit: 2,
    windowMs: 60_000,
    store,
    key: () => long,
  }));
  const statuses: number[] = [];
  const viaLimiter = await longestMapKey(async () => {
    for (let i = 0; i < 3; i++) statuses.push((await request()).status);
  });
  assert.deepEqual(statuses, [200, 200, 429]);
  assert.ok(viaLimiter <= 512, `a ${viaLimiter}-character Map key`);
});
