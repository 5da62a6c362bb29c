// cache() hits on the memory store: answered in the same call, the stored
// bytes exactly (text bodies go as strings), headers per answer, Age per
// second. Portable (runs on Node and Bun).

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createRouter, RequestContext } from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { bodySize } from "../response/body_size.ts";

const URL_ = "http://localhost/page";

Deno.test("cache: a memory hit is answered in the same call, with no promise", async () => {
  const middleware = cache({ store: createMemoryCacheStore() });
  const miss = middleware(
    new RequestContext(new Request(URL_)),
    () => Promise.resolve(new Response("page")),
  );
  assert.ok(miss instanceof Promise, "a miss waits for the handler");
  await (await miss as Response).text();
  const hit = middleware(
    new RequestContext(new Request(URL_)),
    () => Promise.reject(new Error("not a hit")),
  );
  assert.ok(hit instanceof Response, "a hit is a Response, not a promise");
  assert.equal(hit.headers.get("X-Cache"), "HIT");
  assert.equal(await hit.text(), "page");

  // Through the router too: its fetch answers a hit synchronously.
  const router = createRouter();
  router.get(
    "/page",
    cache({ store: createMemoryCacheStore() }),
    () => new Response("routed"),
  );
  await (await router.fetch(new Request(URL_))).text();
  const routed = router.fetch(new Request(URL_));
  assert.ok(routed instanceof Response);
  assert.equal(await routed.text(), "routed");
  const head = router.fetch(new Request(URL_, { method: "HEAD" }));
  assert.ok(head instanceof Response);
  assert.equal(head.headers.get("X-Cache"), "HIT");
  assert.equal(head.body, null);
});

const bytes = (...values: number[]) => new Uint8Array(values);
const utf8 = new TextEncoder();

// Each body as the handler gave it, with its headers: a hit must give the
// same bytes and the same Content-Type (none where none was given).
const BODIES: [string, Uint8Array, Record<string, string>][] = [
  [
    "UTF-8 text with a BOM and characters past ASCII",
    new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode("café € 😀 <p>")]),
    { "Content-Type": "text/html; charset=utf-8" },
  ],
  [
    "Latin-1 text (not UTF-8)",
    bytes(0x63, 0x61, 0x66, 0xe9),
    { "Content-Type": "text/plain; charset=iso-8859-1" },
  ],
  [
    "JSON",
    utf8.encode('{"name":"Zoë"}'),
    { "Content-Type": "application/json" },
  ],
  [
    "binary bytes",
    bytes(0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe),
    { "Content-Type": "image/png" },
  ],
  ["UTF-8 text with no Content-Type", utf8.encode("plain"), {}],
  [
    "compressed text",
    utf8.encode("looks like text"),
    { "Content-Type": "text/plain", "Content-Encoding": "gzip" },
  ],
];

for (const [name, body, headers] of BODIES) {
  Deno.test(`cache: a hit gives the stored bytes exactly: ${name}`, async () => {
    const router = createRouter();
    router.get(
      "/page",
      cache({ store: createMemoryCacheStore() }),
      () => new Response(body.slice(), { headers }),
    );
    const miss = await router.fetch(new Request(URL_));
    assert.deepEqual(new Uint8Array(await miss.arrayBuffer()), body);
    for (let i = 0; i < 2; i++) {
      const hit = await router.fetch(new Request(URL_));
      assert.equal(hit.headers.get("X-Cache"), "HIT");
      assert.equal(
        hit.headers.get("Content-Type"),
        headers["Content-Type"] ?? null,
      );
      assert.equal(
        hit.headers.get("Content-Encoding"),
        headers["Content-Encoding"] ?? null,
      );
      assert.deepEqual(new Uint8Array(await hit.arrayBuffer()), body);
    }
  });
}

Deno.test("cache: a text hit's size is known without reading it", async () => {
  const router = createRouter();
  const page = "<p>Zoë 😀</p>";
  router.get(
    "/page",
    cache({ store: createMemoryCacheStore() }),
    () => new Response(page, { headers: { "Content-Type": "text/html" } }),
  );
  await (await router.fetch(new Request(URL_))).text();
  const hit = await router.fetch(new Request(URL_));
  assert.equal(bodySize(hit), String(utf8.encode(page).byteLength));
  assert.equal(await hit.text(), page);
});

Deno.test("cache: headers changed on one hit are not the next one's; Age counts each second", async () => {
  const clock = FakeTimers.install({ now: 1_000_000, toFake: ["Date"] });
  try {
    const router = createRouter();
    router.get(
      "/page",
      cache({ store: createMemoryCacheStore(), staleWhileRevalidate: 60 }),
      () =>
        new Response("page", {
          headers: {
            "Content-Type": "text/plain",
            "Cache-Control": "max-age=5",
          },
        }),
    );
    await (await router.fetch(new Request(URL_))).text();
    const first = await router.fetch(new Request(URL_));
    first.headers.set("X-Extra", "1");
    first.headers.set("Content-Type", "text/html");
    const second = await router.fetch(new Request(URL_));
    assert.equal(second.headers.get("X-Extra"), null);
    assert.equal(second.headers.get("Content-Type"), "text/plain");
    assert.equal(second.headers.get("Age"), "0");
    const ages: [number, string, string][] = [
      [999, "0", "HIT"],
      [1, "1", "HIT"],
      [500, "1", "HIT"],
      [600, "2", "HIT"],
      [3_000, "5", "STALE"],
    ];
    for (const [ms, age, state] of ages) {
      clock.tick(ms);
      const hit = await router.fetch(new Request(URL_));
      assert.equal(hit.headers.get("Age"), age, `after ${ms} ms more`);
      assert.equal(hit.headers.get("X-Cache"), state);
      assert.equal(await hit.text(), "page");
    }
  } finally {
    clock.uninstall();
  }
});

Deno.test("cache: the key is the request's URL as serialized, query included", async () => {
  const router = createRouter();
  let runs = 0;
  router.get("/page", cache({ store: createMemoryCacheStore() }), () => {
    runs++;
    return new Response(`run ${runs}`);
  });
  const text = async (url: string) =>
    await (await router.fetch(new Request(url))).text();
  assert.equal(await text("http://LOCALHOST/page?q=a b"), "run 1");
  // The same URL once serialized: the same entry.
  assert.equal(await text("http://localhost/page?q=a%20b"), "run 1");
  assert.equal(await text("http://localhost/page?q=a+b"), "run 2");
  assert.equal(await text("http://localhost/page"), "run 3");
});

Deno.test("cache: a memory entry sent as text counts its string too", async () => {
  const sizes: Record<string, number> = {};
  for (const [name, type] of [["text", "text/html"], ["binary", "image/png"]]) {
    const store = createMemoryCacheStore();
    const router = createRouter();
    router.get(
      "/page",
      cache({ store }),
      () =>
        new Response("x".repeat(10_000), { headers: { "Content-Type": type } }),
    );
    await (await router.fetch(new Request(URL_))).text();
    sizes[name] = (store as unknown as { bytes: number }).bytes;
  }
  assert.ok(sizes.binary > 10_000 && sizes.binary < 20_000, `${sizes.binary}`);
  // The string counts about its length more (ASCII: a byte a character).
  assert.ok(
    sizes.text - sizes.binary >= 9_500,
    `${sizes.text} ${sizes.binary}`,
  );
});
