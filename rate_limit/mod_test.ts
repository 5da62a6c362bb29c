import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createClient } from "redis";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createKvRateLimitStore,
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  rateLimit,
  type RateLimitKv,
  type RateLimitOptions,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { app, from } from "./_test_app.ts";

function withClock(
  fn: (clock: ReturnType<typeof FakeTimers.install>) => Promise<void>,
) {
  return async () => {
    const clock = FakeTimers.install({ now: 1_000_000, toFake: ["Date"] });
    try {
      await fn(clock);
    } finally {
      clock.uninstall();
    }
  };
}

Deno.test(
  "rateLimit: headers in the draft's form, 429 with Retry-After, refill",
  withClock(async (clock) => {
    const request = app(rateLimit({ limit: 2, windowMs: 60_000 }));
    const first = await request();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("RateLimit-Policy"), '"default";q=2;w=60');
    assert.equal(first.headers.get("RateLimit"), '"default";r=1;t=30');
    const second = await request();
    assert.equal(second.headers.get("RateLimit"), '"default";r=0;t=60');
    const third = await request();
    assert.equal(third.status, 429);
    assert.equal(await third.text(), "Too Many Requests");
    assert.equal(third.headers.get("Retry-After"), "30");
    assert.equal(third.headers.get("RateLimit"), '"default";r=0;t=60');
    // Refused requests are not counted: still 30 s to wait.
    assert.equal((await request()).headers.get("Retry-After"), "30");
    // Another client has its own budget.
    assert.equal((await request(from("192.0.2.2"))).status, 200);
    clock.tick(29_000);
    assert.equal((await request()).headers.get("Retry-After"), "1");
    clock.tick(1_000);
    const again = await request();
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("RateLimit"), '"default";r=0;t=60');
    clock.tick(60_000);
    assert.equal(
      (await request()).headers.get("RateLimit"),
      '"default";r=1;t=30',
    );
  }),
);

Deno.test("rateLimit: exactly limit pass among concurrent requests", async () => {
  const request = app(rateLimit({ limit: 10, windowMs: 60_000 }));
  const statuses = await Promise.all(
    Array.from({ length: 30 }, () => request().then((r) => r.status)),
  );
  assert.equal(statuses.filter((status) => status === 200).length, 10);
});

Deno.test("rateLimit: no key, no count, no headers, one warning", async () => {
  const warnings: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args);
  try {
    const request = app(rateLimit({ limit: 1, windowMs: 60_000 }));
    for (let i = 0; i < 3; i++) {
      const response = await request(null);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("RateLimit"), null);
    }
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0]), /router.fetch\(request, info\)/);
    // A key function that gives undefined skips quietly.
    const skip = app(
      rateLimit({ limit: 1, windowMs: 1000, key: () => undefined }),
    );
    assert.equal((await skip()).status, 200);
    assert.equal((await skip()).status, 200);
    assert.equal(warnings.length, 1);
  } finally {
    console.warn = warn;
  }
});

Deno.test("rateLimit: onLimit answers, keeping its own Retry-After", async () => {
  const request = app(rateLimit({
    limit: 1,
    windowMs: 10_000,
    onLimit: (context, result) =>
      new Response(`<h1>Slow down, ${context.remoteAddr?.hostname}</h1>`, {
        status: 429,
        headers: {
          "Content-Type": "text/html",
          ...(result.retryAfterMs > 5000 ? { "Retry-After": "99" } : {}),
        },
      }),
  }));
  await request();
  const refused = await request();
  assert.equal(refused.status, 429);
  assert.equal(await refused.text(), "<h1>Slow down, 192.0.2.1</h1>");
  assert.equal(refused.headers.get("Retry-After"), "99");
  assert.equal(refused.headers.get("RateLimit-Policy"), '"default";q=1;w=10');
});

Deno.test("rateLimit: two limiters append to the headers; reset forgets a key", async () => {
  const store = createMemoryRateLimitStore();
  const perAddress = rateLimit({
    name: "address",
    limit: 5,
    windowMs: 60_000,
    store,
  });
  const perUser = rateLimit({
    name: "user",
    limit: 1,
    windowMs: 60_000,
    store,
    key: ({ headers }) => headers.get("X-User") ?? undefined,
  });
  const router = createRouter({ middleware: [perAddress, perUser] });
  router.get("/", () => new Response("ok"));
  const request = () =>
    Promise.resolve(router.fetch(
      new Request("http://localhost/", { headers: { "X-User": "ada" } }),
      from("192.0.2.1"),
    ));
  const response = await request();
  assert.equal(
    response.headers.get("RateLimit-Policy"),
    '"user";q=1;w=60, "address";q=5;w=60',
  );
  assert.equal(
    response.headers.get("RateLimit"),
    '"user";r=0;t=60, "address";r=4;t=12',
  );
  assert.equal((await request()).status, 429);
  await perUser.reset("ada");
  assert.equal((await request()).status, 200);
});

