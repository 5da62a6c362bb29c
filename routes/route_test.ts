import assert from "node:assert/strict";
import {
  form,
  resources,
  Route,
  route,
  routes,
} from "@fetchkit/toolkit/fetch-router/routes";

Deno.test("route() turns a plain string into an ANY route and adds the leading slash", () => {
  const map = route({ home: "/", about: "about" });
  assert.equal(map.home.method, "ANY");
  assert.equal(map.home.pattern, "/");
  assert.equal(map.about.pattern, "/about");
});

Deno.test("route() keeps { method, pattern }, in upper case", () => {
  const map = route({
    login: { method: "post", pattern: "/login" },
    any: { pattern: "/x" },
  });
  assert.equal(map.login.method, "POST");
  assert.equal(map.any.method, "ANY");
});

Deno.test("route(base, defs) prefixes every pattern, nested maps included", () => {
  const map = route("admin/", {
    index: "/",
    users: { method: "GET", pattern: "/users" },
    posts: resources("posts", { only: ["show"] }),
    settings: form("settings"),
  });
  assert.equal(map.index.pattern, "/admin");
  assert.equal(map.users.pattern, "/admin/users");
  assert.equal(map.posts.show.pattern, "/admin/posts/:id");
  assert.equal(map.settings.action.pattern, "/admin/settings");
  assert.equal(
    route("blog", { list: "(/page/:page)" }).list.pattern,
    "/blog(/page/:page)",
  );
});

Deno.test("routes is an alias of route", () => {
  assert.equal(routes, route);
});

Deno.test("a spread of resources with a child group nests the children under the member path", () => {
  const map = route({
    brands: {
      ...resources("brands"),
      products: resources("brands/:brandId/products"),
    },
  });
  assert.equal(map.brands.index.pattern, "/brands");
  assert.equal(
    map.brands.products.edit.pattern,
    "/brands/:brandId/products/:id/edit",
  );
});

Deno.test("href() fills parameters, percent-encoding them", () => {
  const show = new Route("GET", "/posts/:id");
  assert.equal(show.href({ id: 42 }), "/posts/42");
  assert.equal(show.href({ id: "a b/c?d" }), "/posts/a%20b%2Fc%3Fd");
  assert.equal(
    new Route("GET", "/caf\u00e9/:x").href({ x: "\u00e9" }),
    "/caf%C3%A9/%C3%A9",
  );
  assert.equal(
    new Route("GET", "/files/*path").href({ path: "a b/c" }),
    "/files/a%20b/c",
  );
});

Deno.test("href() without a required parameter is a TypeError naming it", () => {
  const show = new Route("GET", "/brands/:brandId/products/:id");
  assert.throws(
    // @ts-expect-error id is required by the types too
    () => show.href({ brandId: 1 }),
    {
      name: "TypeError",
      message:
        'Missing parameter "id" for route pattern "/brands/:brandId/products/:id"',
    },
  );
});

Deno.test("href() keeps an optional group only when its parameters are given", () => {
  const list = new Route("GET", "/posts(/page/:page)(.html)");
  assert.equal(list.href(), "/posts");
  assert.equal(list.href({ page: 2 }), "/posts/page/2");
  const nested = new Route("GET", "/a(/:b(/:c))");
  assert.equal(nested.href({ b: 1 }), "/a/1");
  assert.equal(nested.href({ b: 1, c: 2 }), "/a/1/2");
  assert.equal(nested.href({ c: 2 }), "/a");
});

Deno.test("href() appends search from a string, URLSearchParams or a record", () => {
  const index = new Route("GET", "/posts");
  assert.equal(index.href({}, { search: "?q=1" }), "/posts?q=1");
  assert.equal(
    index.href({}, { search: new URLSearchParams({ a: "b c" }) }),
    "/posts?a=b+c",
  );
  assert.equal(
    index.href({}, { search: { tag: ["x", "y"], n: 1 } }),
    "/posts?tag=x&tag=y&n=1",
  );
  assert.equal(index.href({}, { search: {} }), "/posts");
});

Deno.test("bad patterns are TypeErrors when the route is made", () => {
  assert.throws(() => new Route("GET", "/a/:"), /needs a parameter name/);
  assert.throws(() => new Route("GET", "/a(/b"), /unclosed/);
  assert.throws(() => new Route("GET", "/a)/b"), /unmatched/);
  assert.throws(() => new Route("GET", "/a?b=1"), /pathname only/);
  assert.throws(() => new Route("GET", "a"), /must start with/);
});

Deno.test("href refuses values that would make a dot segment", () => {
  const show = new Route("GET", "/posts/:id");
  const files = new Route("GET", "/files/*path");
  for (const id of [".", ".."]) {
    assert.throws(() => show.href({ id }), /dot segment/);
  }
  assert.throws(() => files.href({ path: "a/../b" }), /dot segment/);
  assert.equal(show.href({ id: "..." }), "/posts/...");
  assert.equal(show.href({ id: ".x" }), "/posts/.x");
});
