// cache() on the memory store answers a fresh hit before the route's
// context and chain are built (router/early_answer.ts) when it is the
// first middleware to run; the documented order holds whichever way a
// request goes. Portable (runs on Node and Bun).

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  createRouter,
  type Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { EARLY_ANSWER, type EarlyAnswer } from "../router/early_answer.ts";
import { rememberedText } from "../response/body_size.ts";

const URL_ = "http://localhost/page";

function earlyOf(middleware: Middleware): EarlyAnswer | undefined {
  return (middleware as { [EARLY_ANSWER]?: EarlyAnswer })[EARLY_ANSWER];
}

Deno.test("cache: a memory store without a key of its own offers the router an early answer", async () => {
  const middleware = cache({ store: createMemoryCacheStore() });
  const early = earlyOf(middleware)!;
  assert.equal(typeof early, "function");
  assert.equal(early(new Request(URL_), "GET", undefined), undefined);
  const miss = await middleware(
    new RequestContext(new Request(URL_)),
    () => Promise.resolve(new Response("page")),
  ) as Response;
  await miss.text();
  const hit = early(new Request(URL_), "GET", undefined)!;
  assert.equal(hit.headers.get("X-Cache"), "HIT");
  assert.equal(await hit.text(), "page");
  const head = early(new Request(URL_, { method: "HEAD" }), "HEAD", undefined)!;
  assert.equal(head.body, null);
  assert.equal(early(new Request(URL_), "POST", undefined), undefined);
  // A credential, a range or an upgrade: the ordinary way (never a hit).
  for (const name of ["Authorization", "Range", "Upgrade"]) {
    const request = new Request(URL_, { headers: { [name]: "x" } });
    assert.equal(early(request, "GET", undefined), undefined, name);
  }

  // A key of its own reads the context: no early answer.
  assert.equal(
    earlyOf(cache({ store: createMemoryCacheStore(), key: () => "k" })),
    undefined,
  );
});

Deno.test("cache: a hit answered early is the middleware's hit (body, headers, Vary variants, remembered text)", async () => {
  const router = createRouter();
  let runs = 0;
  router.get(
    "/page",
    cache({ store: createMemoryCacheStore(), vary: ["Accept-Language"] }),
    ({ headers }) => {
      runs++;
      return new Response(`page ${headers.get("Accept-Language")} ${runs}`, {
        headers: { "Content-Type": "text/html", "Vary": "Accept-Encoding" },
      });
    },
  );
  const fetchText = async (language: string, encoding: string) => {
    const response = await router.fetch(
      new Request(URL_, {
        headers: { "Accept-Language": language, "Accept-Encoding": encoding },
      }),
    );
    return [response.headers.get("X-Cache"), await response.text()];
  };
  assert.deepEqual(await fetchText("fr", "gzip"), ["MISS", "page fr 1"]);
  assert.deepEqual(await fetchText("fr", "gzip"), ["HIT", "page fr 1"]);
  assert.deepEqual(await fetchText("en", "gzip"), ["MISS", "page en 2"]);
  assert.deepEqual(await fetchText("fr", "br"), ["MISS", "page fr 3"]);
  assert.deepEqual(await fetchText("fr", "br"), ["HIT", "page fr 3"]);
  assert.deepEqual(await fetchText("en", "gzip"), ["HIT", "page en 2"]);
  // Each hit its own body (three reads of one entry), its text remembered
  // for the logger and etag() without a read.
  for (let i = 0; i < 3; i++) {
    const hit = await router.fetch(
      new Request(URL_, {
        headers: { "Accept-Language": "fr", "Accept-Encoding": "gzip" },
      }),
    );
    assert.equal(rememberedText(hit), "page fr 1");
    assert.equal(hit.headers.get("Content-Type"), "text/html");
    assert.equal(await hit.text(), "page fr 1");
  }
});

Deno.test("cache: middleware before cache() runs on every hit, in order, its staged headers on the answer", async () => {
  const order: string[] = [];
  const mark = (name: string): Middleware => (context, next) => {
    order.push(name);
    context.responseHeaders.set(`X-${name}`, "1");
    return next();
  };
  const router = createRouter({ middleware: [mark("router")] });
  router.mount("/section", (section) => {
    section.use(mark("mount"));
    section.get(
      "/page",
      cache({ store: createMemoryCacheStore() }),
      () => new Response("page"),
    );
  });
  router.get(
    "/own",
    mark("own"),
    cache({ store: createMemoryCacheStore() }),
    () => new Response("own"),
  );
  for (let i = 0; i < 3; i++) {
    const page = await router.fetch(
      new Request("http://localhost/section/page"),
    );
    assert.equal(await page.text(), "page");
    assert.equal(page.headers.get("X-router"), "1");
    assert.equal(page.headers.get("X-mount"), "1");
    assert.equal(page.headers.get("X-Cache"), i === 0 ? "MISS" : "HIT");
    const own = await router.fetch(new Request("http://localhost/own"));
    assert.equal(await own.text(), "own");
    assert.equal(own.headers.get("X-own"), "1");
    assert.equal(own.headers.get("X-Cache"), i === 0 ? "MISS" : "HIT");
  }
  assert.deepEqual(order, [
    ...["router", "mount", "router", "own"],
    ...["router", "mount", "router", "own"],
    ...["router", "mount", "router", "own"],
  ]);
});

