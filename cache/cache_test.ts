// cache() on the memory store: what is stored, for how long, under which
// key, and the stampede within one process. Portable (runs on Node and Bun).

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  type CacheOptions,
  type CacheStore,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";

type Build = (request: Request) => Response | Promise<Response>;

/** A router with cache() on GET and POST /page; counts handler runs. */
function app(build: Build, options: Partial<CacheOptions> = {}) {
  const router = createRouter();
  const runs = { count: 0 };
  const middleware = cache({ store: createMemoryCacheStore(), ...options });
  const handler = ({ request }: { request: Request }) => {
    runs.count++;
    return build(request);
  };
  router.get("/page", middleware, handler);
  router.post("/page", middleware, handler);
  const fetch = (init: RequestInit & { path?: string } = {}) =>
    router.fetch(
      new Request(`http://localhost${init.path ?? "/page"}`, init),
    );
  return { runs, fetch };
}

async function withClock(
  fn: (clock: ReturnType<typeof FakeTimers.install>) => Promise<void>,
): Promise<void> {
  const clock = FakeTimers.install({ now: 1_000_000, toFake: ["Date"] });
  try {
    await fn(clock);
  } finally {
    clock.uninstall();
  }
}

Deno.test("cache: a MISS is stored and the next GET is a HIT with Age", async () => {
  await withClock(async (clock) => {
    const { runs, fetch } = app(() =>
      new Response("hello", { headers: { "Content-Type": "text/plain" } })
    );
    const first = await fetch();
    assert.equal(first.headers.get("X-Cache"), "MISS");
    assert.equal(await first.text(), "hello");
    clock.tick(3_500);
    const second = await fetch();
    assert.equal(second.headers.get("X-Cache"), "HIT");
    assert.equal(second.headers.get("Age"), "3");
    assert.equal(second.headers.get("Content-Type"), "text/plain");
    assert.equal(await second.text(), "hello");
    assert.equal(runs.count, 1);
  });
});

Deno.test("cache: a HIT's body can be read by every client (each gets a copy)", async () => {
  const { fetch } = app(() => new Response("shared"));
  await (await fetch()).text();
  const [a, b] = await Promise.all([fetch(), fetch()]);
  assert.equal(await a.text(), "shared");
  assert.equal(await b.text(), "shared");
});

Deno.test("cache: HEAD reads what GET stored, and a HEAD miss stores nothing", async () => {
  const { runs, fetch } = app(() => new Response("body"));
  const headMiss = await fetch({ method: "HEAD" });
  assert.equal(headMiss.status, 200);
  assert.equal((await fetch()).headers.get("X-Cache"), "MISS");
  const head = await fetch({ method: "HEAD" });
  assert.equal(head.headers.get("X-Cache"), "HIT");
  assert.equal(await head.text(), "");
  assert.equal(runs.count, 2);
});

for (
  const [name, headers] of [
    ["Cache-Control: no-store", { "Cache-Control": "no-store" }],
    ["Cache-Control: private", { "Cache-Control": "private, max-age=60" }],
    ["Cache-Control: no-cache", { "Cache-Control": "no-cache" }],
    ["Set-Cookie", { "Set-Cookie": "session=abc; HttpOnly" }],
    ["Vary: *", { "Vary": "*" }],
    ["max-age=0", { "Cache-Control": "max-age=0" }],
    ["text/event-stream", { "Content-Type": "text/event-stream" }],
  ] as const
) {
  Deno.test(`cache: a personalised page with ${name} is never served to another client`, async () => {
    // The page greets whoever's cookie came with the request.
    const { runs, fetch } = app((request) =>
      new Response(`hello ${request.headers.get("cookie")}`, { headers })
    );
    const ada = await fetch({ headers: { cookie: "user=ada" } });
    assert.equal(await ada.text(), "hello user=ada");
    assert.equal(ada.headers.get("X-Cache"), "MISS");
    const bob = await fetch({ headers: { cookie: "user=bob" } });
    assert.equal(await bob.text(), "hello user=bob");
    assert.equal(bob.headers.get("X-Cache"), "MISS");
    assert.equal(runs.count, 2);
  });
}

Deno.test("cache: only 200 answers to GET are stored", async () => {
  let status = 404;
  const { runs, fetch } = app(() => new Response("x", { status }));
  assert.equal((await fetch()).status, 404);
  assert.equal((await fetch()).headers.get("X-Cache"), "MISS");
  status = 201;
  await fetch();
  assert.equal((await fetch()).headers.get("X-Cache"), "MISS");
  assert.equal(runs.count, 4);
  status = 200;
  const post = await fetch({ method: "POST", body: "a" });
  assert.equal(post.headers.get("X-Cache"), null, "POST passes by");
  await fetch({ method: "POST", body: "a" });
  assert.equal(runs.count, 6);
});

