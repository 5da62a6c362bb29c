import assert from "node:assert/strict";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";

/** A router whose every route answers with its own pattern and params. */
function echo(...patterns: string[]): Router {
  const router = createRouter();
  for (const pattern of patterns) {
    router.get(pattern, ({ params }) => Response.json({ pattern, params }));
  }
  return router;
}

async function hit(router: Router, path: string, method = "GET") {
  const response = await router.fetch(
    new Request(`http://localhost${path}`, { method }),
  );
  return response.status === 200 ? await response.json() : response.status;
}

Deno.test("static, parameter and wildcard segments match", async () => {
  const router = echo(
    "/",
    "/about",
    "/posts/:id",
    "/posts/:id/comments/:commentId",
    "/files/*path",
  );
  assert.deepEqual(await hit(router, "/"), { pattern: "/", params: {} });
  assert.deepEqual(await hit(router, "/about"), {
    pattern: "/about",
    params: {},
  });
  assert.deepEqual(await hit(router, "/posts/7"), {
    pattern: "/posts/:id",
    params: { id: "7" },
  });
  assert.deepEqual(await hit(router, "/posts/7/comments/8"), {
    pattern: "/posts/:id/comments/:commentId",
    params: { id: "7", commentId: "8" },
  });
  assert.deepEqual(await hit(router, "/files/a/b/c.txt"), {
    pattern: "/files/*path",
    params: { path: "a/b/c.txt" },
  });
  assert.equal(await hit(router, "/posts"), 404);
  assert.equal(await hit(router, "/posts/"), 404, "a parameter is never empty");
});

Deno.test("a wildcard matches zero or more characters, slashes included; bare * is unnamed", async () => {
  const router = echo("/assets/*", "/docs/*rest/edit", "/img/*name.png");
  assert.deepEqual(await hit(router, "/assets/"), {
    pattern: "/assets/*",
    params: { "*": "" },
  });
  assert.deepEqual(await hit(router, "/assets/x/y"), {
    pattern: "/assets/*",
    params: { "*": "x/y" },
  });
  assert.deepEqual(await hit(router, "/docs/a/b/edit"), {
    pattern: "/docs/*rest/edit",
    params: { rest: "a/b" },
  });
  assert.deepEqual(await hit(router, "/img/a/b.png"), {
    pattern: "/img/*name.png",
    params: { name: "a/b" },
  });
  assert.equal(await hit(router, "/img/a/b.jpg"), 404);
});

Deno.test("parameters may share a segment with text", async () => {
  const router = echo(
    "/users/@:name",
    "/blog/:year-:month-:day/:slug",
    "/files/:base.:ext",
  );
  assert.deepEqual(await hit(router, "/users/@ada"), {
    pattern: "/users/@:name",
    params: { name: "ada" },
  });
  assert.deepEqual(await hit(router, "/blog/2026-11-21/hello"), {
    pattern: "/blog/:year-:month-:day/:slug",
    params: { year: "2026", month: "11", day: "21", slug: "hello" },
  });
  assert.deepEqual((await hit(router, "/files/archive.tar.gz")).params, {
    base: "archive",
    ext: "tar.gz",
  });
  assert.equal(await hit(router, "/users/ada"), 404);
});

Deno.test("optional groups, nested too, match with and without their contents", async () => {
  const router = echo(
    "/posts(/page/:page)",
    "/api(/v:version)/users(/:id(/:tab))",
  );
  assert.deepEqual((await hit(router, "/posts")).params, {});
  assert.deepEqual((await hit(router, "/posts/page/3")).params, { page: "3" });
  assert.equal(await hit(router, "/posts/page"), 404);
  assert.deepEqual((await hit(router, "/api/users")).params, {});
  assert.deepEqual((await hit(router, "/api/v2/users/9/posts")).params, {
    version: "2",
    id: "9",
    tab: "posts",
  });
  assert.deepEqual((await hit(router, "/api/users/9")).params, { id: "9" });
});

Deno.test("trailing slashes are strict; / matches /", async () => {
  const router = echo("/", "/about", "/dir/");
  assert.equal((await hit(router, "/")).pattern, "/");
  assert.equal(await hit(router, "/about/"), 404);
  assert.equal(await hit(router, "/dir"), 404);
  assert.equal((await hit(router, "/dir/")).pattern, "/dir/");
});

