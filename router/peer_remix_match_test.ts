/**
 * Cases ported from Remix: remix-run/remix
 * `packages/route-pattern/src/lib/match.test.ts` ("match > pathname",
 * "ignoreCase" by default, "codec > pathname", "specificity", "matchAll")
 * and `packages/route-pattern/src/lib/specificity.test.ts` ("compare >
 * pathname"), commit 0b25fab078508d1565fdd68377a2629b53031e2b. Each case is
 * named by its `describe` > `it`; the runner (`_test_peers.ts`) checks each
 * route that matches alone, with its params, and the route that wins, on
 * the generated matcher and on the interpreter. Remix's pattern origin
 * (`://example.com`) is dropped: ours match the pathname only. Remix lists
 * a left-out optional parameter as `undefined`; ours leaves it out.
 *
 * Where Remix's expectation differs from ours, ours is asserted, noted at
 * the case:
 * - "uses the earliest static continuation when wildcard splits are
 *   ambiguous": Remix at this commit gives `first = 1`; wildcards here are
 *   greedy (`first = 1/x/2`), as in the released route-pattern 0.23;
 * - "treats raw and percent-encoded URL path-safe static text as
 *   equivalent": escapes of reserved characters (`%40`, `%2B`) stay as
 *   sent here, so only the raw spelling matches static `@`, `+`;
 * - "ties ... same range" (specificity 0): a full tie goes to the route
 *   added first here; both orders are checked.
 *
 * Left out, and why:
 * - protocol, hostname, port, search and "relative URL references" cases,
 *   "paramsMeta", hostname codec and hostname specificity: our patterns
 *   match the pathname only (a `?` or `#` is refused);
 * - "ignoreCase" options: matching is case-sensitive, with no option (the
 *   default case is ported);
 * - "escaping" (`\:`, `\*`, `\(` in static text): our syntax has no
 *   escapes; a literal `:`, `*`, `(` or `)` cannot be written;
 * - `createHref` round trips: ported in routes/peer_remix_route_pattern_test.ts
 *   with our `href()`;
 * - `match/limits.test.ts` but its long-pattern case: Remix's configurable
 *   limits (pattern size, matcher size, match work) have no counterpart;
 *   ours are matcher/pattern.ts's MAX_FORMS and the linear-time matcher,
 *   tested in linear_time_test.ts;
 * - "throws when comparing matches for different URLs": no comparison API.
 */
import { type PeerCase, type PeerRoute, testPeerCases } from "./_test_peers.ts";

/** A ranking case, checked with the routes added in both orders. */
function ranks(
  name: string,
  better: string,
  worse: string,
  path: string,
): PeerCase[] {
  const routes: PeerRoute[] = [["GET", better, better], ["GET", worse, worse]];
  return [routes, [...routes].reverse()].map((order, i) => ({
    name: i === 0 ? name : `${name} (added in reverse)`,
    routes: order,
    requests: [["GET", path, [better, worse], better]],
  }));
}

/** A tie: the route added first wins, in either order. */
function ties(name: string, a: string, b: string, path: string): PeerCase[] {
  return [[a, b], [b, a]].map(([first, second], i) => ({
    name: i === 0 ? name : `${name} (added in reverse)`,
    routes: [["GET", first, "first"], ["GET", second, "second"]],
    requests: [["GET", path, ["first", "second"], "first"]],
  }));
}

const UNICODE = [
  "café",
  "北京-とうきょう-서울",
  "مرحبا-עולם",
  "Hà-Nội",
  "💿",
  "🧑‍🚀",
  "acme\u00A0corp",
  "ｗｉｄｅ",
];

/** The path a browser sends for `text` (URL's percent-encoding). */
function sent(text: string): string {
  return new URL(`https://example.com${text}`).pathname;
}

