// The compiled matcher (matcher/codegen.ts) must answer exactly like the
// interpreter (search in matcher/matcher.ts): same route, same params, for every
// path, including misses, malformed escapes and backtracking cases.
import assert from "node:assert/strict";
import { Matcher, setCodegen } from "./matcher.ts";
import { githubRoutes } from "../router/_test_github_routes.ts";

const PATTERNS: readonly [string, string][] = [
  ["GET", "/"],
  ["GET", "/about"],
  ["GET", "/posts/new"],
  ["GET", "/posts/:id"],
  ["DELETE", "/posts/:id"],
  ["GET", "/posts/:id/edit"],
  ["GET", "/posts/:id/*rest"],
  ["GET", "/:section/new"],
  ["GET", "/u/@:name"],
  ["GET", "/u/@:name.json"],
  ["GET", "/u/:id"],
  ["GET", "/blog/:year-:month-:day/:slug"],
  ["GET", "/files/:base.:ext"],
  ["GET", "/assets/*"],
  ["GET", "/docs/*rest/edit"],
  ["GET", "/img/*name.png"],
  ["GET", "/w/x*rest"],
  ["GET", "/w/:name"],
  ["GET", "/a/:x/one"],
  ["GET", "/a/b/two"],
  ["GET", "/api(/v:version)/users(/:id(/:tab))"],
  ["GET", "/dir/:x/"],
  ["GET", "/:x//b"],
  ["GET", "/tags/:tag"],
  ["ANY", "/ping/:n"],
  ["GET", "/e/%61%5F/:id"],
  ["GET", "/e/x%41*rest"],
  ["GET", "(/lang/:lang)(/page/:n)"],
  ["GET", "/*all"],
];

/** Paths that exercise each pattern, and near misses around them. */
function pathsFor(pattern: string): string[] {
  const filled = pattern
    .replace(/\(|\)/g, "")
    .replace(/:([A-Za-z_$][\w$]*)/g, (_, name: string) => `${name}1`)
    .replace(/\*([A-Za-z_$][\w$]*)?/g, "x/y");
  const bare = pattern.replace(/\([^()]*(\([^()]*\))?[^()]*\)/g, "").replace(
    /:([A-Za-z_$][\w$]*)/g,
    "v",
  )
    .replace(/\*([A-Za-z_$][\w$]*)?/g, "");
  return [
    filled,
    bare,
    filled + "/",
    filled + "/extra",
    filled.slice(0, -1),
    filled.replace(/1/g, "%20%C3%A9"),
    filled.replace(/1/g, "%E0%A4%A"),
    filled.replace(/\/[^/]*$/, "/"),
    filled.replace(/^\/[^/]*/, "/zz"),
  ];
}

function compare(
  routes: readonly { method: string; path: string }[],
  extraPaths: string[] = [],
): number {
  const build = () => {
    const matcher = new Matcher<string>();
    routes.forEach((route, i) =>
      matcher.add(
        route.method,
        route.path,
        `${i} ${route.method} ${route.path}`,
      )
    );
    return matcher;
  };
  const compiled = build();
  const previous = setCodegen(false);
  let interpreted: Matcher<string>;
  try {
    interpreted = build();
    interpreted.match("GET", "/"); // compile (that is, skip compiling) while disabled
    for (const method of ["GET", "POST", "DELETE", "HEAD", "PUT"]) {
      interpreted.match(method, "/x");
    }
  } finally {
    setCodegen(previous);
  }
  assert.equal(compiled.isCompiled("GET"), true, "code generation is active");
  assert.equal(interpreted.isCompiled("GET"), false);
  const paths = new Set([
    ...routes.flatMap((route) => pathsFor(route.path)),
    ...extraPaths,
  ]);
  let count = 0;
  for (const path of paths) {
    if (!path.startsWith("/")) continue;
    for (const method of ["GET", "DELETE", "HEAD", "PATCH"]) {
      assert.deepEqual(
        compiled.match(method, path),
        interpreted.match(method, path),
        `${method} ${path}`,
      );
      count++;
    }
  }
  return count;
}

Deno.test("compiled matcher answers like the interpreter: tricky patterns", () => {
  const compared = compare(
    PATTERNS.map(([method, path]) => ({ method, path })),
    [
      "/w/xyz",
      "/w/abc",
      "/q//b",
      "/dir/abc/",
      "/a/b/one",
      "/a/b/two",
      "/api/v2/users/9/posts",
      "/img/a/b.png",
      "/img/a/b.jpg",
      "/e/a_/1",
      "/e/%61%5f/1",
      "/e/xA/b",
      "/e/x%41/b",
      "/page/2",
      "/lang/en",
    ],
  );
  assert.ok(compared > 500, `compared ${compared} lookups`);
});

Deno.test("compiled matcher answers like the interpreter: the GitHub API table", () => {
  const compared = compare(githubRoutes);
  assert.ok(compared > 5000, `compared ${compared} lookups`);
});