Deno.test("parameters are percent-decoded; a malformed escape is no match, not a throw", async () => {
  const router = echo("/tags/:tag", "/files/*path");
  assert.deepEqual((await hit(router, "/tags/caf%C3%A9%20cr%C3%A8me")).params, {
    tag: "caf\u00e9 cr\u00e8me",
  });
  assert.deepEqual((await hit(router, "/tags/a%2Fb")).params, { tag: "a/b" });
  assert.equal(await hit(router, "/tags/%E0%A4%A"), 404);
  assert.equal(await hit(router, "/files/ok/%ZZ"), 404);
});

Deno.test("static text with spaces or non-ASCII matches the encoded request path", async () => {
  const router = echo("/caf\u00e9", "/a b/:x");
  assert.equal((await hit(router, "/caf\u00e9")).pattern, "/caf\u00e9");
  assert.deepEqual((await hit(router, "/a%20b/1")).params, { x: "1" });
});

Deno.test("ranking: static beats parameter beats wildcard, left to right", async () => {
  const router = echo(
    "/*all",
    "/posts/:id",
    "/posts/new",
    "/:section/new",
    "/posts/:id/*rest",
    "/posts/:id/edit",
  );
  assert.equal((await hit(router, "/posts/new")).pattern, "/posts/new");
  assert.equal((await hit(router, "/posts/7")).pattern, "/posts/:id");
  assert.equal((await hit(router, "/users/new")).pattern, "/:section/new");
  assert.equal((await hit(router, "/posts/7/edit")).pattern, "/posts/:id/edit");
  assert.equal((await hit(router, "/posts/7/x/y")).pattern, "/posts/:id/*rest");
  assert.equal((await hit(router, "/other/place/deep")).pattern, "/*all");
  // Left to right: a static first segment wins even when a later one is dynamic.
  const leftmost = echo("/:a/static", "/fixed/:b");
  assert.equal((await hit(leftmost, "/fixed/static")).pattern, "/fixed/:b");
});

Deno.test("ranking: more static text in a segment beats a bare parameter", async () => {
  const router = echo("/u/:id", "/u/@:name", "/u/@:name.json");
  assert.equal((await hit(router, "/u/@ada.json")).pattern, "/u/@:name.json");
  assert.equal((await hit(router, "/u/@ada")).pattern, "/u/@:name");
  assert.equal((await hit(router, "/u/ada")).pattern, "/u/:id");
});

Deno.test("ranking: ties go to the route added first", async () => {
  const router = echo("/x/:a", "/x/:b");
  assert.deepEqual((await hit(router, "/x/1")).params, { a: "1" });
  const statics = createRouter();
  statics.get("/same", () => new Response("first"));
  statics.get("/same", () => new Response("second"));
  assert.equal(
    await (await statics.fetch(new Request("http://localhost/same"))).text(),
    "first",
  );
});

Deno.test("a failed deeper match backtracks to the next candidate", async () => {
  const router = echo("/a/:x/one", "/a/b/two");
  assert.equal((await hit(router, "/a/b/one")).pattern, "/a/:x/one");
  assert.equal((await hit(router, "/a/b/two")).pattern, "/a/b/two");
});

Deno.test("methods route separately; ANY serves every method", async () => {
  const router = createRouter();
  router.get("/item/:id", () => new Response("get"));
  router.delete("/item/:id", () => new Response("delete"));
  router.any("/ping", ({ method }) => new Response(`any ${method}`));
  router.put("/item/new", () => new Response("put new"));
  const call = async (method: string, path: string) =>
    await (await router.fetch(
      new Request(`http://localhost${path}`, { method }),
    )).text();
  assert.equal(await call("GET", "/item/1"), "get");
  assert.equal(await call("DELETE", "/item/1"), "delete");
  assert.equal(
    await call("DELETE", "/item/new"),
    "delete",
    "a static route for PUT does not hide DELETE",
  );
  assert.equal(await call("PATCH", "/ping"), "any PATCH");
  assert.equal(await call("PROPFIND", "/ping"), "any PROPFIND");
});

Deno.test("static text before a wildcard ranks like mixed segments: above a bare parameter", async () => {
  const router = echo("/w/:name", "/w/x*rest");
  assert.deepEqual(await hit(router, "/w/xyz"), {
    pattern: "/w/x*rest",
    params: { rest: "yz" },
  });
  assert.deepEqual(await hit(router, "/w/abc"), {
    pattern: "/w/:name",
    params: { name: "abc" },
  });
});

Deno.test("empty segments: a trailing slash after a parameter, and //", async () => {
  const router = echo("/dir/:x/", "/:x//b");
  assert.deepEqual(await hit(router, "/dir/abc/"), {
    pattern: "/dir/:x/",
    params: { x: "abc" },
  });
  assert.equal(await hit(router, "/dir/abc"), 404);
  assert.deepEqual(await hit(router, "/q//b"), {
    pattern: "/:x//b",
    params: { x: "q" },
  });
});