testPeerCases("remix match.test.ts", [
  {
    name: "pathname > matches root pathname when pathname is empty",
    routes: [["GET", "/", "root"]],
    requests: [["GET", "/", ["root"]]],
  },
  {
    name: "pathname > matches static segments",
    routes: [["GET", "/users/list", "list"]],
    requests: [["GET", "/users/list", [["list", {}]]]],
  },
  {
    name: "pathname > returns null when static segment does not match",
    routes: [["GET", "/users", "users"]],
    requests: [["GET", "/posts", []]],
  },
  {
    name: "pathname > returns null when URL is shorter than pattern",
    routes: [["GET", "/users/list", "list"]],
    requests: [["GET", "/users", []]],
  },
  {
    name: "pathname > returns null when trailing slash does not match",
    routes: [["GET", "/users", "users"]],
    requests: [["GET", "/users/", []]],
  },
  {
    name: "pathname > matches variables",
    routes: [["GET", "/users/:id", "user"]],
    requests: [["GET", "/users/123", [["user", { id: "123" }]]]],
  },
  {
    name: "pathname > matches multiple variables",
    routes: [["GET", "/users/:userId/posts/:postId", "post"]],
    requests: [[
      "GET",
      "/users/42/posts/99",
      [["post", { userId: "42", postId: "99" }]],
    ]],
  },
  {
    name: "pathname > captures UUID hyphens as param data",
    routes: [["GET", "/users/:id", "user"]],
    requests: [[
      "GET",
      "/users/550e8400-e29b-41d4-a716-446655440000",
      [["user", { id: "550e8400-e29b-41d4-a716-446655440000" }]],
    ]],
  },
  {
    name: "pathname > bounds params at raw dots but keeps encoded dots as data",
    routes: [["GET", "/files/:name.:ext", "file"]],
    requests: [
      ["GET", "/files/readme.md", [["file", { name: "readme", ext: "md" }]]],
      ["GET", "/files/a%2Eb.txt", [["file", { name: "a.b", ext: "txt" }]]],
    ],
  },
  {
    name: "pathname > lets the last participating repeated capture win",
    routes: [["GET", "/:id(/:id)", "ids"]],
    requests: [["GET", "/first/second", [["ids", { id: "second" }]]]],
  },
  {
    name:
      "pathname > does not let an omitted repeated capture overwrite an earlier value",
    routes: [["GET", "/:id(/:id)", "ids"]],
    requests: [["GET", "/first", [["ids", { id: "first" }]]]],
  },
  {
    name:
      "pathname > matches many separated wildcards without regex backtracking",
    routes: [["GET", "/*a/a/*b/b/*c/c/*d/d/*e/e/*f/f/*g/g/*h/end", "many"]],
    requests: [[
      "GET",
      "/1/a/2/b/3/c/4/d/5/e/6/f/7/g/8/end",
      [["many", {
        a: "1",
        b: "2",
        c: "3",
        d: "4",
        e: "5",
        f: "6",
        g: "7",
        h: "8",
      }]],
    ]],
  },
  {
    // Remix at this commit: { first: "1", second: "2/x/3" }. Ours are
    // greedy, as route-pattern 0.23 (docs/guide.md, "Routing").
    name:
      "pathname > uses the earliest static continuation when wildcard splits are ambiguous",
    routes: [["GET", "/*first/x/*second/end", "w"]],
    requests: [[
      "GET",
      "/1/x/2/x/3/end",
      [["w", { first: "1/x/2", second: "3" }]],
    ]],
  },
  {
    name: "pathname > matches patterns with many independent optionals",
    routes: [[
      "GET",
      "/root(/a)(/b)(/c)(/d)(/e)(/f)(/g)(/h)(/i)(/j)",
      "root",
    ]],
    // Remix's pattern has 16 groups (65,536 forms); ours stop at 1,024
    // forms (MAX_FORMS), so this one has 10.
    requests: [["GET", "/root/a/c/e/g/i", ["root"]]],
  },
  {
    name: "pathname > decodes percent-encoded static pattern text",
    routes: [["GET", "/caf%C3%A9/%61", "cafe"]],
    requests: [
      ["GET", "/caf%C3%A9/a", ["cafe"]],
      ["GET", sent("/café/%61"), ["cafe"]],
    ],
  },
  {
    name: "pathname > matches special characters in variable values",
    routes: [["GET", "/files/:filename", "file"]],
    requests: [["GET", "/files/my-file_v2", [["file", {
      filename: "my-file_v2",
    }]]]],
  },
  {
    name: "pathname > does not partially match variables after a static suffix",
    routes: [["GET", "/files/report-:format.pdf", "report"]],
    requests: [
      ["GET", "/files/report-json.pdf.backup", []],
      ["GET", "/files/report-json.pdf", [["report", { format: "json" }]]],
    ],
  },
  {
    name: "pathname > matches wildcards",
    routes: [["GET", "/files/*path", "files"]],
    requests: [["GET", "/files/docs/readme.md", [["files", {
      path: "docs/readme.md",
    }]]]],
  },
  {
    name: "pathname > matches wildcard with continuation",
    routes: [["GET", "/files/*path/status", "status"]],
    requests: [["GET", "/files/docs/api/status", [["status", {
      path: "docs/api",
    }]]]],
  },
  {
    name:
      "pathname > does not partially match wildcards before a static suffix",
    routes: [["GET", "/files/*path/status", "status"]],
    requests: [["GET", "/files/docs/status/extra", []]],
  },
  {
    // Remix leaves an unnamed wildcard out of params; ours keeps it as "*".
    name: "pathname > excludes unnamed wildcard from params",
    routes: [["GET", "/files/*/download", "download"]],
    requests: [["GET", "/files/docs/download", [["download", {
      "*": "docs",
    }]]]],
  },
  {
    name: "pathname > matches optional segments when present / absent",
    routes: [["GET", "/posts(/:lang)", "posts"]],
    requests: [
      ["GET", "/posts/en", [["posts", { lang: "en" }]]],
      ["GET", "/posts", [["posts", {}]]],
    ],
  },
  {
    name: "pathname > matches nested optionals",
    routes: [["GET", "/docs(/:version(/:page))", "docs"]],
    requests: [
      ["GET", "/docs/v1/intro", [["docs", { version: "v1", page: "intro" }]]],
      ["GET", "/docs/v1", [["docs", { version: "v1" }]]],
      ["GET", "/docs", [["docs", {}]]],
    ],
  },
  {
    name: "pathname > matches multiple optionals",
    routes: [["GET", "/api(/:version)/users(/:id)", "users"]],
    requests: [[
      "GET",
      "/api/v2/users/123",
      [["users", { version: "v2", id: "123" }]],
    ]],
  },
  {
    name: "pathname > matches complex optionals for file extensions",
    routes: [["GET", "/files/:id(.:format)", "file"]],
    requests: [
      ["GET", "/files/doc123.pdf", [["file", { id: "doc123", format: "pdf" }]]],
      ["GET", "/files/doc123", [["file", { id: "doc123" }]]],
    ],
  },
  {
    name: "pathname > matches mixed static/variable/wildcards",
    routes: [["GET", "/api/:version/files/*path", "files"]],
    requests: [[
      "GET",
      "/api/v1/files/docs/guide.pdf",
      [["files", { version: "v1", path: "docs/guide.pdf" }]],
    ]],
  },
  {
    name: "pathname > matches deep nesting",
    routes: [[
      "GET",
      "/products/electronics/computers/laptops/gaming/accessories/keyboards",
      "deep",
    ]],
    requests: [[
      "GET",
      "/products/electronics/computers/laptops/gaming/accessories/keyboards",
      [["deep", {}]],
    ]],
  },
  ...ranks(
    "pathname > prefers static over variable pathname",
    "/users/new",
    "/users/:id",
    "/users/new",
  ),
  ...ranks(
    "pathname > prefers variable over wildcard pathname",
    "/files/:id",
    "/files/*path",
    "/files/123",
  ),
  {
    name: "pathname > prefers longer static prefix in pathname",
    routes: [["GET", "/api/:id", "short"], ["GET", "/api/v1/:id", "long"]],
    requests: [[
      "GET",
      "/api/v1/users",
      [["long", { id: "users" }]],
    ], ["GET", "/api/v1", [["short", { id: "v1" }]]]],
  },
  {
    name: "ignoreCase > uses case-sensitive pathname matching by default",
    routes: [["GET", "/Posts/:id", "posts"]],
    requests: [
      ["GET", "/posts/123", []],
      ["GET", "/POSTS/123", []],
      ["GET", "/Posts/123", ["posts"]],
    ],
  },
  {
    name: "codec > pathname > matches percent-encoded Unicode static segments",
    routes: UNICODE.map((value) => ["GET", `/${value}`, value] as const),
    requests: UNICODE.map((value) =>
      ["GET", sent(`/${value}`), [[value, {}]]] as const
    ),
  },
  {
    name: "codec > pathname > decodes percent-encoded Unicode variables",
    routes: [["GET", "/:value", "value"]],
    requests: UNICODE.map((value) =>
      ["GET", sent(`/${value}`), [["value", { value }]]] as const
    ),
  },
  {
    name: "codec > pathname > decodes percent-encoded Unicode wildcards",
    routes: [["GET", "/files/*path", "files"]],
    requests: UNICODE.map((path) =>
      ["GET", sent(`/files/${path}`), [["files", { path }]]] as const
    ),
  },
  {
    name:
      "codec > pathname > normalizes percent-encoded ASCII in static segments",
    routes: [["GET", "/a", "a"]],
    requests: [["GET", "/%61", [["a", {}]]]],
  },
  {
    // Remix: both spellings match. Here reserved escapes stay as sent.
    name:
      "codec > pathname > treats raw and percent-encoded URL path-safe static text as equivalent",
    routes: [["GET", "/packages/@scope+name,semi;equals=/file", "file"]],
    requests: [
      ["GET", "/packages/@scope+name,semi;equals=/file", [["file", {}]]],
      ["GET", "/packages/%40scope%2Bname%2Csemi%3Bequals%3D/file", []],
    ],
  },
  {
    name:
      "codec > pathname > decodes percent-encoded ASCII in variables and wildcards",
    routes: [["GET", "/:value", "value"], ["GET", "/files/*path", "files"]],
    requests: [
      ["GET", "/%61", [["value", { value: "a" }]]],
      ["GET", "/files/%61", [["files", { path: "a" }]]],
    ],
  },
  {
    name:
      "codec > pathname > returns null for malformed percent-encoded pathnames",
    routes: [["GET", "/files/:name", "name"], ["GET", "/files/*path", "path"]],
    requests: [
      ["GET", "/files/%E0%A4%A", []],
      ["GET", "/files/%", []],
    ],
  },
  {
    name:
      "codec > pathname > does not match encoded slashes as pathname separators",
    routes: [["GET", "/files/:dir/:name", "file"]],
    requests: [["GET", "/files/docs%2Freadme.md", []]],
  },
  {
    name: "codec > pathname > decodes encoded slashes in variables",
    routes: [["GET", "/files/:name", "file"]],
    requests: [["GET", "/files/docs%2Freadme%2Emd", [["file", {
      name: "docs/readme.md",
    }]]]],
  },
  {
    name:
      "codec > pathname > decodes encoded and structural slashes in wildcards with continuation",
    routes: [["GET", "/files/*path/status", "status"]],
    requests: [
      ["GET", "/files/docs%2Freadme.md/status", [["status", {
        path: "docs/readme.md",
      }]]],
      ["GET", "/files/docs/readme.md/status", [["status", {
        path: "docs/readme.md",
      }]]],
    ],
  },
  ...ranks(
    "specificity > prefers static over variable",
    "/users",
    "/:segment",
    "/users",
  ),
  ...ranks(
    "specificity > prefers variable over wildcard",
    "/:id",
    "/*path",
    "/123",
  ),
  ...ranks(
    "specificity > prefers longer static prefix over shorter",
    "/api/:id",
    "/:id(/*)",
    "/api/users",
  ),
  {
    name: "specificity > returns null when no patterns match",
    routes: [["GET", "/users", "users"], ["GET", "/posts", "posts"]],
    requests: [["GET", "/comments", []]],
  },
  {
    name: "matchAll > returns all matches sorted by specificity",
    routes: [
      ["GET", "/*path", "/*path"],
      ["GET", "/users/:id", "/users/:id"],
      ["GET", "/users/new", "/users/new"],
    ],
    requests: [[
      "GET",
      "/users/new",
      ["/users/new", "/users/:id", "/*path"],
      "/users/new",
    ]],
  },
  {
    name: "matchAll > includes patterns with same specificity",
    routes: [["GET", "/users/:id", "users"], ["GET", "/posts/:id", "posts"]],
    requests: [
      ["GET", "/users/123", ["users"]],
      ["GET", "/posts/456", ["posts"]],
    ],
  },
  {
    name:
      "matchAll > deduplicates optional variants that collapse to the same concrete pattern",
    routes: [["GET", "/(x)(x)", "xx"]],
    requests: [["GET", "/x", ["xx"]], ["GET", "/xx", ["xx"]], ["GET", "/", [
      "xx",
    ]]],
  },
  {
    name:
      "matchAll > orders complex specificity scenarios consistently (pathname)",
    routes: [
      ["GET", "/*path", "/*path"],
      ["GET", "/users/:id", "/users/:id"],
      ["GET", "/users(/:id)", "/users(/:id)"],
      ["GET", "/:resource/:id", "/:resource/:id"],
      ["GET", "/users/123", "/users/123"],
    ],
    requests: [[
      "GET",
      "/users/123",
      ["/users/123", "/users/:id", "/users(/:id)", "/:resource/:id", "/*path"],
      "/users/123",
    ]],
  },
]);

