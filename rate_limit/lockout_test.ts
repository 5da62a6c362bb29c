// The lockout algorithm: a count per key, forgotten windowMs after the
// last counted hit; at the limit every request is refused, uncounted.
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createClient } from "redis";
import {
  createKvRateLimitStore,
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  rateLimit,
  type RateLimitOptions,
  type RateLimitPolicy,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { app, from } from "./_test_app.ts";

const SECOND = 1000;
const policy: RateLimitPolicy = {
  limit: 3,
  windowMs: 60 * SECOND,
  algorithm: "lockout",
};

function fakeDate() {
  // Only Date: Deno KV keeps its real timers.
  return FakeTimers.withGlobal(globalThis).install({
    now: 1_000_000,
    toFake: ["Date"],
  });
}

/**
 * The window runs from the last counted hit, with `store` (on a faked
 * Date): hits at 0, 20 s and 40 s count; the 4th is refused until 100 s,
 * though the first hit is 60 s old at 60 s; refused hits move nothing.
 */
async function windowFromLastCountedHit(store: RateLimitStore): Promise<void> {
  const clock = fakeDate();
  try {
    const hit = () => Promise.resolve(store.hit("k", policy));
    let result = await hit();
    assert.deepEqual(result, {
      allowed: true,
      limit: 3,
      remaining: 2,
      resetMs: 60 * SECOND,
      retryAfterMs: 0,
    });
    clock.tick(20 * SECOND);
    assert.equal((await hit()).remaining, 1);
    clock.tick(20 * SECOND);
    assert.equal((await hit()).remaining, 0);
    clock.tick(10 * SECOND); // 50 s
    result = await hit();
    assert.deepEqual(result, {
      allowed: false,
      limit: 3,
      remaining: 0,
      resetMs: 50 * SECOND,
      retryAfterMs: 50 * SECOND,
    });
    clock.tick(15 * SECOND); // 65 s: the first hit is long gone, the count not
    assert.equal((await hit()).retryAfterMs, 35 * SECOND);
    clock.tick(35 * SECOND - 1); // a millisecond before 100 s
    assert.equal((await hit()).retryAfterMs, 1);
    clock.tick(1); // 100 s: forgotten, whatever was refused meanwhile
    result = await hit();
    assert.equal(result.allowed, true);
    assert.equal(result.remaining, 2);
    // A reset forgets the count at once.
    await hit();
    await hit();
    assert.equal((await hit()).allowed, false);
    await store.reset("k");
    assert.equal((await hit()).remaining, 2);
  } finally {
    clock.uninstall();
  }
}

async function thirtyConcurrent(store: RateLimitStore): Promise<void> {
  const tenPerMinute: RateLimitPolicy = {
    limit: 10,
    windowMs: 60 * SECOND,
    algorithm: "lockout",
  };
  const results = await Promise.all(
    Array.from({ length: 30 }, () => store.hit("burst", tenPerMinute)),
  );
  const passed = results.filter((result) => result.allowed);
  assert.equal(passed.length, 10);
  assert.deepEqual(
    passed.map((result) => result.remaining).sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
}

Deno.test("lockout: the middleware's headers, 429 and Retry-After from the last counted hit", async () => {
  const clock = fakeDate();
  try {
    const request = app(rateLimit({
      limit: 2,
      windowMs: 15 * 60 * SECOND,
      algorithm: "lockout",
    }));
    const first = await request();
    assert.equal(first.headers.get("RateLimit-Policy"), '"default";q=2;w=900');
    assert.equal(first.headers.get("RateLimit"), '"default";r=1;t=900');
    clock.tick(60 * SECOND);
    const second = await request();
    assert.equal(second.headers.get("RateLimit"), '"default";r=0;t=900');
    const refused = await request();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("Retry-After"), "900");
    assert.equal(refused.headers.get("RateLimit"), '"default";r=0;t=900');
    // Still refused 14 minutes on (GCRA would have let one through at 7.5).
    clock.tick(14 * 60 * SECOND);
    const later = await request();
    assert.equal(later.status, 429);
    assert.equal(later.headers.get("Retry-After"), "60");
    // Another client has its own count.
    assert.equal((await request(from("192.0.2.2"))).status, 200);
    clock.tick(60 * SECOND);
    const back = await request();
    assert.equal(back.status, 200);
    assert.equal(back.headers.get("RateLimit"), '"default";r=1;t=900');
  } finally {
    clock.uninstall();
  }
});

Deno.test("lockout: exactly limit pass among 30 concurrent requests (memory)", async () => {
  const request = app(
    rateLimit({ limit: 10, windowMs: 60_000, algorithm: "lockout" }),
  );
  const statuses = await Promise.all(
    Array.from({ length: 30 }, () => request().then((r) => r.status)),
  );
  assert.equal(statuses.filter((status) => status === 200).length, 10);
  await thirtyConcurrent(createMemoryRateLimitStore());
});

Deno.test("lockout: the window runs from the last counted hit (memory store)", async () => {
  await windowFromLastCountedHit(createMemoryRateLimitStore());
});

Deno.test("lockout: a name is one policy; a bad algorithm is refused", async () => {
  const store = createMemoryRateLimitStore();
  rateLimit({ limit: 5, windowMs: 1000, store, algorithm: "lockout" });
  assert.throws(
    () => rateLimit({ limit: 5, windowMs: 1000, store }),
    /the name "default" is already used on this store with limit\/windowMs 5\/1000 \(lockout\)/,
  );
  assert.throws(
    () =>
      rateLimit(
        {
          limit: 5,
          windowMs: 1000,
          algorithm: "fixed",
        } as unknown as RateLimitOptions,
      ),
    {
      name: "TypeError",
      message:
        'rateLimit(): algorithm must be "gcra" or "lockout", got "fixed"',
    },
  );
  // A store refuses an algorithm it does not know, rather than guess.
  const odd = {
    limit: 1,
    windowMs: 1000,
    algorithm: "fixed",
  } as unknown as RateLimitPolicy;
  assert.throws(() => store.hit("k", odd), /unknown algorithm "fixed"/);
  const kv = await Deno.openKv(":memory:");
  try {
    await assert.rejects(
      () =>
        Promise.resolve(createKvRateLimitStore({ client: kv }).hit("k", odd)),
      /unknown algorithm "fixed"/,
    );
  } finally {
    kv.close();
  }
});

Deno.test("lockout: memory store forgets old counts as it grows", () => {
  const clock = fakeDate();
  try {
    const store = createMemoryRateLimitStore();
    const one: RateLimitPolicy = {
      limit: 1,
      windowMs: 1000,
      algorithm: "lockout",
    };
    for (let i = 0; i < 1500; i++) store.hit(`a${i}`, one);
    assert.equal(store.hit("a1", one).allowed, false);
    clock.tick(1000);
    for (let i = 0; i < 1500; i++) store.hit(`b${i}`, one);
    assert.equal(store.hit("a1", one).allowed, true);
    assert.equal(store.hit("a1", one).allowed, false);
  } finally {
    clock.uninstall();
  }
});

Deno.test("lockout: KV store, on a real file: window from the last counted hit, checked on read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rate-limit-lockout-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const store = createKvRateLimitStore({ client: kv });
    // KV's expireIn runs on real time, so with Date faked the entries are
    // still there when the count is forgotten: the time stored in the
    // value is what decides.
    await windowFromLastCountedHit(store);
    const entry = await kv.get<{ count: number; last: number }>([
      "rate_limit",
      "k",
    ]);
    assert.equal(entry.value?.count, 1);
    assert.equal(typeof entry.value?.last, "number");
    await thirtyConcurrent(store);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lockout: KV store, two handles on one file: each sees the other's counts and resets", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rate-limit-lockout-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  const other = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const store = createKvRateLimitStore({ client: kv });
    const elsewhere = createKvRateLimitStore({ client: other });
    assert.equal((await store.hit("k", policy)).remaining, 2);
    assert.equal((await elsewhere.hit("k", policy)).remaining, 1);
    assert.equal((await store.hit("k", policy)).remaining, 0);
    assert.equal((await elsewhere.hit("k", policy)).allowed, false);
    // A reset elsewhere: the remembered refusal is checked against the file.
    await elsewhere.reset("k");
    assert.equal((await store.hit("k", policy)).remaining, 2);
    // A GCRA number left under the key counts as no lockout.
    await kv.set(["rate_limit", "g"], Date.now() + 1e6);
    assert.equal((await store.hit("g", policy)).remaining, 2);
    // Thirty at once across both handles: ten pass.
    const tenPerMinute: RateLimitPolicy = { ...policy, limit: 10 };
    const results = await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) => (i % 2 ? store : elsewhere).hit("both", tenPerMinute),
      ),
    );
    assert.equal(results.filter((result) => result.allowed).length, 10);
  } finally {
    kv.close();
    other.close();
    await Deno.remove(dir, { recursive: true });
  }
});