Deno.test("cache: a stale entry answered early is not: the middleware serves it and regenerates", async () => {
  const clock = FakeTimers.install({ now: 5_000_000, toFake: ["Date"] });
  try {
    const router = createRouter();
    let runs = 0;
    router.get(
      "/page",
      cache({
        store: createMemoryCacheStore(),
        ttl: 1,
        staleWhileRevalidate: 60,
      }),
      () => new Response(`run ${++runs}`),
    );
    await (await router.fetch(new Request(URL_))).text();
    clock.tick(1_500);
    const stale = await router.fetch(new Request(URL_));
    assert.equal(stale.headers.get("X-Cache"), "STALE");
    assert.equal(stale.headers.get("Age"), "1");
    assert.equal(await stale.text(), "run 1");
    await new Promise((resolve) => setTimeout(resolve, 10));
    const fresh = await router.fetch(new Request(URL_));
    assert.equal(fresh.headers.get("X-Cache"), "HIT");
    assert.equal(await fresh.text(), "run 2");
    assert.equal(runs, 2);
  } finally {
    clock.uninstall();
  }
});

Deno.test("cache: Age with the clock set back stays the stored age, then counts again", async () => {
  const clock = FakeTimers.install({ now: 9_000_000, toFake: ["Date"] });
  try {
    const router = createRouter();
    router.get(
      "/page",
      cache({ store: createMemoryCacheStore() }),
      () => new Response("page", { headers: { "Age": "3" } }),
    );
    await (await router.fetch(new Request(URL_))).text();
    const ageNow = async () =>
      (await router.fetch(new Request(URL_))).headers.get("Age");
    assert.equal(await ageNow(), "3");
    clock.setSystemTime(9_000_000 - 5_000);
    assert.equal(await ageNow(), "3");
    clock.setSystemTime(9_000_000 + 2_400);
    assert.equal(await ageNow(), "5");
    clock.setSystemTime(9_000_000 + 999);
    assert.equal(await ageNow(), "3");
  } finally {
    clock.uninstall();
  }
});

Deno.test("cache: not on the memory store (KV, Redis): no early answer", () => {
  const versioned = {
    name: "versioned",
    maxValueBytes: 1 << 20,
    get: () => Promise.resolve(undefined),
    set: () => Promise.resolve("1"),
    delete: () => Promise.resolve(true),
  };
  assert.equal(
    earlyOf(cache({ store: versioned as never })),
    undefined,
  );
});

Deno.test("cache: a request whose URL cannot be read meets the error boundary, not the server, when a route may answer early", async () => {
  const router = createRouter({
    onError: (error) => new Response(String(error), { status: 500 }),
  });
  router.get(
    "/page",
    cache({ store: createMemoryCacheStore() }),
    () => new Response("page"),
  );
  const real = new Request(URL_);
  const unreadable = new Proxy(real, {
    get(target, key) {
      if (key === "url") throw new Error("no url");
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const response = await router.fetch(unreadable);
  assert.equal(response.status, 500);
  assert.equal(await response.text(), "Error: no url");
});

Deno.test("cache: early hits of pages asked in turn each answer their own page (the last URL's key is kept)", async () => {
  const router = createRouter();
  let runs = 0;
  router.get(
    "/p/:name",
    cache({ store: createMemoryCacheStore() }),
    ({ params }) => {
      runs++;
      return new Response(`page ${params.name}`);
    },
  );
  const ask = async (path: string) => {
    const response = await router.fetch(new Request(`http://localhost${path}`));
    return `${response.headers.get("X-Cache")} ${await response.text()}`;
  };
  assert.equal(await ask("/p/a"), "MISS page a");
  assert.equal(await ask("/p/b"), "MISS page b");
  for (const path of ["/p/a", "/p/a", "/p/b", "/p/a", "/p/b", "/p/b"]) {
    assert.equal(await ask(path), `HIT page ${path.slice(3)}`);
  }
  // The same path with a query is another page.
  assert.equal(await ask("/p/a?x=1"), "MISS page a");
  assert.equal(await ask("/p/a"), "HIT page a");
  assert.equal(runs, 3);
});
