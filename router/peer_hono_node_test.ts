/**
 * Cases ported from Hono: honojs/hono `src/router/trie-router/node.test.ts`
 * (the trie router's node: insert and search) and
 * `src/router/reg-exp-router/router.test.ts` (where it describes matching),
 * commit
 * 28a9c128912de19f3fb28b00ae289c9b93f6f392. Each case is named by its
 * `describe` > `it`; the runner (`_test_peers.ts`) checks the set of routes
 * Hono's search returns (each matching alone, with its params) and which
 * one wins here, on the generated matcher and on the interpreter.
 *
 * Translated spellings, as in peer_hono_common_test.ts: `ALL` is `ANY`, a
 * bare `*` is `/*`, a trailing `/x/*` is `/x(/*)`, `:name{.+}` and
 * `:name{.*}` are `*name`.
 *
 * Where Hono's expectation differs from ours, ours is asserted and noted
 * at the case (a repeated parameter name keeps the last capture).
 *
 * Left out, and why:
 * - parameters with a regular expression ("Regexp", "Multi match >
 *   Regexp", "Including slashes", "REST API", "Duplicate param name >
 *   regular expression"): not in our syntax;
 * - "Sort Order" as such (the order of Hono's result list): we return one
 *   route; its cases are ported for the set of matches and the winner;
 * - reg-exp-router: "Return value type" (its param stash), the regular
 *   expression cases ("different regular expression", "Capture Group",
 *   "Single character regexp pattern"); its `UnsupportedPathError` cases
 *   are routes the RegExpRouter refuses as ambiguous but we route: they
 *   are ported as routing cases with the winner named;
 * - `linear-router`, `pattern-router` and `smart-router` tests: each runs
 *   common.case (peer_hono_common_test.ts) plus its own limits (their
 *   `/book/` matching `/book` is the opposite of our strict trailing
 *   slash, "Trailing slash" in common.case is ours);
 *   `prepared-router.test.ts`: Hono's build-time serialization;
 * - "Pattern spanning multiple parts > followed by a wildcard"
 *   (`/:file{.*}/*`): two wildcards with nothing between them are refused
 *   as ambiguous here (matcher/pattern.ts).
 */
import { testPeerCases } from "./_test_peers.ts";

