import assert from "node:assert/strict";
import {
  type JoinPattern,
  Route,
  route,
} from "@fetchkit/toolkit/fetch-router/routes";
import { createRouter } from "@fetchkit/toolkit/fetch-router";

Deno.test("joins understand groups (issue 12)", () => {
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
