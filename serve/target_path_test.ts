// The path serve() on Node hands the router from the request target must be
// the path the router would cut out of `request.url`, for every target it
// gives one for; and requests whose targets need normalising must route as
// `context.url` reads them. Portable: the _tools/runtimes bundle runs it on
// Node, where serve() uses the hint, and on Bun.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";
import { rawExchange } from "./_test_raw.ts";
import { routePathOf } from "../url_path/url_path.ts";
import { plainTargetPath } from "./_target_path.ts";

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "/",
  "/",
  "/",
  "a",
  "B",
  "9",
  ".",
  "..",
  "%2e",
  "%41",
  "%",
  "?",
  "#",
  "\\",
  " ",
  '"',
  "<",
  "'",
  ";",
  ":",
  "@",
  "=",
  "&",
  "~",
  "_",
  "-",
  "é",
  "|",
  "^",
  "[",
  "]",
  "{",
  "`",
  "*",
  "!",
  "$",
  "(",
  "+",
  ",",
  "\t",
];

Deno.test("plainTargetPath: equals the path routed from the URL built of it, whenever it gives one", () => {
  let given = 0;
  for (let seed = 1; seed <= 5000; seed++) {
    const next = random(seed);
    let target = next() < 0.95 ? "/" : "";
    const count = Math.floor(next() * 9);
    for (let i = 0; i < count; i++) {
      target += PIECES[Math.floor(next() * PIECES.length)];
    }
    const path = plainTargetPath(target);
    if (path === undefined) continue;
    given++;
    for (const host of ["localhost", "127.0.0.1:8000", "Example.COM"]) {
      // As the adapter builds request.url: concatenated, or through URL.
      const url = `http://${host}${target}`;
      assert.equal(path, routePathOf(url), `${target} on ${host}`);
      assert.equal(path, routePathOf(new URL(url).href), `${target} (URL)`);
      assert.equal(path, new URL(url).pathname, `${target} (pathname)`);
    }
  }
  // The generator reaches both sides.
  assert.ok(given > 300 && given < 4000, `${given} of 5000 plain`);
});

Deno.test("plainTargetPath: targets that URL would change, or that are not origin form, give none", () => {
  for (
    const target of [
      "/a/../b",
      "/a/./b",
      "/..",
      "/.",
      "/.well-known/x",
      "/a%2e%2e/b",
      "/%7e",
      "/a\\b",
      "/a b",
      "/a#b",
      '/a"b',
      "/é",
      "/a|b",
      "http://other/a",
      "*",
      "",
      undefined,
    ]
  ) {
    assert.equal(plainTargetPath(target), undefined, String(target));
  }
  assert.equal(plainTargetPath("/"), "/");
  assert.equal(plainTargetPath("/?x"), "/");
  assert.equal(plainTargetPath("/a.b/c..d?e=/../f"), "/a.b/c..d");
  assert.equal(plainTargetPath("/users/42/posts/7"), "/users/42/posts/7");
  assert.equal(plainTargetPath("/a:b@c;d=e,f"), "/a:b@c;d=e,f");
});

/** `GET <target>` on a raw socket; the status and body. */
function rawGet(
  port: number,
  target: string,
  method = "GET",
): Promise<{ status: number; body: string }> {
  return rawExchange(
    port,
    `${method} ${target} HTTP/1.1\r\nHost: localhost\r\n`,
  );
}

Deno.test("serve(): raw targets route as the router cuts request.url, plain or not", async () => {
  const router = createRouter();
  const answer = ({ routePattern, params, request }: {
    routePattern: string | undefined;
    params: Record<string, string | undefined>;
    request: Request;
  }) => Response.json({ routePattern, rest: params.rest, url: request.url });
  for (const pattern of ["/b", "/a/b", "/A", "/*rest"]) {
    router.get(pattern, answer);
  }
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    onListen() {},
  });
  const { port } = server.addr;
  try {
    for (
      const target of [
        "/b",
        "/b?x=/../a",
        "/a/b",
        "/a/../b",
        "/a/./b",
        "/a/%2e%2e/b",
        "/%41",
        "/.well-known/x",
        "/c:d@e",
        "/a;b=c,d",
      ]
    ) {
      const got = await rawGet(port, target);
      assert.equal(got.status, 200, target);
      const { routePattern, rest, url } = JSON.parse(got.body);
      const path = routePathOf(url);
      if (["/b", "/a/b", "/A"].includes(path)) {
        assert.equal(routePattern, path, target);
      } else {
        assert.equal(routePattern, "/*rest", target);
        assert.equal(`/${rest}`, decodeURIComponent(path), target);
      }
    }
    // HEAD and 405 as ever.
    const head = await rawGet(port, "/a/b", "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
    assert.equal((await rawGet(port, "/a/b", "DELETE")).status, 405);
  } finally {
    await server.shutdown();
  }
});
