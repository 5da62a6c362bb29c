import assert from "node:assert/strict";
import {
  type JoinPattern,
  Route,
  route,
} from "@fetchkit/toolkit/fetch-router/routes";
import { createRouter } from "@fetchkit/toolkit/fetch-router";

Deno.test("joins understand groups", () => {
  const promo = route({ promo: "(/:lang)/promo" }).promo;
  assert.equal(promo.pattern, "(/:lang)/promo");
  const same: JoinPattern<"", "(/:lang)/promo"> = promo.pattern;
  assert.equal(promo.href(), "/promo");
  assert.equal(promo.href({ lang: "en" }), "/en/promo");

  const page = route("posts", { x: "(:page)" }).x;
  assert.equal(page.pattern, "/posts/(:page)");
  const typed: JoinPattern<"posts", "(:page)"> = page.pattern;
  assert.equal(route("posts", { x: "(/:page)" }).x.pattern, "/posts(/:page)");

  const c = route("a/(:id)", { x: "c" }).x;
  assert.equal(c.pattern, "/a(/:id)/c");
  const moved: JoinPattern<"a/(:id)", "c"> = c.pattern;
  assert.equal(c.href(), "/a/c");
  assert.equal(c.href({ id: 1 }), "/a/1/c");
  void [same, typed, moved];
});

Deno.test("a pattern starting with a group routes every form", async () => {
  const router = createRouter();
  const promo = route({ promo: "(/:lang)/promo" }).promo;
  router.get(promo, ({ params }) => new Response(params.lang ?? "-"));
  const text = async (path: string) => {
    const response = await router.fetch(new Request(`http://x${path}`));
    return response.status === 200 ? await response.text() : response.status;
  };
  assert.equal(await text("/promo"), "-");
  assert.equal(await text("/en/promo"), "en");
  assert.equal(await text("//promo"), 404);
});

Deno.test("href: delimiters in values are encoded, so the path matches back", () => {
  const file = new Route("GET", "/:name.:ext");
  assert.equal(
    file.href({ name: "read/me.v1", ext: "txt" }),
    "/read%2Fme%2Ev1.txt",
  );
  assert.equal(new Route("GET", "/files(/*)").href(), "/files");
  assert.throws(
    () => new Route("GET", "/posts/:id").href({ id: "" }),
    (e: Error) =>
      e instanceof TypeError && /Empty parameter "id"/.test(e.message),
  );
  assert.equal(new Route("GET", "/posts(/:id)").href({ id: "" }), "/posts");
  assert.throws(
    () => new Route("GET", "/posts/:id").href({ id: "\uD800" }),
    (e: Error) => e instanceof TypeError && /"id"/.test(e.message),
  );
});

Deno.test("ambiguous, empty-group and lone-surrogate patterns are TypeErrors naming the pattern", () => {
  const router = createRouter();
  for (
    const pattern of [
      "/*left*right",
      "/*left(/middle)*right",
      "/users()",
      "/:a:b",
      "/\uD800",
    ]
  ) {
    assert.throws(
      () => router.get(pattern, () => new Response()),
      (e: Error) =>
        e instanceof TypeError &&
        e.message.includes(JSON.stringify(pattern).slice(1, -1).slice(0, 4)),
      pattern,
    );
    assert.throws(() => new Route("GET", pattern), TypeError, pattern);
  }
});

Deno.test("a slash ending the base inside a group is dropped, as Remix's join does", async () => {
  const x = route("(a/)", { x: "(b)" }).x;
  assert.equal(x.pattern, "/(a)/(b)");
  const typed: "/(a)/(b)" = x.pattern;
  void typed;
  const router = createRouter();
  router.get(x, () => new Response("ok"));
  const status = async (path: string) =>
    (await router.fetch(new Request(`http://h${path}`))).status;
  assert.equal(await status("/a/b"), 200);
  assert.equal(await status("/a/"), 200);
  assert.equal(await status("/a//b"), 404);
  const y: JoinPattern<"a(/b/)", "c"> = route("a(/b/)", { y: "c" }).y.pattern;
  assert.equal(y, "/a(/b)/c");
  const z: JoinPattern<"a(/)", "b"> = route("a(/)", { z: "b" }).z.pattern;
  assert.equal(z, "/a/b");
  const nested: JoinPattern<"a", "((/b))"> = route("a", { n: "((/b))" }).n
    .pattern;
  assert.equal(nested, "/a((/b))");
});