Deno.test("static text with | and ^ matches: URL pathnames keep them raw", async () => {
  const router = echo("/a|b", "/x/:id/c^d");
  assert.equal((await hit(router, "/a|b")).pattern, "/a|b");
  assert.deepEqual((await hit(router, "/x/1/c^d")).params, { id: "1" });
});

Deno.test("a #fragment in an in-process request URL is not routed", async () => {
  const router = echo("/a", "/b/:id");
  assert.equal((await hit(router, "/a#frag")).pattern, "/a");
  assert.deepEqual((await hit(router, "/b/1#x")).params, { id: "1" });
  assert.equal(
    (await hit(router, "/a#frag?x=1")).pattern,
    "/a",
    "a ? inside the fragment is not a query",
  );
});

Deno.test("HEAD: an explicit HEAD route wins over the GET route, whatever the order", async () => {
  const router = createRouter();
  router.get("/x", () => new Response("get", { headers: { "x-by": "get" } }));
  router.head("/x", () => new Response(null, { headers: { "x-by": "head" } }));
  router.get(
    "/y/:id",
    () => new Response("get", { headers: { "x-by": "get" } }),
  );
  router.head(
    "/y/:id",
    () => new Response(null, { headers: { "x-by": "head" } }),
  );
  router.any("/z", () => new Response("any", { headers: { "x-by": "any" } }));
  const by = async (path: string) =>
    (await router.fetch(
      new Request(`http://localhost${path}`, { method: "HEAD" }),
    )).headers.get("x-by");
  assert.equal(await by("/x"), "head");
  assert.equal(await by("/y/1"), "head");
  assert.equal(await by("/z"), "any");
});

Deno.test("ranking goes on past the first wildcard, whatever the order routes were added in", async () => {
  for (const order of [false, true]) {
    const pairs: [string, string, string][] = [
      ["/*/123/:id/7*", "/*/123/:id/*", "/a/123/5/7x"],
      ["/*/*", "/*", "/a/b"],
    ];
    for (const [better, worse, path] of pairs) {
      const router = order ? echo(worse, better) : echo(better, worse);
      assert.equal((await hit(router, path)).pattern, better, path);
    }
  }
});

Deno.test("escapes of unreserved characters match static text; reserved ones stay as sent", async () => {
  const router = echo("/a", "/@me", "/u/:name");
  assert.equal((await hit(router, "/%61")).pattern, "/a");
  assert.equal(await hit(router, "/%40me"), 404);
  assert.deepEqual(await hit(router, "/u/%40x%2Fy"), {
    pattern: "/u/:name",
    params: { name: "@x/y" },
  });
  // No Unicode normalization: NFD "é" is not NFC "é".
  const cafe = echo("/caf\u00e9");
  assert.equal((await hit(cafe, "/caf\u00e9")).pattern, "/caf\u00e9");
  assert.equal(await hit(cafe, "/cafe\u0301"), 404);
});

Deno.test("wildcards are greedy; parameters sharing a segment are lazy (docs/guide.md)", async () => {
  const router = echo("/*a/x/*b/end", "/p/:a-:b", "/g/*a/*b.txt");
  assert.deepEqual(await hit(router, "/1/x/2/x/3/end"), {
    pattern: "/*a/x/*b/end",
    params: { a: "1/x/2", b: "3" },
  });
  assert.deepEqual(await hit(router, "/g/1/2/3.txt"), {
    pattern: "/g/*a/*b.txt",
    params: { a: "1/2", b: "3" },
  });
  assert.deepEqual(await hit(router, "/p/x-y-z"), {
    pattern: "/p/:a-:b",
    params: { a: "x", b: "y-z" },
  });
});

Deno.test("a repeated parameter name keeps the last capture, as Remix (Hono keeps the first)", async () => {
  const router = echo("/r/:id/s/:id", "/q/:id(/:id)", "/w/*id/x/:id");
  assert.deepEqual(await hit(router, "/r/1/s/2"), {
    pattern: "/r/:id/s/:id",
    params: { id: "2" },
  });
  assert.deepEqual(await hit(router, "/q/1/2"), {
    pattern: "/q/:id(/:id)",
    params: { id: "2" },
  });
  assert.deepEqual(await hit(router, "/q/1"), {
    pattern: "/q/:id(/:id)",
    params: { id: "1" },
  });
  assert.deepEqual(await hit(router, "/w/a/b/x/c"), {
    pattern: "/w/*id/x/:id",
    params: { id: "c" },
  });
});
