/**
 * Cases ported from Hono (honojs/hono, `src/router/common.case.test.ts`,
 * the suite every Hono router runs), each named by its `describe`/`it`.
 * Hono returns every matching handler (middleware included) in order; we
 * return the one best route, so a case that expects several results is
 * ported as "the best one wins" where that has a meaning.
 *
 * Left out, and why:
 * - regex parameters (`/:date{[0-9]+}`, `/:name{.*}`): not in our syntax;
 * - multi-match cases ("Multi match", middleware-like `/api/*` plus a
 *   route both returned): we return one route; middleware is separate;
 * - Hono's optional `:param?` suffix: ours is the group `(/:param)`, and
 *   those cases are ported with that spelling;
 * - `*` in the middle matching an empty segment Hono's way, and `trailing
 *   slash` non-strict options: our trailing slashes are strict by design;
 * - hostname routing (`getPath` options) and `PURGE`-style custom methods
 *   beyond the basic case: the router's method handling is router.ts's.
 */
import assert from "node:assert/strict";
import { Matcher } from "./_matcher.ts";

function matcher(...routes: [string, string, string][]): Matcher<string> {
  const m = new Matcher<string>();
  for (const [method, pattern, value] of routes) m.add(method, pattern, value);
  return m;
}

function at(m: Matcher<string>, method: string, path: string) {
  const found = m.match(method, path);
  return found && { handler: found.value, params: { ...found.params } };
}

Deno.test("hono common.case › Basic Usage", () => {
  const m = matcher(
    ["GET", "/hello", "get hello"],
    ["POST", "/hello", "post hello"],
    ["PURGE", "/hello", "purge hello"],
  );
  assert.equal(at(m, "GET", "/hello")?.handler, "get hello");
  assert.equal(at(m, "POST", "/hello")?.handler, "post hello");
  assert.equal(at(m, "PURGE", "/hello")?.handler, "purge hello");
  assert.equal(at(m, "PUT", "/hello"), undefined);
  assert.equal(at(m, "GET", "/"), undefined);
});

Deno.test("hono common.case › Reserved words", () => {
  const m = matcher(
    ["GET", "/entry/:constructor", "get entry"],
    ["GET", "/wild/*/card", "get wildcard"],
    ["GET", "/api/animals(/:constructor)", "animals"], // Hono: `:constructor?`
  );
  assert.deepEqual(at(m, "GET", "/entry/123"), {
    handler: "get entry",
    params: { constructor: "123" },
  });
  assert.equal(at(m, "GET", "/wild/constructor/card")?.handler, "get wildcard");
  const animals = m.match("GET", "/api/animals");
  assert.equal(animals?.value, "animals");
  // Unlike Hono's `{}`, no inherited `constructor` function leaks in.
  assert.notEqual(typeof animals?.params?.constructor, "function");
});

Deno.test("hono common.case › Complex › Named Params", () => {
  const m = matcher(["GET", "/entry/:id", "get entry"]);
  assert.deepEqual(at(m, "GET", "/entry/123"), {
    handler: "get entry",
    params: { id: "123" },
  });
  assert.equal(at(m, "GET", "/entry-123"), undefined);
});

Deno.test("hono common.case › Complex › Wildcard", () => {
  const m = matcher(["GET", "/wild/*/card", "get wildcard"]);
  assert.equal(at(m, "GET", "/wild/xxx/card")?.handler, "get wildcard");
});

Deno.test("hono common.case › Complex › Default (best route only)", () => {
  const m = matcher(["GET", "/api/abc", "get api"], [
    "GET",
    "/api/*",
    "fallback",
  ]);
  assert.equal(at(m, "GET", "/api/abc")?.handler, "get api");
  assert.equal(at(m, "GET", "/api/def")?.handler, "fallback");
});

// Hono's "*" is our "/*"; Hono's ALL is our ANY. Where Hono lists every
// match, the best route of ours is the one Hono lists as the handler.
Deno.test("hono common.case › Registration order (best route, either order)", () => {
  for (const order of [0, 1]) {
    const routes: [string, string, string][] = [
      ["GET", "/*", "bar"],
      ["GET", "/:type/:action", "foo"],
    ];
    const m = matcher(...(order ? routes.reverse() : routes));
    assert.deepEqual(at(m, "GET", "/posts/123"), {
      handler: "foo",
      params: { type: "posts", action: "123" },
    });
  }
});

Deno.test("hono common.case › Multi match › Blog (best route)", () => {
  const m = matcher(
    ["ANY", "/*", "middleware a"],
    ["GET", "/entry", "get entries"],
    ["POST", "/entry/*", "middleware c"],
    ["POST", "/entry", "post entry"],
    ["GET", "/entry/:id", "get entry"],
    ["GET", "/entry/:id/comment/:comment_id", "get comment"],
  );
  assert.equal(at(m, "GET", "/")?.handler, "middleware a");
  assert.deepEqual(at(m, "GET", "/entry/123"), {
    handler: "get entry",
    params: { id: "123" },
  });
  assert.deepEqual(at(m, "GET", "/entry/123/comment/456"), {
    handler: "get comment",
    params: { id: "123", comment_id: "456" },
  });
  assert.equal(at(m, "POST", "/entry")?.handler, "post entry");
  assert.equal(at(m, "DELETE", "/entry")?.handler, "middleware a");
});

Deno.test("hono common.case › Multi match › `params` per a handler (best route)", () => {
  const m = matcher(
    ["ANY", "/*", "middleware a"],
    ["GET", "/entry/:id/*", "middleware b"],
    ["GET", "/entry/:id/:action", "action"],
  );
  assert.deepEqual(at(m, "GET", "/entry/123/show"), {
    handler: "action",
    params: { id: "123", action: "show" },
  });
});

Deno.test("hono common.case › Duplicate param name › parent / child (best route)", () => {
  for (const order of [0, 1]) {
    const routes: [string, string, string][] = [
      ["GET", "/:id/:action", "foo"],
      ["GET", "/posts/:id", "bar"],
    ];
    const m = matcher(...(order ? routes.reverse() : routes));
    assert.deepEqual(at(m, "GET", "/posts/get"), {
      handler: "bar",
      params: { id: "get" },
    });
  }
});

Deno.test("hono common.case › page (best route)", () => {
  const m = matcher(["GET", "/page", "page"], ["ANY", "/*", "fallback"]);
  assert.equal(at(m, "GET", "/page")?.handler, "page");
  assert.equal(at(m, "GET", "/other")?.handler, "fallback");
});
