/**
 * Cases ported from Hono: honojs/hono `src/router/common.case.test.ts`
 * (the suite every Hono router runs), commit
 * 28a9c128912de19f3fb28b00ae289c9b93f6f392. Each case is named by its
 * `describe` > `it`; the runner (`_test_peers.ts`) checks the set of routes
 * Hono lists (each matching alone, with its params) and which one of them
 * wins here, on the generated matcher and on the interpreter.
 *
 * Translated spellings: Hono's `ALL` is our `ANY`; a bare `*` route is our
 * `/*`; a trailing `/x/*` (which in Hono also matches `/x`) is our
 * `/x(/*)`; an optional `/:p?` is our `(/:p)`; a `:name{.+}` or
 * `:name{.*}` parameter is our `*name` wildcard; `:id{[^/]+}` (Hono's
 * default) is a plain `:id`.
 *
 * Where Hono's expectation differs from ours, ours is asserted, noted at
 * the case: a repeated parameter name keeps the last capture (Hono the
 * first).
 *
 * Left out, and why:
 * - parameters with a regular expression (`:date{[0-9]+}`,
 *   `:title{[a-z]+}`, `:capture{(bar|baz)}`, `:year{[0-9]{4}}`,
 *   `:kind{(?:foo|bar)}`, `:filename{[a-z0-9/]+.js}`): not in our syntax
 *   ("Regexp", "Trailing wildcard after a pattern label" but the cases that
 *   read the same without the expression, "Including slashes", "Capture regex pattern has trailing
 *   wildcard", "Capture regex param with trailing wildcard ...", "REST
 *   API", "Capture Group");
 * - "Routing with a hostname": patterns match the pathname only;
 * - Hono's route order inside its result list: we return one route.
 */
import { testPeerCases } from "./_test_peers.ts";

const HONO = "hono common.case";