/**
 * Inputs for the comparison with Remix's `joinPatterns`
 * (`@remix-run/route-pattern/join`): ours, with a leading slash added to
 * Remix's output where it has none, must be the same string, except where
 * noted.
 */
const JOINS: readonly [string, string][] = [
  ["", "b"],
  ["a", ""],
  ["a", "b"],
  ["a/", "b"],
  ["a", "/b"],
  ["a/", "/b"],
  ["/a/", "/b/"],
  ["(a)", "(b)"],
  ["(a/)", "(b)"],
  ["(a)", "(/b)"],
  ["(a/)", "(/b)"],
  ["a(/b/)", "c"],
  ["a(/b/)", "(/c)"],
  ["((a/))", "b"],
  ["a", "((/b))"],
  ["a", "(/b)c"],
  ["", "(b)"],
  ["posts", "(/:page)"],
  ["posts", "(:page)"],
  ["posts/:id", "comments/:cid"],
  ["v1/:resource", "/users/(admin/)posts"],
  ["api(/:version)", "resources/:id(.json)"],
  ["files", "*path"],
  ["files/", "(*path)"],
  ["a/(b/)(c/)", "d"],
];

/** Where we differ from Remix, on purpose: [base, pattern, ours]. */
const JOIN_DIFFERENCES: readonly [string, string, string][] = [
  // A base ending in "/(group)" takes the slash into the group, so leaving
  // the group out leaves no empty segment (Remix: "/a/(:id)/c", which
  // needs "/a//c" when the group is left out).
  ["a/(:id)", "c", "/a(/:id)/c"],
  ["a/(:id/)", "c", "/a(/:id)/c"],
  // Every trailing slash of the base goes (Remix drops one: "/(a/)/b").
  ["(a//)", "b", "/(a)/b"],
  // A group left empty goes (Remix keeps "()", which our parser refuses).
  ["a(/)", "b", "/a/b"],
];

Deno.test("joins agree with Remix's joinPatterns on a table of inputs", async () => {
  const { joinPatterns: remixJoin } = await import(
    "@remix-run/route-pattern/join"
  );
  const { joinPatterns } = await import("../matcher/pattern.ts");
  for (const [base, pattern] of JOINS) {
    const theirs = remixJoin(base, pattern).source;
    const expected = theirs.startsWith("/") || theirs.startsWith("(/")
      ? theirs
      : "/" + theirs;
    assert.equal(joinPatterns(base, pattern), expected, `${base} + ${pattern}`);
  }
  for (const [base, pattern, ours] of JOIN_DIFFERENCES) {
    assert.equal(joinPatterns(base, pattern), ours, `${base} + ${pattern}`);
    const theirs = remixJoin(base, pattern).source;
    assert.notEqual(
      "/" + theirs.replace(/^\//, ""),
      ours,
      "still a difference",
    );
  }
});

Deno.test("a pattern made only of slash groups serves / with every group left out, as Remix", async () => {
  const x = route({ x: "(/locale/:locale)(/page/:page)" }).x;
  const typed: "(/locale/:locale)(/page/:page)" = x.pattern;
  assert.equal(typed, "(/locale/:locale)(/page/:page)");
  assert.equal(x.href(), "/");
  assert.equal(x.href({ page: 2 }), "/page/2");
  assert.equal(x.href({ locale: "en", page: 2 }), "/locale/en/page/2");
  const router = createRouter();
  router.get(x, ({ params }) => Response.json(params));
  const json = async (path: string) => {
    const response = await router.fetch(new Request(`http://h${path}`));
    return response.status === 200 ? await response.json() : response.status;
  };
  assert.deepEqual(await json("/"), {});
  assert.deepEqual(await json("/page/2"), { page: "2" });
  assert.deepEqual(await json("/locale/en"), { locale: "en" });
  assert.equal(await json("//page/2"), 404);
  assert.throws(() => new Route("GET", "(:a)/x"), /must start with/);
});
