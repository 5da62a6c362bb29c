// A pattern's static text is compared with the request path after both
// have had the escapes of letters, digits and "_" decoded (normalizeEscapes
// in url_path.ts), so `/%61` is the route `/a`, reachable as `/a` and as
// `/%61`. Remix's main branch decodes pattern text too; Hono and Remix's
// route-pattern 0.23 answer 404 to both for a `/%61` route.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { Matcher, setCodegen, SETTLE } from "../matcher/matcher.ts";
import { normalizeEscapes } from "../url_path/url_path.ts";

/** pattern, request path, expected params (undefined: no match). */
const CASES: readonly [string, string, Record<string, string> | undefined][] = [
  ["/%61", "/a", {}],
  ["/%61", "/%61", {}],
  ["/%61", "/A", undefined],
  ["/%41", "/A", {}],
  ["/%41", "/%41", {}],
  ["/%41", "/a", undefined],
  ["/%5F", "/_", {}],
  ["/%5f", "/%5F", {}],
  ["/%5F", "/%5f", {}],
  ["/%30%39", "/09", {}],
  ["/x/%61/:id", "/x/a/1", { id: "1" }],
  ["/x/%61/:id", "/x/%61/1", { id: "1" }],
  ["/x/%61/:id", "/x/b/1", undefined],
  ["/u/%40:name", "/u/%40al", { name: "al" }], // "@" is reserved: as written
  ["/u/%40:name", "/u/@al", undefined],
  ["/f/:base.%6Aso%6E", "/f/x.json", { base: "x" }],
  ["/w/%61*rest", "/w/abc/d", { rest: "bc/d" }],
  ["/w/%61*rest", "/w/%61bc", { rest: "bc" }],
  ["/o(/%61)/z", "/o/a/z", {}],
  ["/o(/%61)/z", "/o/z", {}],
  // "-", "." and "~" stay escaped in requests (href escapes them where
  // they would end a parameter), so a pattern spelling them escaped
  // matches only the escaped spelling.
  ["/%7Euser", "/%7Euser", {}],
  ["/%7Euser", "/~user", undefined],
  // Reserved escapes compare as written: "%2F" is never a separator.
  ["/c/%2F", "/c/%2F", {}],
  ["/c/%2F", "/c//", undefined],
];

function build(): Matcher<string> {
  const matcher = new Matcher<string>();
  for (const [pattern] of CASES) matcher.add("GET", pattern, pattern);
  return matcher;
}

function check(matcher: Matcher<string>): void {
  for (const [pattern, path, params] of CASES) {
    // Alone, so another pattern of the table cannot take the path.
    const one = new Matcher<string>();
    one.add("GET", pattern, pattern);
    for (let i = 0; i < SETTLE + 1; i++) one.match("GET", "/-");
    for (const m of [one, matcher]) {
      const found = m.match("GET", path);
      // In the whole table, `/%5f` and `/%5F` are one route (the first).
      const value = found && normalizeEscapes(found.value);
      const expected = normalizeEscapes(pattern);
      if (params === undefined) {
        assert.notEqual(value, expected, `${pattern} must miss ${path}`);
      } else {
        assert.equal(value, expected, `${pattern} must match ${path}`);
        assert.deepEqual({ ...found?.params }, params, `${pattern} ${path}`);
      }
    }
  }
}

Deno.test("escaped letters, digits and _ in a pattern match as decoded: generated matcher", () => {
  const matcher = build();
  assert.equal(matcher.isCompiled("GET"), true);
  check(matcher);
});

Deno.test("escaped letters, digits and _ in a pattern match as decoded: interpreter", () => {
  const previous = setCodegen(false);
  try {
    const matcher = build();
    assert.equal(matcher.isCompiled("GET"), false);
    check(matcher);
  } finally {
    setCodegen(previous);
  }
});

Deno.test("a route with an escaped letter answers both spellings through the router", async () => {
  const router = createRouter();
  router.get("/%61", () => new Response("a"));
  router.get("/x/%61/:id", ({ params }) => new Response(params.id));
  router.post("/%41", () => new Response("A"));
  const status = async (path: string, method = "GET") =>
    (await router.fetch(new Request(`http://h${path}`, { method }))).status;
  assert.equal(await status("/a"), 200);
  assert.equal(await status("/%61"), 200);
  assert.equal(await status("/x/a/7"), 200);
  assert.equal(await status("/x/%61/7"), 200);
  assert.equal(await status("/A", "POST"), 200);
  assert.equal(await status("/%41", "POST"), 200);
  // The 405 check reads the same normalized path.
  const response = await router.fetch(new Request("http://h/%41"));
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "POST");
});