testPeerCases("hono trie-router node", [
  {
    name: "Root Node",
    routes: [["GET", "/", "get root"]],
    requests: [["GET", "/", ["get root"]], ["GET", "/hello", []]],
  },
  {
    name: "Root Node is not defined",
    routes: [["GET", "/hello", "get hello"]],
    requests: [["GET", "/", []]],
  },
  {
    name: "Get with *",
    routes: [["GET", "/*", "get all"]],
    requests: [["GET", "/", ["get all"]], ["GET", "/hello", ["get all"]]],
  },
  {
    name: "Get with * including JS reserved words",
    routes: [["GET", "/*", "get all"]],
    requests: [
      ["GET", "/hello/constructor", [["get all", {
        "*": "hello/constructor",
      }]]],
      ["GET", "/hello/__proto__", [["get all", { "*": "hello/__proto__" }]]],
    ],
  },
  {
    name: "Get with a suffix wildcard > matches",
    routes: [["GET", "/assets*", "assets"]],
    requests: [
      ["GET", "/assets", ["assets"]],
      ["GET", "/assets-v2", ["assets"]],
      ["GET", "/assets/app.js", ["assets"]],
      ["GET", "/asset", []],
    ],
  },
  {
    name:
      "Get with a suffix wildcard > treats regular expression characters in the prefix literally",
    routes: [["GET", "/file.+*", "file"]],
    requests: [["GET", "/file.+js", ["file"]], ["GET", "/fileZZjs", []]],
  },
  {
    name:
      "Get with a suffix wildcard > registers the pattern when its child already exists",
    routes: [["GET", "/assets*/x", "literal"], ["GET", "/assets*", "assets"]],
    requests: [
      ["GET", "/assets/app.js", ["assets"]],
      ["GET", "/assets/x", ["literal", "assets"], "literal"],
    ],
  },
  {
    name: "Basic Usage",
    routes: [
      ["GET", "/hello", "get hello"],
      ["POST", "/hello", "post hello"],
      ["GET", "/hello/foo", "get hello foo"],
    ],
    requests: [
      ["GET", "/", []],
      ["POST", "/", []],
      ["GET", "/hello", ["get hello"]],
      ["POST", "/hello", ["post hello"]],
      ["PUT", "/hello", []],
      ["GET", "/nothing", []],
      ["GET", "/hello/foo", ["get hello foo"]],
      ["POST", "/hello/foo", []],
      ["GET", "/hello/bar", []],
      ["GET", "/hello/foo/bar", []],
    ],
  },
  {
    name: "Name path",
    routes: [
      ["GET", "/entry/:id", "get entry"],
      ["GET", "/entry/:id/comment/:comment_id", "get comment"],
      ["GET", "/map/:location/events", "get events"],
      ["GET", "/about/:name/address/map", "get address"],
    ],
    requests: [
      ["GET", "/entry/123", [["get entry", { id: "123" }]]],
      ["GET", "/entry/456/comment", []],
      [
        "GET",
        "/entry/789/comment/123",
        [["get comment", { id: "789", comment_id: "123" }]],
      ],
      ["GET", "/map/yokohama/events", [["get events", {
        location: "yokohama",
      }]]],
      ["GET", "/about/foo/address/map", [["get address", { name: "foo" }]]],
    ],
  },
  {
    name: "Name path > Should not return a previous param value",
    routes: [["DELETE", "/resource/:id", "resource"]],
    requests: [
      ["DELETE", "/resource/a", [["resource", { id: "a" }]]],
      ["DELETE", "/resource/b", [["resource", { id: "b" }]]],
    ],
  },
  {
    name: "Name path > Should return a sorted values",
    routes: [["GET", "/resource/a", "A"], ["GET", "/resource/*", "Star"]],
    requests: [["GET", "/resource/a", ["A", "Star"], "A"]],
  },
  {
    name: "Name path - Multiple route",
    routes: [["GET", "/:type/:id", "common"], [
      "GET",
      "/posts/:id",
      "specialized",
    ]],
    requests: [[
      "GET",
      "/posts/123",
      [["common", { type: "posts", id: "123" }], ["specialized", {
        id: "123",
      }]],
      "specialized",
    ]],
  },
  {
    name: "Param prefix",
    routes: [["GET", "/:foo", "onepart"], ["GET", "/:bar/:baz", "twopart"]],
    requests: [
      ["GET", "/hello", [["onepart", { foo: "hello" }]]],
      ["GET", "/hello/world", [["twopart", { bar: "hello", baz: "world" }]]],
    ],
  },
  {
    name: "Named params and a wildcard",
    routes: [["GET", "/:id(/*)", "onepart"]],
    requests: [
      ["GET", "/", []],
      ["GET", "/foo", [["onepart", { id: "foo" }]]],
      ["GET", "/foo/bar", [["onepart", { id: "foo", "*": "bar" }]]],
    ],
  },
  {
    name: "Wildcard",
    routes: [
      ["GET", "/wildcard-abc/*/wildcard-efg", "wildcard"],
      ["GET", "/wildcard-abc/*/wildcard-efg/hijk", "wildcard hijk"],
    ],
    requests: [
      ["GET", "/wildcard-abc/xxxxxx/wildcard-efg", ["wildcard"]],
      ["GET", "/wildcard-abc/xxxxxx/wildcard-efg/hijk", ["wildcard hijk"]],
    ],
  },
  {
    name: "All",
    routes: [["ANY", "/all-methods", "all methods"]],
    requests: [
      ["GET", "/all-methods", ["all methods"]],
      ["PUT", "/all-methods", ["all methods"]],
    ],
  },
  {
    name: "Special Wildcard",
    routes: [["ANY", "/*", "match all"]],
    requests: [
      ["GET", "/foo", ["match all"]],
      ["GET", "/hello", ["match all"]],
      ["GET", "/hello/foo", ["match all"]],
    ],
  },
  {
    name: "Special Wildcard deeply",
    routes: [["ANY", "/hello(/*)", "match hello"]],
    requests: [
      ["GET", "/hello", ["match hello"]],
      ["GET", "/hello/foo", ["match hello"]],
    ],
  },
  {
    name: "Default with wildcard",
    routes: [["ANY", "/api(/*)", "fallback"], ["ANY", "/api/abc", "match api"]],
    requests: [
      ["GET", "/api/abc", ["fallback", "match api"], "match api"],
      ["GET", "/api/def", ["fallback"]],
    ],
  },
  {
    name: "Multi match > Basic",
    routes: [
      ["GET", "/*", "GET *"],
      ["GET", "/abc(/*)", "GET /abc/*"],
      ["GET", "/abc/*/edf", "GET /abc/*/edf"],
      ["GET", "/abc/edf", "GET /abc/edf"],
      ["GET", "/abc/*/ghi/jkl", "GET /abc/*/ghi/jkl"],
    ],
    requests: [
      [
        "GET",
        "/abc/edf",
        ["GET *", "GET /abc/*", "GET /abc/edf"],
        "GET /abc/edf",
      ],
      [
        "GET",
        "/abc/xxx/edf",
        ["GET *", "GET /abc/*", "GET /abc/*/edf"],
        "GET /abc/*/edf",
      ],
      ["GET", "/", ["GET *"]],
      ["POST", "/", []],
      ["GET", "/abc/edf/ghi", ["GET *", "GET /abc/*"], "GET /abc/*"],
    ],
  },
  {
    name: "Multi match > Blog",
    routes: [
      ["GET", "/*", "middleware a"],
      ["ANY", "/*", "middleware b"],
      ["GET", "/entry", "get entries"],
      ["POST", "/entry(/*)", "middleware c"],
      ["POST", "/entry", "post entry"],
      ["GET", "/entry/:id", "get entry"],
      ["GET", "/entry/:id/comment/:comment_id", "get comment"],
    ],
    requests: [
      [
        "GET",
        "/entry/123",
        ["middleware a", "middleware b", ["get entry", { id: "123" }]],
        "get entry",
      ],
      [
        "GET",
        "/entry/123/comment/456",
        ["middleware a", "middleware b", [
          "get comment",
          { id: "123", comment_id: "456" },
        ]],
        "get comment",
      ],
      // `/entry(/*)` left out ties with `/entry`, added later.
      [
        "POST",
        "/entry",
        ["middleware b", "middleware c", "post entry"],
        "middleware c",
      ],
      ["DELETE", "/entry", ["middleware b"]],
    ],
  },
  {
    name: "Multi match > ALL",
    routes: [
      ["ANY", "/*", "ALL *"],
      ["ANY", "/abc(/*)", "ALL /abc/*"],
      ["ANY", "/abc/*/def", "ALL /abc/*/def"],
    ],
    requests: [
      ["GET", "/", ["ALL *"]],
      ["POST", "/abc", ["ALL *", "ALL /abc/*"], "ALL /abc/*"],
      [
        "POST",
        "/abc/xxx/def",
        ["ALL *", "ALL /abc/*", "ALL /abc/*/def"],
        "ALL /abc/*/def",
      ],
    ],
  },
  {
    name: "Multi match > Trailing slash",
    routes: [["GET", "/book", "GET /book"], [
      "GET",
      "/book/:id",
      "GET /book/:id",
    ]],
    requests: [["GET", "/book", ["GET /book"]], ["GET", "/book/", []]],
  },
  {
    name: "Multi match > Same path",
    routes: [["GET", "/hey", "Middleware A"], ["GET", "/hey", "Middleware B"]],
    requests: [[
      "GET",
      "/hey",
      ["Middleware A", "Middleware B"],
      "Middleware A",
    ]],
  },
  {
    // Hono keeps the first capture (id = 123); ours keeps the last.
    name: "Duplicate param name > self",
    routes: [["GET", "/:id/:id", "foo"]],
    requests: [["GET", "/123/456", [["foo", { id: "456" }]]]],
  },
  {
    name: "Duplicate param name > parent",
    routes: [
      ["GET", "/:id/:action", "foo"],
      ["GET", "/posts/:id", "bar"],
      ["GET", "/posts/:id/comments/:comment_id", "comment"],
    ],
    requests: [
      ["GET", "/123/action", [["foo", { id: "123", action: "action" }]]],
      [
        "GET",
        "/posts/abc/comments/edf",
        [["comment", { id: "abc", comment_id: "edf" }]],
      ],
    ],
  },
  {
    name: "Duplicate param name > child",
    routes: [["GET", "/posts/:id", "foo"], ["GET", "/:id/:action", "bar"]],
    requests: [[
      "GET",
      "/posts/action",
      [["foo", { id: "action" }], ["bar", { id: "posts", action: "action" }]],
      "foo",
    ]],
  },
  {
    name: "Sort Order > Basic",
    routes: [
      ["GET", "/*", "a"],
      ["GET", "/page", "/page"],
      ["GET", "/:slug", "/:slug"],
    ],
    requests: [["GET", "/page", ["a", "/page", "/:slug"], "/page"]],
  },
  {
    name: "Sort Order > With Named path",
    routes: [
      ["GET", "/*", "a"],
      ["GET", "/posts/:id", "/posts/:id"],
      ["GET", "/:type/:id", "/:type/:id"],
    ],
    requests: [[
      "GET",
      "/posts/123",
      ["a", "/posts/:id", "/:type/:id"],
      "/posts/:id",
    ]],
  },
  {
    name: "Sort Order > With Wildcards",
    routes: [
      ["GET", "/api(/*)", "1st"],
      ["GET", "/api(/*)", "2nd"],
      ["GET", "/api/posts/:id", "3rd"],
      ["GET", "/api(/*)", "4th"],
    ],
    requests: [["GET", "/api/posts/123", ["1st", "2nd", "3rd", "4th"], "3rd"]],
  },
  {
    name: "Sort Order > With special Wildcard",
    routes: [
      ["GET", "/posts", "/posts"],
      ["GET", "/posts(/*)", "/posts/*"],
      ["GET", "/posts/:id", "/posts/:id"],
    ],
    requests: [["GET", "/posts", ["/posts", "/posts/*"], "/posts"]],
  },
  {
    name: "Sort Order > Complex",
    routes: [
      ["GET", "/api", "a"],
      ["GET", "/api(/*)", "b"],
      ["GET", "/api/:type", "c"],
      ["GET", "/api/:type/:id", "d"],
      ["GET", "/api/posts/:id", "e"],
      ["GET", "/api/posts/123", "f"],
      ["GET", "/*/*/:id", "g"],
      ["GET", "/api/posts/*/comment", "h"],
      ["GET", "/*", "i"],
      ["GET", "/*", "j"],
    ],
    requests: [[
      "GET",
      "/api/posts/123",
      ["b", "d", "e", "f", "g", "i", "j"],
      "f",
    ]],
  },
  {
    name: "Sort Order > Multi match (ALL)",
    routes: [
      ["GET", "/api(/*)", "a"],
      ["GET", "/api/entry", "entry"],
      ["ANY", "/api(/*)", "b"],
    ],
    requests: [["GET", "/api/entry", ["a", "entry", "b"], "entry"]],
  },
  {
    name: "Sort Order > fallback > Blog - failed",
    routes: [
      ["POST", "/entry", "post entry"],
      ["POST", "/entry(/*)", "fallback"],
      ["GET", "/entry/:id", "get entry"],
    ],
    requests: [["POST", "/entry", ["post entry", "fallback"], "post entry"]],
  },
  {
    name: "Sort Order > page",
    routes: [["GET", "/page", "page"], ["ANY", "/*", "fallback"]],
    requests: [["GET", "/page", ["page", "fallback"], "page"]],
  },
  {
    name: "Routing order With named parameters",
    routes: [
      ["GET", "/book/a", "no-slug"],
      ["GET", "/book/:slug", "slug"],
      ["GET", "/book/b", "no-slug-b"],
    ],
    requests: [
      [
        "GET",
        "/book/a",
        [["no-slug", {}], ["slug", { slug: "a" }]],
        "no-slug",
      ],
      ["GET", "/book/foo", [["slug", { slug: "foo" }]]],
      [
        "GET",
        "/book/b",
        [["slug", { slug: "b" }], ["no-slug-b", {}]],
        "no-slug-b",
      ],
    ],
  },
  {
    name: "The same name is used for path params > Basic",
    routes: [["GET", "/:a/:b/:c", "abc"], ["GET", "/:a/:b/:c/:d", "abcd"]],
    requests: [["GET", "/1/2/3", [["abc", { a: "1", b: "2", c: "3" }]]]],
  },
  {
    name: "The same name is used for path params > Complex",
    routes: [["GET", "/:a", "a"], ["GET", "/:b/:a", "ba"]],
    requests: [["GET", "/about/me", [["ba", { b: "about", a: "me" }]]]],
  },
  {
    name: "The same name is used for path params > Complex with tails",
    routes: [
      ["GET", "/:id/:id2/comments", "a"],
      ["GET", "/posts/:id/comments", "b"],
    ],
    requests: [[
      "GET",
      "/posts/123/comments",
      [["a", { id: "posts", id2: "123" }], ["b", { id: "123" }]],
      "b",
    ]],
  },
  {
    name: "Pattern spanning multiple parts > followed by a static part",
    routes: [["GET", "/*dirs/file.html", "file.html"]],
    requests: ["foo", "foo/bar", "foo/bar/baz", "a/b/c/d"].map((dirs) =>
      ["GET", `/${dirs}/file.html`, [["file.html", { dirs }]]] as const
    ),
  },
]);