Deno.test("cache: requests with Authorization or Range are neither stored nor served from the cache", async () => {
  const { runs, fetch } = app((request) =>
    new Response(`for ${request.headers.get("authorization")}`)
  );
  const ada = await fetch({ headers: { authorization: "Bearer ada" } });
  assert.equal(await ada.text(), "for Bearer ada");
  const bob = await fetch({ headers: { authorization: "Bearer bob" } });
  assert.equal(await bob.text(), "for Bearer bob");
  await fetch(); // stored, for anonymous requests
  const eve = await fetch({ headers: { authorization: "Bearer eve" } });
  assert.equal(await eve.text(), "for Bearer eve");
  const range = await fetch({ headers: { range: "bytes=0-1" } });
  assert.equal(range.headers.get("X-Cache"), null);
  assert.equal(runs.count, 5);
});

Deno.test("cache: lifetime from s-maxage, then max-age, then ttl", async () => {
  for (
    const [cacheControl, ttl, freshSeconds] of [
      ["s-maxage=20, max-age=5", 60, 20],
      ["max-age=5", 60, 5],
      [null, 7, 7],
      ["public", 9, 9],
    ] as const
  ) {
    await withClock(async (clock) => {
      const headers: HeadersInit = cacheControl === null
        ? {}
        : { "Cache-Control": cacheControl };
      const { runs, fetch } = app(() => new Response("x", { headers }), {
        ttl,
      });
      await fetch();
      clock.tick(freshSeconds * 1000 - 1);
      assert.equal(
        (await fetch()).headers.get("X-Cache"),
        "HIT",
        `${cacheControl}: fresh for ${freshSeconds} s`,
      );
      clock.tick(2);
      assert.equal(
        (await fetch()).headers.get("X-Cache"),
        "MISS",
        `${cacheControl}: expired after ${freshSeconds} s`,
      );
      assert.equal(runs.count, 2);
    });
  }
});

Deno.test("cache: ttl 0 stores only responses that give their own lifetime", async () => {
  const sent: { cacheControl?: string } = {};
  const { runs, fetch } = app(
    () =>
      new Response("x", {
        headers: sent.cacheControl
          ? { "Cache-Control": sent.cacheControl }
          : {},
      }),
    { ttl: 0 },
  );
  await fetch();
  await fetch();
  assert.equal(runs.count, 2);
  sent.cacheControl = "max-age=30";
  await fetch();
  assert.equal((await fetch()).headers.get("X-Cache"), "HIT");
  assert.equal(runs.count, 3);
});

Deno.test("cache: the key holds the URL with its query, and the vary option's headers", async () => {
  const { runs, fetch } = app(
    (request) =>
      new Response(
        `${new URL(request.url).search} ${
          request.headers.get("accept-language")
        }`,
      ),
    { vary: ["Accept-Language"] },
  );
  const en = { headers: { "Accept-Language": "en" } };
  const fr = { headers: { "Accept-Language": "fr" } };
  assert.equal(
    await (await fetch({ ...en, path: "/page?a=1" })).text(),
    "?a=1 en",
  );
  assert.equal(
    await (await fetch({ ...fr, path: "/page?a=1" })).text(),
    "?a=1 fr",
  );
  assert.equal(
    await (await fetch({ ...en, path: "/page?a=2" })).text(),
    "?a=2 en",
  );
  const hit = await fetch({ ...fr, path: "/page?a=1" });
  assert.equal(hit.headers.get("X-Cache"), "HIT");
  assert.equal(await hit.text(), "?a=1 fr");
  assert.equal(runs.count, 3);
});

Deno.test("cache: a response's own Vary selects variants too", async () => {
  const { runs, fetch } = app((request) =>
    new Response(`accept ${request.headers.get("accept")}`, {
      headers: { Vary: "Accept" },
    })
  );
  const json = { headers: { Accept: "application/json" } };
  const html = { headers: { Accept: "text/html" } };
  assert.equal(await (await fetch(json)).text(), "accept application/json");
  assert.equal(await (await fetch(html)).text(), "accept text/html");
  const again = await fetch(json);
  assert.equal(again.headers.get("X-Cache"), "HIT");
  assert.equal(await again.text(), "accept application/json");
  assert.equal(runs.count, 2);
});

Deno.test("cache: the key option replaces the URL", async () => {
  const { runs, fetch } = app(() => new Response("same"), {
    key: ({ url }) => url.pathname,
  });
  await fetch({ path: "/page?utm_source=a" });
  const hit = await fetch({ path: "/page?utm_source=b" });
  assert.equal(hit.headers.get("X-Cache"), "HIT");
  assert.equal(runs.count, 1);
});

Deno.test("cache: a body over maxBodyBytes passes through whole, unstored", async () => {
  const big = "x".repeat(5000);
  const { runs, fetch } = app(() =>
    new Response(
      new ReadableStream({
        start(controller) {
          const bytes = new TextEncoder().encode(big);
          for (let i = 0; i < bytes.length; i += 1000) {
            controller.enqueue(bytes.subarray(i, i + 1000));
          }
          controller.close();
        },
      }),
    ), { maxBodyBytes: 2048 });
  const first = await fetch();
  assert.equal(first.headers.get("X-Cache"), "MISS");
  assert.equal(await first.text(), big);
  assert.equal(await (await fetch()).text(), big);
  assert.equal(runs.count, 2);
});