const redisServer = await redisServerOrSkip();

Deno.test({
  name:
    "lockout: Redis store, on Redis' clock: window from the last counted hit, PX expiry, reset",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const store = createRedisRateLimitStore({ client });
      const short: RateLimitPolicy = {
        limit: 2,
        windowMs: 2000,
        algorithm: "lockout",
      };
      const first = await store.hit("k", short);
      assert.deepEqual(first, {
        allowed: true,
        limit: 2,
        remaining: 1,
        resetMs: 2000,
        retryAfterMs: 0,
      });
      assert.equal(await client.get("rate_limit:k"), "1");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal((await store.hit("k", short)).remaining, 0);
      const refused = await store.hit("k", short);
      assert.equal(refused.allowed, false);
      // Counted from the second hit: more than 1 s left (from the first,
      // at most 1 s would be).
      assert.ok(
        refused.retryAfterMs > 1000 && refused.retryAfterMs <= 2000,
        String(refused.retryAfterMs),
      );
      // Refusals move nothing: the time left only shrinks.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await store.hit("k", short);
      assert.ok(again.retryAfterMs < refused.retryAfterMs);
      assert.ok((await client.pTTL("rate_limit:k")) <= again.retryAfterMs);
      await new Promise((resolve) =>
        setTimeout(resolve, again.retryAfterMs + 50)
      );
      assert.equal((await store.hit("k", short)).remaining, 1);
      await store.reset("k");
      assert.equal(await client.exists("rate_limit:k"), 0);
      // A key without an expiry (not written by the store) gets one.
      await client.set("rate_limit:stuck", "2");
      const stuck = await store.hit("stuck", short);
      assert.equal(stuck.allowed, false);
      assert.equal(stuck.retryAfterMs, 2000);
      // Junk under the key counts as no lockout.
      await client.set("rate_limit:junk", "1.5");
      assert.equal((await store.hit("junk", short)).remaining, 1);
      await thirtyConcurrent(store);
      // The long window, exactly: PX is windowMs.
      await store.hit("long", policy);
      const ttl = await client.pTTL("rate_limit:long");
      assert.ok(ttl > 59_000 && ttl <= 60_000, String(ttl));
    } finally {
      await client.quit();
      await redis.stop();
    }
  },
});

Deno.test({
  name: "lockout: Redis store, EVALSHA of each script with a NOSCRIPT fallback",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const calls: string[] = [];
      const store = createRedisRateLimitStore({
        client: {
          eval: (...args: Parameters<typeof client.eval>) => {
            calls.push("eval");
            return client.eval(...args);
          },
          evalSha: (...args: Parameters<typeof client.evalSha>) => {
            calls.push("evalSha");
            return client.evalSha(...args);
          },
          del: (key: string) => client.del(key),
        },
      });
      await store.hit("a", policy);
      await store.hit("a", policy);
      await store.hit("b", { limit: 2, windowMs: 1000 }); // GCRA: its own
      await store.hit("b", { limit: 2, windowMs: 1000 });
      assert.deepEqual(calls, [
        "evalSha",
        "eval",
        "evalSha",
        "evalSha",
        "eval",
        "evalSha",
      ]);
    } finally {
      await client.quit();
      await redis.stop();
    }
  },
});
