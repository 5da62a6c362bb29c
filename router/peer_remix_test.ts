/**
 * Cases ported from Remix (remix-run/remix, bare mirror HEAD):
 * `packages/route-pattern/src/lib/join.test.ts` ("joins pathname"),
 * `packages/route-pattern/src/lib/specificity.test.ts` ("pathname"),
 * `packages/route-pattern/src/lib/href.test.ts` (pathname cases).
 * Each case names its source `it()`.
 *
 * Left out, and why:
 * - protocol, hostname, port and search cases (join, specificity, href):
 *   our patterns match the pathname only (a `?` or `#` is refused);
 * - "ties when ... same range" (specificity returning 0): we do not expose
 *   a comparison; a full tie goes to the route added first;
 * - "ranks segments right-to-left" and hostname wildcard ranking: hostnames;
 * - Remix's `href` error codes (`hrefError('missing-params')`, ...): ours is
 *   a `TypeError` naming the parameter, tested in routes/route_test.ts;
 * - "throws for nameless wildcard" in href: a bare `*` is left out by our
 *   `href()` (it has no value to put back), a documented difference;
 * - `match/limits.test.ts`, `parse.test.ts`, `serialize.test.ts`,
 *   `split.test.ts`: Remix's internal APIs, no counterpart here;
 * - fetch-router's middleware, abort and request-context tests: the
 *   runtime's area (router.ts / context.ts), covered in router_test.ts.
 */
import assert from "node:assert/strict";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { Route, route } from "@fetchkit/toolkit/fetch-router/routes";
import { joinPatterns } from "../routes/pattern.ts";

function echo(...patterns: string[]): Router {
  const router = createRouter();
  for (const pattern of patterns) {
    router.get(pattern, () => new Response(pattern));
  }
  return router;
}

async function winner(router: Router, path: string): Promise<string> {
  const response = await router.fetch(new Request(`http://example.com${path}`));
  return await response.text();
}

// join.test.ts › "joins pathname" (ours always adds the leading "/").
Deno.test("remix join.test.ts › joins pathname", () => {
  const cases: [string, string, string][] = [
    ["", "", "/"],
    ["", "b", "/b"],
    ["a", "", "/a"],
    ["a", "b", "/a/b"],
    ["a/", "b", "/a/b"],
    ["a", "/b", "/a/b"],
    ["a/", "/b", "/a/b"],
    ["(a)", "(b)", "/(a)/(b)"],
    ["(a)", "(/b)", "/(a)(/b)"],
  ];
  for (const [a, b, expected] of cases) {
    assert.equal(joinPatterns(a, b), expected, `join(${a}, ${b})`);
  }
});

// specificity.test.ts › "pathname": the first pattern must win, added in
// either order.
Deno.test("remix specificity.test.ts › pathname ranking", async () => {
  const cases: [string, string, string, string][] = [
    [
      "ranks static higher than variable",
      "/posts/123",
      "/posts/:id",
      "/posts/123",
    ],
    [
      "ranks variable higher than wildcard",
      "/posts/:id",
      "/posts/*",
      "/posts/123",
    ],
    [
      "ranks variable with prefix/suffix higher than bare variable",
      "/posts-:id",
      "/:segment",
      "/posts-123",
    ],
    [
      "ranks wildcard with prefix/suffix higher than bare wildcard",
      "/p*",
      "/*/:id",
      "/posts/123",
    ],
    [
      "breaks tie on variables and wildcards by subsequent characters",
      "/*/123/:id/7*",
      "/*/123/:id/*",
      "/posts/123/456/789",
    ],
    [
      "ranks back-to-back variables with static content higher",
      "/:a/:b",
      "/*",
      "/posts/123",
    ],
    [
      "ranks back-to-back wildcards with static content higher",
      "/*/*",
      "/*",
      "/posts/123",
    ],
  ];
  for (const [name, better, worse, path] of cases) {
    assert.equal(await winner(echo(better, worse), path), better, name);
    assert.equal(
      await winner(echo(worse, better), path),
      better,
      `${name} (added second)`,
    );
  }
});

// href.test.ts › pathname cases.
Deno.test("remix href.test.ts › pathname", () => {
  // "supports static pathname"
  assert.equal(new Route("GET", "/posts").href(), "/posts");
  assert.equal(new Route("GET", "/posts").href({}), "/posts");
  // "normalizes static pathname without leading slash" (route() adds it)
  assert.equal(route({ p: "posts" }).p.href(), "/posts");
  // "works when provided" / "works with number params"
  assert.equal(
    new Route("GET", "/posts/:id").href({ id: "123" }),
    "/posts/123",
  );
  assert.equal(new Route("GET", "/posts/:id").href({ id: 123 }), "/posts/123");
  // "supports multiple dynamic segments"
  assert.equal(
    new Route("GET", "/users/:userId/posts/:postId").href({
      userId: "1",
      postId: "2",
    }),
    "/users/1/posts/2",
  );
  // "supports named wildcard"
  assert.equal(
    new Route("GET", "/files/*path").href({ path: "a/b/c.txt" }),
    "/files/a/b/c.txt",
  );
  // "throws when missing"
  assert.throws(
    () => new Route("GET", "/posts/:id").href({} as { id: string }),
    TypeError,
  );
});

// route-pattern.test.ts parse errors we share: ambiguous and empty patterns.
Deno.test("remix › patterns refused as ambiguous", () => {
  for (const pattern of ["/*left*right", "/*left(/middle)*right", "/users()"]) {
    assert.throws(() => new Route("GET", pattern), TypeError, pattern);
    assert.throws(
      () => createRouter().get(pattern, () => new Response()),
      TypeError,
      pattern,
    );
  }
});