Deno.test("cache: 20 concurrent misses run the handler once; the others get its answer", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const { runs, fetch } = app(async () => {
    await gate;
    return new Response("built once");
  });
  const pending = Array.from({ length: 20 }, () => fetch());
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  const responses = await Promise.all(pending);
  assert.equal(runs.count, 1);
  for (const response of responses) {
    assert.equal(await response.text(), "built once");
  }
  assert.deepEqual(
    responses.map((r) => r.headers.get("X-Cache")).sort(),
    ["MISS", ...Array(19).fill("HIT")].sort(),
  );
});

Deno.test("cache: waiters give up after lockTimeout and run the handler themselves", async () => {
  let calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const { fetch } = app(async () => {
    if (++calls === 1) await gate;
    return new Response(`call ${calls}`);
  }, { lockTimeout: 50 });
  const slow = fetch();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const waiter = await fetch();
  assert.equal(await waiter.text(), "call 2");
  release();
  assert.equal(await (await slow).text(), "call 2");
});

Deno.test("cache: staleWhileRevalidate serves STALE while one request regenerates", async () => {
  await withClock(async (clock) => {
    let version = 0;
    const { runs, fetch } = app(() => new Response(`v${++version}`), {
      ttl: 10,
      staleWhileRevalidate: 30,
    });
    assert.equal(await (await fetch()).text(), "v1");
    clock.tick(15_000);
    const stale = await Promise.all([fetch(), fetch(), fetch()]);
    for (const response of stale) {
      assert.equal(response.headers.get("X-Cache"), "STALE");
      assert.equal(await response.text(), "v1");
    }
    // Let the one background regeneration finish.
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(runs.count, 2);
    const fresh = await fetch();
    assert.equal(fresh.headers.get("X-Cache"), "HIT");
    assert.equal(await fresh.text(), "v2");
    clock.tick(45_000);
    assert.equal(
      (await fetch()).headers.get("X-Cache"),
      "MISS",
      "past the stale window",
    );
  });
});

function brokenStore(error: () => Error): CacheStore {
  return {
    name: "broken",
    maxValueBytes: 1 << 20,
    get: () => Promise.reject(error()),
    set: () => Promise.reject(error()),
    delete: () => Promise.reject(error()),
  };
}

Deno.test("cache: a store error that is not an outage reaches the router (500)", async () => {
  const router = createRouter();
  router.get(
    "/",
    cache({ store: brokenStore(() => new TypeError("a bug")) }),
    () => new Response("unreached"),
  );
  const original = console.error;
  console.error = () => {};
  try {
    const response = await router.fetch(new Request("http://localhost/"));
    assert.equal(response.status, 500);
    await response.body?.cancel();
  } finally {
    console.error = original;
  }
});

Deno.test("cache: a store outage lets the handler answer, uncached", async () => {
  const broken = brokenStore(() =>
    new StoreUnavailableError("broken", "connection refused")
  );
  const router = createRouter();
  router.get("/", cache({ store: broken }), () => new Response("still here"));
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    const response = await router.fetch(new Request("http://localhost/"));
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "still here");
    assert.ok(errors.length > 0, "the failure is logged");
  } finally {
    console.error = original;
  }
});

Deno.test("cache: bad options are refused with what was wrong", () => {
  assert.throws(
    () => cache({} as CacheOptions),
    /cache\(\) needs `store`/,
  );
  assert.throws(
    () => cache({ store: createMemoryCacheStore(), ttl: -1 }),
    /ttl must be a finite number >= 0, got -1/,
  );
  assert.throws(
    () => cache({ store: createMemoryCacheStore(), lockTimeout: 0 }),
    /lockTimeout must be a finite number >= 1, got 0/,
  );
});

Deno.test("cache: an answer with immutable headers is marked on a copy", async () => {
  // Response.redirect() answers, like fetch() ones, have immutable headers.
  const { fetch } = app(() =>
    Response.redirect("http://localhost/elsewhere", 302)
  );
  const redirected = await fetch();
  assert.equal(redirected.status, 302);
  assert.equal(redirected.headers.get("X-Cache"), "MISS");
  assert.equal(
    redirected.headers.get("Location"),
    "http://localhost/elsewhere",
  );
});

Deno.test("cache: a response's stale-while-revalidate directive gives its stale window", async () => {
  await withClock(async (clock) => {
    const { fetch } = app(() =>
      new Response("x", {
        headers: { "Cache-Control": "max-age=10, stale-while-revalidate=30" },
      })
    );
    await fetch();
    clock.tick(20_000);
    assert.equal((await fetch()).headers.get("X-Cache"), "STALE");
    await new Promise((resolve) => setTimeout(resolve, 10));
    clock.tick(60_000);
    assert.equal((await fetch()).headers.get("X-Cache"), "MISS");
  });
});