const LONG = "a".repeat(2_000);

testPeerCases("remix match/limits.test.ts", [
  {
    name:
      "matches long deterministic patterns within the default match-work limit",
    routes: [["GET", `/${LONG}`, "long"], ["GET", `/${LONG}/:id`, "long id"]],
    requests: [
      ["GET", `/${LONG}`, ["long"]],
      ["GET", `/${LONG}/x`, [["long id", { id: "x" }]]],
      ["GET", `/${LONG}b`, []],
    ],
  },
]);

testPeerCases("remix specificity.test.ts", [
  ...ranks(
    "pathname > ranks static higher than variable",
    "/posts/123",
    "/posts/:id",
    "/posts/123",
  ),
  ...ranks(
    "pathname > ranks variable higher than wildcard",
    "/posts/:id",
    "/posts/*",
    "/posts/123",
  ),
  ...ties(
    "pathname > ties when variables have same range",
    "/posts/:id",
    "/posts/:other",
    "/posts/123",
  ),
  ...ties(
    "pathname > ties when wildcards have same range",
    "/posts/*",
    "/posts/*",
    "/posts/123",
  ),
  ...ranks(
    "pathname > ranks variable with prefix/suffix higher than bare variable",
    "/posts-:id",
    "/:segment",
    "/posts-123",
  ),
  ...ranks(
    "pathname > ranks wildcard with prefix/suffix higher than bare wildcard",
    "/p*",
    "/*/:id",
    "/posts/123",
  ),
  ...ranks(
    "pathname > breaks tie on variables and wildcards by subsequent characters",
    "/*/123/:id/7*",
    "/*/123/:id/*",
    "/posts/123/456/789",
  ),
  ...ranks(
    "pathname > ranks back-to-back variables with static content higher",
    "/:a/:b",
    "/*",
    "/posts/123",
  ),
  ...ranks(
    "pathname > ranks back-to-back wildcards with static content higher",
    "/*/*",
    "/*",
    "/posts/123",
  ),
]);