testPeerCases("hono reg-exp-router", [
  {
    name: "UnsupportedPathError > Ambiguous > GET /entry/:name",
    routes: [
      ["GET", "/:user/entries", "get user entries"],
      ["GET", "/entry/:name", "get entry"],
    ],
    requests: [
      [
        "GET",
        "/entry/entries",
        [["get user entries", { user: "entry" }], ["get entry", {
          name: "entries",
        }]],
        // Left to right: the static first segment wins.
        "get entry",
      ],
      ["GET", "/me/entries", [["get user entries", { user: "me" }]]],
    ],
  },
  {
    name: "UnsupportedPathError > Multiple handlers with different label",
    routes: [["GET", "/:type/:id", ":type"], ["GET", "/:class/:id", ":class"]],
    requests: [[
      "GET",
      "/a/1",
      [[":type", { type: "a", id: "1" }], [":class", { class: "a", id: "1" }]],
      ":type",
    ]],
  },
  {
    name: "UnsupportedPathError > parent and child",
    routes: [["GET", "/:id/:action", "foo"], ["GET", "/posts/:id", "bar"]],
    requests: [[
      "GET",
      "/posts/1",
      [["foo", { id: "posts", action: "1" }], ["bar", { id: "1" }]],
      "bar",
    ]],
  },
  {
    name: "UnsupportedPathError > static and dynamic (static first)",
    routes: [["GET", "/reg-exp/router", "foo"], ["GET", "/reg-exp/:id", "bar"]],
    requests: [
      ["GET", "/reg-exp/router", ["foo", "bar"], "foo"],
      ["GET", "/reg-exp/1", [["bar", { id: "1" }]]],
    ],
  },
  {
    name: "UnsupportedPathError > static and dynamic (dynamic first)",
    routes: [["GET", "/reg-exp/:id", "bar"], ["GET", "/reg-exp/router", "foo"]],
    requests: [["GET", "/reg-exp/router", ["foo", "bar"], "foo"]],
  },
  {
    name:
      "UnsupportedPathError > ALL route added after a specific-method route",
    routes: [["GET", "/foo/:a", "foo"], ["ANY", "/foo/:b", "bar"]],
    requests: [
      [
        "GET",
        "/foo/1",
        [["foo", { a: "1" }], ["bar", { b: "1" }]],
        "foo",
      ],
      ["POST", "/foo/1", [["bar", { b: "1" }]]],
    ],
  },
  {
    name:
      "UnsupportedPathError > specific-method route added after an ALL route",
    routes: [["ANY", "/reg-exp/router", "foo"], ["GET", "/reg-exp/:id", "bar"]],
    requests: [
      ["GET", "/reg-exp/router", ["foo", "bar"], "foo"],
      ["POST", "/reg-exp/router", ["foo"]],
    ],
  },
  {
    name: "UnsupportedPathError > different methods do not conflict",
    routes: [["GET", "/reg-exp/router", "foo"], [
      "POST",
      "/reg-exp/:id",
      "bar",
    ]],
    requests: [
      ["GET", "/reg-exp/router", ["foo"]],
      ["POST", "/reg-exp/router", ["bar"]],
    ],
  },
  {
    name: "Wildcard after label > tail wildcard after a label",
    routes: [["GET", "/api/:x", "label"], ["GET", "/api(/*)", "wildcard"]],
    requests: [["GET", "/api/foo", ["label", "wildcard"], "label"]],
  },
  {
    // Hono: `/a*` wins for `/a`. Here `/a/*` is `/a(/*)`, whose form
    // without the group is the static `/a`, which beats `/a*`.
    name:
      "Wildcard after label > only wildcard and tail wildcard, either order",
    routes: [["GET", "/a*", "/a*"], ["GET", "/a(/*)", "/a/*"]],
    requests: [
      ["GET", "/a", ["/a*", "/a/*"], "/a/*"],
      ["GET", "/ab", ["/a*"]],
      ["GET", "/a/b", ["/a*", "/a/*"], "/a/*"],
    ],
  },
  {
    name: "Wildcard after label > only wildcard and tail wildcard, reversed",
    routes: [["GET", "/a(/*)", "/a/*"], ["GET", "/a*", "/a*"]],
    requests: [["GET", "/a", ["/a*", "/a/*"], "/a/*"]],
  },
  {
    name: "Capture a param of a label node created by a middle wildcard",
    routes: [["GET", "/w/*/x", "wildcard"], ["GET", "/w/:id/y", "label"]],
    requests: [
      ["GET", "/w/123/y", [["label", { id: "123" }]]],
      ["GET", "/w/1/2/x", [["wildcard", { "*": "1/2" }]]],
    ],
  },
  {
    // Hono reads `name:activate` as static text; here a colon starts a
    // parameter wherever it is, so the route is `name` + `:activate`.
    name: "Static path including a colon in the middle",
    routes: [
      ["GET", "/v1/name:activate", "/v1/name:activate"],
      ["GET", "/v1/name2", "/v1/name2"],
    ],
    requests: [
      ["GET", "/v1/name:activate", [["/v1/name:activate", {
        activate: ":activate",
      }]]],
      [
        "GET",
        "/v1/name2",
        [["/v1/name:activate", { activate: "2" }], ["/v1/name2", {}]],
        "/v1/name2",
      ],
    ],
  },
]);