Deno.test("rateLimit: responses with immutable headers, headers: false", async () => {
  const request = app(rateLimit({ limit: 1, windowMs: 1000 }));
  const redirect = await request(
    undefined === undefined ? from("192.0.2.9") : undefined,
    "/away",
  );
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get("RateLimit"), '"default";r=0;t=1');
  const quiet = app(rateLimit({ limit: 1, windowMs: 1000, headers: false }));
  assert.equal((await quiet()).headers.get("RateLimit"), null);
  const refused = await quiet();
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("RateLimit"), null);
  assert.equal(refused.headers.get("Retry-After"), "1");
});

Deno.test("rateLimit: IPv6 clients count by /64 unless told otherwise", async () => {
  const request = app(rateLimit({ limit: 1, windowMs: 60_000 }));
  assert.equal((await request(from("2001:db8:1:2::1"))).status, 200);
  assert.equal((await request(from("2001:db8:1:2:ffff::9"))).status, 429);
  assert.equal((await request(from("2001:db8:1:3::1"))).status, 200);
  const single = app(
    rateLimit({ limit: 1, windowMs: 60_000, ipv6Subnet: 128 }),
  );
  assert.equal((await single(from("2001:db8::1"))).status, 200);
  assert.equal((await single(from("2001:db8::2"))).status, 200);
  // IPv4-mapped addresses count as the IPv4 address.
  const mapped = app(rateLimit({ limit: 1, windowMs: 60_000 }));
  assert.equal((await mapped(from("::ffff:192.0.2.1"))).status, 200);
  assert.equal((await mapped(from("192.0.2.1"))).status, 429);
});

Deno.test("rateLimit: bad options are refused with what was wrong", () => {
  const cases: [Partial<RateLimitOptions>, RegExp][] = [
    [{ limit: 0, windowMs: 1000 }, /limit must be a whole number >= 1, got 0/],
    [{ limit: 1.5, windowMs: 1000 }, /limit must be a whole number/],
    [{ limit: 1, windowMs: 0 }, /windowMs must be a positive number/],
    [{ limit: 1, windowMs: Infinity }, /windowMs must be a positive number/],
    [{ limit: 1, windowMs: 1, name: 'a"b' }, /name must be 1-64 letters/],
    [{ limit: 1, windowMs: 1, ipv6Subnet: 0 }, /ipv6Subnet must be/],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => rateLimit(options as RateLimitOptions),
      { name: "TypeError", message },
    );
  }
  const store = createMemoryRateLimitStore();
  rateLimit({ limit: 5, windowMs: 1000, store });
  rateLimit({ limit: 5, windowMs: 1000, store }); // same policy: shared
  assert.throws(
    () => rateLimit({ limit: 6, windowMs: 1000, store }),
    /the name "default" is already used on this store with limit\/windowMs 5\/1000/,
  );
});

Deno.test(
  "memory store: forgets keys whose limit is back as it grows",
  withClock(async (clock) => {
    const store = createMemoryRateLimitStore();
    const policy = { limit: 1, windowMs: 1000 };
    for (let i = 0; i < 1500; i++) store.hit(`a${i}`, policy);
    clock.tick(2000);
    for (let i = 0; i < 1500; i++) store.hit(`b${i}`, policy);
    // The a-keys were swept: each is new again, with its full limit.
    assert.equal(store.hit("a1", policy).remaining, 0);
    assert.equal(store.hit("a1", policy).allowed, false);
    await Promise.resolve();
  }),
);