testPeerCases(HONO, [
  {
    name: "Basic Usage > GET, post hello",
    routes: [
      ["GET", "/hello", "get hello"],
      ["POST", "/hello", "post hello"],
      ["PURGE", "/hello", "purge hello"],
    ],
    requests: [
      ["GET", "/hello", ["get hello"]],
      ["POST", "/hello", ["post hello"]],
      ["PURGE", "/hello", ["purge hello"]],
      ["PUT", "/hello", []],
      ["GET", "/", []],
    ],
  },
  {
    name: "Reserved words > Reserved words and named parameter",
    routes: [["GET", "/entry/:constructor", "get entry"]],
    requests: [["GET", "/entry/123", [["get entry", { constructor: "123" }]]]],
  },
  {
    name: "Reserved words > Reserved words and wildcard",
    routes: [["GET", "/wild/*/card", "get wildcard"]],
    requests: [["GET", "/wild/constructor/card", ["get wildcard"]]],
  },
  {
    name: "Reserved words > Reserved words and optional named parameter",
    routes: [["GET", "/api/animals(/:constructor)", "animals"]],
    // No inherited `constructor` leaks in: params are exactly {}.
    requests: [["GET", "/api/animals", [["animals", {}]]]],
  },
  {
    name: "Complex > Named Param",
    routes: [["GET", "/entry/:id", "get entry"]],
    requests: [
      ["GET", "/entry/123", [["get entry", { id: "123" }]]],
      ["GET", "/entry-123", []],
    ],
  },
  {
    name: "Complex > Wildcard",
    routes: [["GET", "/wild/*/card", "get wildcard"]],
    requests: [["GET", "/wild/xxx/card", ["get wildcard"]]],
  },
  {
    name: "Complex > Default",
    routes: [["GET", "/api/abc", "get api"], ["GET", "/api/*", "fallback"]],
    requests: [
      ["GET", "/api/abc", ["get api", "fallback"], "get api"],
      ["GET", "/api/def", ["fallback"]],
    ],
  },
  {
    name: "Complex > Parameter with {.*} regexp",
    routes: [["GET", "/files/*name", "file"]],
    requests: [
      ["GET", "/files", []],
      ["GET", "/files/a", [["file", { name: "a" }]]],
      ["GET", "/files/a/b", [["file", { name: "a/b" }]]],
      ["GET", "/files/", [["file", { name: "" }]]],
    ],
  },
  {
    name: "Complex > /*",
    routes: [
      ["GET", "/api(/*)", "auth middleware"],
      ["GET", "/api", "top"],
      ["GET", "/api/posts", "posts"],
      ["GET", "/api(/*)", "fallback"],
    ],
    requests: [
      // `/api(/*)` left out is the static `/api`: a full tie with "top",
      // so the route added first wins.
      [
        "GET",
        "/api",
        ["auth middleware", "top", "fallback"],
        "auth middleware",
      ],
      ["GET", "/api/posts", ["auth middleware", "posts", "fallback"], "posts"],
    ],
  },
  {
    name: "Registration order > middleware -> handler",
    routes: [["GET", "/*", "bar"], ["GET", "/:type/:action", "foo"]],
    requests: [["GET", "/posts/123", ["bar", "foo"], "foo"]],
  },
  {
    name: "Registration order > handler -> fallback",
    routes: [["GET", "/:type/:action", "foo"], ["GET", "/*", "fallback"]],
    requests: [["GET", "/posts/123", ["foo", "fallback"], "foo"]],
  },
  {
    name: "Multi match > Blog",
    routes: [
      ["ANY", "/*", "middleware a"],
      ["GET", "/*", "middleware b"],
      ["GET", "/entry", "get entries"],
      ["POST", "/entry(/*)", "middleware c"],
      ["POST", "/entry", "post entry"],
      ["GET", "/entry/:id", "get entry"],
      ["GET", "/entry/:id/comment/:comment_id", "get comment"],
    ],
    requests: [
      ["GET", "/", ["middleware a", "middleware b"], "middleware a"],
      [
        "GET",
        "/entry/123",
        ["middleware a", "middleware b", ["get entry", { id: "123" }]],
        "get entry",
      ],
      [
        "GET",
        "/entry/123/comment/456",
        [
          "middleware a",
          "middleware b",
          ["get comment", { id: "123", comment_id: "456" }],
        ],
        "get comment",
      ],
      [
        "POST",
        "/entry",
        ["middleware a", "middleware c", "post entry"],
        // `/entry(/*)` left out ties with `/entry`, added later.
        "middleware c",
      ],
      ["DELETE", "/entry", ["middleware a"]],
    ],
  },
  {
    name: "Multi match > `params` per a handler",
    routes: [
      ["ANY", "/*", "middleware a"],
      ["GET", "/entry/:id(/*)", "middleware b"],
      ["GET", "/entry/:id/:action", "action"],
    ],
    requests: [[
      "GET",
      "/entry/123/show",
      [
        "middleware a",
        ["middleware b", { id: "123", "*": "show" }],
        ["action", { id: "123", action: "show" }],
      ],
      "action",
    ]],
  },
  {
    name: "Multi match > hierarchy",
    routes: [
      ["GET", "/posts/:id/comments/:comment_id", "foo"],
      ["GET", "/posts/:id", "bar"],
    ],
    requests: [["GET", "/", []]],
  },
  {
    // Hono keeps the first capture (id = 123); ours keeps the last.
    name: "Duplicate param name > self",
    routes: [["GET", "/:id/:id", "foo"]],
    requests: [["GET", "/123/456", [["foo", { id: "456" }]]]],
  },
  {
    name: "Duplicate param name > parent",
    routes: [["GET", "/:id/:action", "foo"], ["GET", "/posts/:id", "bar"]],
    requests: [[
      "GET",
      "/posts/get",
      [["foo", { id: "posts", action: "get" }], ["bar", { id: "get" }]],
      "bar",
    ]],
  },
  {
    name: "Duplicate param name > child",
    routes: [["GET", "/posts/:id", "foo"], ["GET", "/:id/:action", "bar"]],
    requests: [[
      "GET",
      "/posts/get",
      [["foo", { id: "get" }], ["bar", { id: "posts", action: "get" }]],
      "foo",
    ]],
  },
  {
    name: "page > GET /page",
    routes: [["GET", "/page", "page"], ["ANY", "/*", "fallback"]],
    requests: [["GET", "/page", ["page", "fallback"], "page"]],
  },
  {
    name: "star",
    routes: [
      ["GET", "/", "/"],
      ["GET", "/*", "/*"],
      ["GET", "/*", "*"],
      ["GET", "/x", "/x"],
      ["GET", "/x(/*)", "/x/*"],
    ],
    requests: [
      ["GET", "/", ["/", "/*", "*"], "/"],
      ["GET", "/x", ["/*", "*", "/x", "/x/*"], "/x"],
    ],
  },
  {
    name: "Suffix wildcard",
    routes: [["GET", "/assets*", "assets"]],
    requests: [
      ["GET", "/assets", ["assets"]],
      ["GET", "/assets-v2", ["assets"]],
      ["GET", "/assets/app.js", ["assets"]],
      ["GET", "/asset", []],
    ],
  },
  {
    name: "Suffix wildcard > associates /assets* before /assets/app.js",
    routes: [
      ["POST", "/assets*", "/assets*"],
      ["POST", "/assets/app.js", "/assets/app.js"],
    ],
    requests: [[
      "POST",
      "/assets/app.js",
      ["/assets*", "/assets/app.js"],
      "/assets/app.js",
    ]],
  },
  {
    name: "Suffix wildcard > associates /assets/app.js before /assets*",
    routes: [
      ["POST", "/assets/app.js", "/assets/app.js"],
      ["POST", "/assets*", "/assets*"],
    ],
    requests: [[
      "POST",
      "/assets/app.js",
      ["/assets*", "/assets/app.js"],
      "/assets/app.js",
    ]],
  },
  {
    name: "Trailing wildcard",
    routes: [["GET", "/path(/*)", "path"]],
    requests: [
      ["GET", "/path", ["path"]],
      ["GET", "/path/to/file", ["path"]],
      ["GET", "/pathfoo", []],
    ],
  },
  {
    name: "Trailing wildcard after a label",
    routes: [["GET", "/:name(/*)", "middleware"], ["GET", "/:id", "handler"]],
    requests: [
      [
        "GET",
        "/abc",
        [["middleware", { name: "abc" }], ["handler", { id: "abc" }]],
        // `/:name` and `/:id` tie: the route added first wins.
        "middleware",
      ],
      [
        "GET",
        "/abc/sub",
        [["middleware", { name: "abc", "*": "sub" }]],
      ],
    ],
  },
  {
    name:
      "Trailing wildcard after a pattern label > GET /user/123/profile with the default pattern",
    routes: [
      ["GET", "/user/:userId(/*)", "middleware"],
      ["GET", "/user/:id/profile", "handler"],
    ],
    requests: [[
      "GET",
      "/user/123/profile",
      [
        ["middleware", { userId: "123", "*": "profile" }],
        ["handler", { id: "123" }],
      ],
      "handler",
    ]],
  },
  {
    name:
      "Trailing wildcard after a pattern label > ... with the default pattern in reverse registration order",
    routes: [
      ["GET", "/user/:id/profile", "handler"],
      ["GET", "/user/:userId(/*)", "middleware"],
    ],
    requests: [[
      "GET",
      "/user/123/profile",
      [
        ["handler", { id: "123" }],
        ["middleware", { userId: "123", "*": "profile" }],
      ],
      "handler",
    ]],
  },
  {
    // The `{[a-z]+}` patterns dropped: what remains is plain parameters.
    name:
      "Trailing wildcard after a pattern label > GET /reverse/abc in reverse registration order",
    routes: [
      ["GET", "/reverse/:id", "handler"],
      ["GET", "/reverse/:name(/*)", "middleware"],
    ],
    requests: [[
      "GET",
      "/reverse/abc",
      [["handler", { id: "abc" }], ["middleware", { name: "abc" }]],
      // `/reverse/:id` and `/reverse/:name` tie: the route added first.
      "handler",
    ]],
  },
  {
    name:
      "Trailing wildcard after a pattern label > POST /all/abc with ALL middleware",
    routes: [
      ["ANY", "/all/:name(/*)", "middleware"],
      ["POST", "/all/:id", "handler"],
    ],
    requests: [
      [
        "POST",
        "/all/abc",
        [["middleware", { name: "abc" }], ["handler", { id: "abc" }]],
        // The POST table holds both; they tie, the ANY route came first.
        "middleware",
      ],
      ["GET", "/all/abc", [["middleware", { name: "abc" }]]],
    ],
  },
  {
    name: "Trailing wildcard after a middle wildcard",
    routes: [["GET", "/a/*/b(/*)", "b"]],
    requests: [
      ["GET", "/a/x/b", ["b"]],
      ["GET", "/a/x/b/c", ["b"]],
      ["GET", "/a/x/bz", []],
    ],
  },
  {
    name: "Optional route",
    routes: [
      ["GET", "/api/animals(/:type)", "animals"],
      ["GET", "/v1(/:version)(/:platform)", "result"],
    ],
    requests: [
      ["GET", "/api/animals/dog", [["animals", { type: "dog" }]]],
      ["GET", "/api/animals", [["animals", {}]]],
      [
        "GET",
        "/v1/123/abc",
        [["result", { version: "123", platform: "abc" }]],
      ],
      // Hono gives version; with two independent groups either could take
      // the one segment: the longer form, both groups, is tried first,
      // then the first group alone.
      ["GET", "/v1/123", [["result", { version: "123" }]]],
      ["GET", "/v1", [["result", {}]]],
    ],
  },
  {
    name: "All",
    routes: [["GET", "/hello", "get hello"], ["ANY", "/all", "get all"]],
    requests: [["GET", "/all", ["get all"]]],
  },
  {
    name: "long prefix, then star > GET only",
    routes: [
      ["GET", "/long/prefix(/*)", "long-prefix"],
      ["GET", "/long(/*)", "long"],
      ["GET", "/*", "star1"],
      ["GET", "/*", "star2"],
    ],
    requests: [
      ["GET", "/", ["star1", "star2"], "star1"],
      [
        "GET",
        "/long/prefix",
        ["long-prefix", "long", "star1", "star2"],
        "long-prefix",
      ],
      [
        "GET",
        "/long/prefix/test",
        ["long-prefix", "long", "star1", "star2"],
        "long-prefix",
      ],
    ],
  },
  {
    name: "long prefix, then star > ALL and GET",
    routes: [
      ["ANY", "/long/prefix(/*)", "long-prefix"],
      ["ANY", "/long(/*)", "long"],
      ["GET", "/*", "star1"],
      ["GET", "/*", "star2"],
    ],
    requests: [
      ["GET", "/", ["star1", "star2"], "star1"],
      [
        "GET",
        "/long/prefix",
        ["long-prefix", "long", "star1", "star2"],
        "long-prefix",
      ],
      [
        "GET",
        "/long/prefix/test",
        ["long-prefix", "long", "star1", "star2"],
        "long-prefix",
      ],
    ],
  },
  {
    name: "Capture simple multiple directories",
    routes: [["GET", "/*dirs/file.html", "file.html"]],
    requests: [
      ["GET", "/foo/bar/file.html", [["file.html", { dirs: "foo/bar" }]]],
      [
        "GET",
        "/foo/bar/baz/file.html",
        [["file.html", { dirs: "foo/bar/baz" }]],
      ],
      ["GET", "/a/b/c/d/file.html", [["file.html", { dirs: "a/b/c/d" }]]],
    ],
  },
  {
    name: "Capture complex multiple directories",
    routes: [
      ["GET", "/*first/middle-a(/:reference)", "1"],
      ["GET", "/*first/middle-b/end-c/:uuid", "2"],
      ["GET", "/*first/middle-b/:digest", "3"],
    ],
    requests: [
      [
        "GET",
        "/part1/middle-b/latest",
        [["3", { first: "part1", digest: "latest" }]],
      ],
      [
        "GET",
        "/part1/middle-b/end-c/latest",
        [["2", { first: "part1", uuid: "latest" }]],
      ],
    ],
  },
  {
    name: "Capture multiple directories and optional",
    routes: [["GET", "/*prefix/contents(/:id)", "contents"]],
    requests: [
      ["GET", "/foo/bar/contents", [["contents", { prefix: "foo/bar" }]]],
      [
        "GET",
        "/foo/bar/contents/123",
        [["contents", { prefix: "foo/bar", id: "123" }]],
      ],
    ],
  },
  {
    // `$`, `(` and `)` are pattern syntax for us: a literal `(` or `)`
    // cannot be written in a pattern, so "()" is left out; `$` is plain
    // text outside a name.
    name: "non ascii characters",
    routes: [
      ["ANY", "/$(/*)", "middleware $"],
      ["GET", "/$/:name", "get $ name"],
    ],
    requests: [[
      "GET",
      "/$/hono",
      [["middleware $", { "*": "hono" }], ["get $ name", { name: "hono" }]],
      "get $ name",
    ]],
  },
  {
    name: "Trailing slash",
    routes: [["GET", "/book", "GET /book"], [
      "GET",
      "/book/:id",
      "GET /book/:id",
    ]],
    requests: [
      ["GET", "/book", ["GET /book"]],
      ["GET", "/book/", []],
    ],
  },
  {
    name: "Same path",
    routes: [["GET", "/hey", "Middleware A"], ["GET", "/hey", "Middleware B"]],
    requests: [[
      "GET",
      "/hey",
      ["Middleware A", "Middleware B"],
      "Middleware A",
    ]],
  },
  {
    name: "static routes of ALL and GET",
    routes: [["ANY", "/foo", "foo"], ["GET", "/bar", "bar"]],
    requests: [["GET", "/foo", ["foo"]]],
  },
  {
    name: "ALL and Star",
    routes: [["ANY", "/x", "/x"], ["GET", "/*", "star"]],
    requests: [["GET", "/x", ["/x", "star"], "/x"]],
  },
  {
    name: "GET star, ALL static, GET star...",
    routes: [
      ["GET", "/*", "star1"],
      ["ANY", "/x", "/x"],
      ["GET", "/*", "star2"],
      ["GET", "/*", "star3"],
    ],
    requests: [["GET", "/x", ["star1", "/x", "star2", "star3"], "/x"]],
  },
  {
    name: "GET star, GET static, ALL star...",
    routes: [
      ["GET", "/y(/*)", "star1"],
      ["GET", "/y/a", "a"],
      ["ANY", "/y/b(/*)", "star2"],
      ["GET", "/y/b/bar", "bar"],
    ],
    requests: [["GET", "/y/b/bar", ["star1", "star2", "bar"], "bar"]],
  },
  {
    name: "ALL star, ALL star, GET static, ALL star...",
    routes: [
      ["ANY", "/*", "wildcard"],
      ["ANY", "/a(/*)", "star1"],
      ["GET", "/a/foo", "foo"],
      ["ANY", "/b(/*)", "star2"],
      ["GET", "/b/bar", "bar"],
    ],
    requests: [["GET", "/b/bar", ["wildcard", "star2", "bar"], "bar"]],
  },
  {
    name: "Unknown method",
    routes: [["GET", "/", "index"], ["ANY", "/all", "all"]],
    requests: [
      ["UNKNOWN_METHOD", "/", []],
      ["UNKNOWN_METHOD", "/all", ["all"]],
    ],
  },
]);