Deno.test("KV store: counts, refuses, confirms a remembered refusal, resets", async () => {
  const dir = await Deno.makeTempDir({ prefix: "rate-limit-kv-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  const other = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const store = createKvRateLimitStore({ client: kv });
    const elsewhere = createKvRateLimitStore({ client: other });
    const policy = { limit: 2, windowMs: 60_000 };
    assert.equal((await store.hit("k", policy)).remaining, 1);
    assert.equal((await store.hit("k", policy)).remaining, 0);
    assert.equal((await store.hit("k", policy)).allowed, false);
    // Another server resets the key: the remembered state is stale, and
    // the refusal it would give is checked against the database.
    await elsewhere.reset("k");
    assert.equal((await store.hit("k", policy)).allowed, true);
    // The other server's write is seen through the failed compare-and-set.
    assert.equal((await elsewhere.hit("k", policy)).remaining, 0);
    assert.equal((await store.hit("k", policy)).allowed, false);
    const entry = await kv.get(["rate_limit", "k"]);
    assert.equal(typeof entry.value, "number");
  } finally {
    kv.close();
    other.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("KV store: retries 'database is locked', rethrows other errors", async () => {
  const real = await Deno.openKv(":memory:");
  try {
    let failures = 2;
    const flaky: RateLimitKv = {
      get: (key) => real.get(key),
      delete: (key) => real.delete(key),
      atomic() {
        const operation = real.atomic();
        const wrapped = {
          check: (...checks: Parameters<typeof operation.check>) => {
            operation.check(...checks);
            return wrapped;
          },
          set: (...args: Parameters<typeof operation.set>) => {
            operation.set(...args);
            return wrapped;
          },
          commit: () => {
            if (failures-- > 0) {
              return Promise.reject(new Error("database is locked"));
            }
            return operation.commit();
          },
        };
        return wrapped;
      },
    };
    const store = createKvRateLimitStore({ client: flaky });
    assert.equal(
      (await store.hit("k", { limit: 3, windowMs: 1000 })).remaining,
      2,
    );
    assert.equal(failures, -1);
    const broken = createKvRateLimitStore({
      client: {
        ...flaky,
        get: () => Promise.reject(new Error("disk on fire")),
      },
    });
    await broken.hit("x", { limit: 1, windowMs: 1000 });
    await assert.rejects(
      () => Promise.resolve(broken.hit("x", { limit: 1, windowMs: 1000 })),
      /disk on fire/,
    );
    assert.throws(
      // deno-lint-ignore no-explicit-any
      () => createKvRateLimitStore({ client: undefined as any }),
      /needs `client`: an open Deno KV database/,
    );
  } finally {
    real.close();
  }
});

const redisServer = await redisServerOrSkip();

Deno.test({
  name:
    "Redis store: counts on Redis' clock, EVALSHA with a NOSCRIPT fallback, reset",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const calls: string[] = [];
      const counted = {
        eval: (...args: Parameters<typeof client.eval>) => {
          calls.push("eval");
          return client.eval(...args);
        },
        evalSha: (...args: Parameters<typeof client.evalSha>) => {
          calls.push("evalSha");
          return client.evalSha(...args);
        },
        del: (key: string) => client.del(key),
      };
      const store: RateLimitStore = createRedisRateLimitStore({
        client: counted,
      });
      const policy = { limit: 2, windowMs: 60_000 };
      const first = await store.hit("k", policy);
      assert.deepEqual(
        { ...first, resetMs: Math.round(first.resetMs) },
        {
          allowed: true,
          limit: 2,
          remaining: 1,
          resetMs: 30_000,
          retryAfterMs: 0,
        },
      );
      assert.equal((await store.hit("k", policy)).remaining, 0);
      const refused = await store.hit("k", policy);
      assert.equal(refused.allowed, false);
      assert.ok(Math.abs(refused.retryAfterMs - 30_000) < 1000);
      // The first EVALSHA met NOSCRIPT and sent the text; later ones did not.
      assert.deepEqual(calls, ["evalSha", "eval", "evalSha", "evalSha"]);
      const ttl = await client.pTTL("rate_limit:k");
      assert.ok(ttl > 59_000 && ttl <= 60_000, String(ttl));
      await store.reset("k");
      assert.equal((await store.hit("k", policy)).allowed, true);
      // A client without evalSha sends the script each time.
      const plain = createRedisRateLimitStore({
        client: { eval: counted.eval, del: counted.del },
        prefix: "other:",
      });
      assert.equal((await plain.hit("k", policy)).remaining, 1);
      assert.equal(await client.exists("other:k"), 1);
    } finally {
      await client.quit();
      await redis.stop();
    }
  },
});

Deno.test("rateLimit: an async key function is awaited", async () => {
  const request = app(rateLimit({
    limit: 1,
    windowMs: 60_000,
    key: async ({ headers }) => {
      await Promise.resolve();
      return headers.get("X-Api-Key") ?? undefined;
    },
  }));
  assert.equal((await request()).status, 200); // no key: not counted
  assert.equal((await request()).status, 200);
  const router = createRouter({
    middleware: [rateLimit({
      limit: 1,
      windowMs: 60_000,
      key: ({ headers }) =>
        Promise.resolve(headers.get("X-Api-Key") ?? undefined),
    })],
  });
  router.get("/", () => new Response("ok"));
  const keyed = () =>
    Promise.resolve(router.fetch(
      new Request("http://localhost/", { headers: { "X-Api-Key": "k1" } }),
    ));
  assert.equal((await keyed()).status, 200);
  assert.equal((await keyed()).status, 429);
});

Deno.test("rateLimit: a long client-chosen key is stored as its hash: no 500 on KV, a bounded entry, reset still works", async () => {
  const kv = await Deno.openKv(":memory:");
  const keys: string[] = [];
  const recording: RateLimitStore = {
    hit(key, policy) {
      keys.push(key);
      return memory.hit(key, policy);
    },
    reset: (key) => memory.reset(key),
  };
  const memory = createMemoryRateLimitStore();
  try {
    for (const store of [createKvRateLimitStore({ client: kv }), recording]) {
      let sent = "";
      const limiter = rateLimit({
        name: "email",
        limit: 2,
        windowMs: 60_000,
        store,
        key: () => sent,
      });
      const request = app(limiter);
      // Past Deno KV's 2 KiB key limit, and a megabyte.
      for (const length of [3000, 1_000_000]) {
        sent = "a".repeat(length);
        assert.equal((await request()).status, 200);
        assert.equal((await request()).status, 200);
        assert.equal((await request()).status, 429);
        await limiter.reset(sent);
        assert.equal((await request()).status, 200);
      }
      // Keys differing only past the bound are counted apart.
      sent = "b".repeat(300) + "1";
      assert.equal((await request()).status, 200);
      sent = "b".repeat(300) + "2";
      assert.equal((await request()).status, 200);
      assert.equal((await request()).status, 200);
      assert.equal((await request()).status, 429);
      // A short key spelled like a hashed one is hashed too.
      sent = "#x";
      assert.equal((await request()).status, 200);
    }
    assert.ok(keys.every((key) => key.length <= 300), "bounded store keys");
    assert.match(keys.at(-1)!, /^email:#[\w-]{43}$/);
  } finally {
    kv.close();
  }
});

Deno.test({
  name:
    "Redis store: a window that does not divide by the limit counts as the memory store does",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const store = createRedisRateLimitStore({ client });
      const memory = createMemoryRateLimitStore();
      // 60000 / 7 and 1000 / 3 have no exact binary form.
      for (
        const policy of [{ limit: 7, windowMs: 60_000 }, {
          limit: 3,
          windowMs: 1000,
        }]
      ) {
        for (let i = 0; i <= policy.limit; i++) {
          const ours = await store.hit(`k${policy.limit}`, policy);
          const expected = await memory.hit(`k${policy.limit}`, policy);
          assert.equal(ours.allowed, expected.allowed, `hit ${i + 1}`);
          assert.equal(ours.remaining, expected.remaining, `hit ${i + 1}`);
          // The clocks differ by the round trip: a few ms at most.
          assert.ok(
            Math.abs(ours.resetMs - expected.resetMs) < 50,
            `${ours.resetMs} ${expected.resetMs}`,
          );
          assert.ok(
            Math.abs(ours.retryAfterMs - expected.retryAfterMs) < 50,
            `${ours.retryAfterMs} ${expected.retryAfterMs}`,
          );
        }
        // The stored arrival time keeps its fraction of a millisecond
        // (written from a Lua number, not truncated to an integer).
        const stored = Number(await client.get(`rate_limit:k${policy.limit}`));
        assert.ok(stored > 1e12 && stored % 1 !== 0, String(stored));
      }
      // An unexpected reply (a client or proxy that mangles it) is an error.
      const broken = createRedisRateLimitStore({
        client: {
          eval: () => Promise.resolve([1, "2"]),
          del: () => Promise.resolve(0),
        },
      });
      await assert.rejects(
        () => Promise.resolve(broken.hit("k", { limit: 1, windowMs: 1000 })),
        /unexpected reply from Redis: \[1,"2"\]/,
      );
    } finally {
      await client.quit();
      await redis.stop();
    }
  },
});
