/**
 * Route matching benchmarks: our `Matcher` against Hono's `RegExpRouter`
 * and Remix's route-pattern matcher, then the full `fetch()` of the three
 * routers, all in the same run so the machine's noise hits them alike.
 *
 * Run: `deno bench --allow-all bench/router/router_bench.ts` (or `deno task
 * bench`). Every group's baseline is Hono, so the summary lines read as
 * "x times faster/slower than Hono".
 *
 * What each matcher is given, and why:
 * - ours and Hono take the method and the pathname string, which is what
 *   their routers extract from a request;
 * - Remix's matcher only takes a URL, so each lookup gets a `URL` parsed
 *   once, outside the timed loop (the cheapest input its API allows), and
 *   one matcher per method, so it does not pay for routes of other methods
 *   (its own router instead calls `matchAll` and filters by method).
 * - every matcher returns the route's value and its parameters: ours and
 *   Remix as a params object, Hono as a handler list plus an index map and
 *   a captures array (it builds the object later, on demand). Hono's
 *   shape is its cheapest one, so the comparison errs in Hono's favour.
 *
 * Before any timing, the module checks that every router finds the right
 * route with the right params for every lookup: a broken router must fail
 * loudly here rather than post a fast number.
 *
 * @module
 */

import { deepStrictEqual, equal } from "node:assert/strict";
import { Hono } from "hono";
import type { Router as HonoRouter } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";
import { createRouter as createRemixRouter } from "@remix-run/fetch-router";
import {
  createMultiMatcher,
  type MultiMatcher,
} from "@remix-run/route-pattern/match";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { Matcher } from "../../matcher/matcher.ts";
import {
  type BenchRoute,
  githubRoutes,
  githubRoutesWithoutSiblings,
} from "../../router/_test_github_routes.ts";
import { honoRoutes } from "./_hono_routes.ts";

/** A request to look up, and what a correct router answers. */
interface Lookup {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** The expected route's pattern; `undefined` for a miss. */
  readonly route: string | undefined;
  /** Named params; an unnamed wildcard is not a named param anywhere. */
  readonly params: Record<string, string>;
  /** What an unnamed `*` captured: only our router reports it (as `*`). */
  readonly wildcard?: string;
}

// Hono's request set, plus a miss that walks a param before failing.
const honoLookups: readonly Lookup[] = [
  {
    name: "short static",
    method: "GET",
    path: "/user",
    route: "/user",
    params: {},
  },
  {
    name: "static with same radix",
    method: "GET",
    path: "/user/comments",
    route: "/user/comments",
    params: {},
  },
  {
    name: "long static",
    method: "GET",
    path: "/very/deeply/nested/route/hello/there",
    route: "/very/deeply/nested/route/hello/there",
    params: {},
  },
  {
    name: "dynamic route",
    method: "GET",
    path: "/user/lookup/username/hey",
    route: "/user/lookup/username/:username",
    params: { username: "hey" },
  },
  {
    name: "mixed static dynamic",
    method: "GET",
    path: "/event/abcd1234/comments",
    route: "/event/:id/comments",
    params: { id: "abcd1234" },
  },
  {
    name: "post",
    method: "POST",
    path: "/event/abcd1234/comment",
    route: "/event/:id/comment",
    params: { id: "abcd1234" },
  },
  {
    name: "wildcard",
    method: "GET",
    path: "/static/index.html",
    route: "/static/*",
    params: {},
    wildcard: "index.html",
  },
  {
    name: "miss",
    method: "GET",
    path: "/event/abcd1234/likes",
    route: undefined,
    params: {},
  },
];

// The classic GitHub lookups (static and one-level param from
// go-http-routing-benchmark), a deeper param route, and a typo that
// shares a long prefix with real routes, as 404s usually do.
const githubLookups: readonly Lookup[] = [
  {
    name: "static",
    method: "GET",
    path: "/user/repos",
    route: "/user/repos",
    params: {},
  },
  {
    name: "param",
    method: "GET",
    path: "/repos/julienschmidt/httprouter/stargazers",
    route: "/repos/:owner/:repo/stargazers",
    params: { owner: "julienschmidt", repo: "httprouter" },
  },
  {
    name: "param, deep",
    method: "GET",
    path: "/repos/denoland/deno/actions/runs/42/jobs",
    route: "/repos/:owner/:repo/actions/runs/:run_id/jobs",
    params: { owner: "denoland", repo: "deno", run_id: "42" },
  },
  {
    name: "miss",
    method: "GET",
    path: "/repos/julienschmidt/httprouter/stargazer",
    route: undefined,
    params: {},
  },
];

/** A lookup's result in one shape, for the correctness checks. */
interface Found {
  route: string;
  params: Record<string, string | undefined>;
}

/** One router under test: set up once, then `lookup` per iteration. */
interface Contender {
  readonly name: string;
  /** Returns a function that does exactly one lookup, the timed work. */
  bind(lookup: Lookup): () => unknown;
  /** Runs the lookup and normalizes the answer for the checks. */
  check(lookup: Lookup): Found | undefined;
}

function ours(routes: readonly BenchRoute[]): Contender {
  const matcher = new Matcher<string>();
  for (const { method, path } of routes) matcher.add(method, path, path);
  return {
    name: "fetchkit Matcher",
    bind: ({ method, path }) => () => matcher.match(method, path),
    check({ method, path }) {
      const match = matcher.match(method, path);
      return match && { route: match.value, params: { ...match.params } };
    },
  };
}

function hono(
  name: string,
  router: HonoRouter<string>,
  routes: readonly BenchRoute[],
): Contender {
  for (const { method, path } of routes) router.add(method, path, path);
  return {
    name,
    bind: ({ method, path }) => () => router.match(method, path),
    check({ method, path }) {
      const [handlers, stash] = router.match(method, path);
      if (handlers.length === 0) return undefined;
      // Hono hands back every matching handler, middleware included; with
      // no middleware registered the first one is the route. TrieRouter
      // returns params as an object, RegExpRouter as indexes into `stash`.
      const [route, indexes] = handlers[0];
      const params: Record<string, string> = {};
      for (const [name, index] of Object.entries(indexes)) {
        params[name] = stash === undefined
          ? String(index)
          : stash[index as number];
      }
      return { route, params };
    },
  };
}

function remix(routes: readonly BenchRoute[]): Contender {
  const matchers = new Map<string, MultiMatcher<string>>();
  for (const { method, path } of routes) {
    let matcher = matchers.get(method);
    if (matcher === undefined) {
      matchers.set(method, matcher = createMultiMatcher<string>());
    }
    matcher.add(path, path);
  }
  const urlOf = (path: string) => new URL(path, "http://localhost");
  return {
    name: "Remix route-pattern",
    bind({ method, path }) {
      const matcher = matchers.get(method)!;
      const url = urlOf(path);
      return () => matcher.match(url);
    },
    check({ method, path }) {
      const match = matchers.get(method)!.match(urlOf(path));
      return match === null
        ? undefined
        : { route: match.data, params: { ...match.params } };
    },
  };
}

/** Throws unless `contender` answers `lookup` as expected. */
function verify(contender: Contender, lookup: Lookup): void {
  const found = contender.check(lookup);
  const where = `${contender.name}: ${lookup.method} ${lookup.path}`;
  if (lookup.route === undefined) {
    equal(found, undefined, `${where} should not match`);
    return;
  }
  const params = contender.name === "fetchkit Matcher" &&
      lookup.wildcard !== undefined
    ? { ...lookup.params, "*": lookup.wildcard }
    : lookup.params;
  deepStrictEqual(found, { route: lookup.route, params }, where);
}

// Keeps results alive, so the engine cannot drop a lookup as dead code.
const sink: unknown[] = [undefined];

function matchingGroups(
  set: string,
  routes: readonly BenchRoute[],
  lookups: readonly Lookup[],
  honoRouter: HonoRouter<string> = new RegExpRouter(),
): void {
  const contenders = [
    ours(routes),
    hono(`Hono ${honoRouter.name}`, honoRouter, routes),
    remix(routes),
  ];
  for (const lookup of lookups) {
    for (const contender of contenders) verify(contender, lookup);
  }
  for (const lookup of lookups) {
    const group = `${set}: ${lookup.name} (${lookup.method} ${lookup.path})`;
    for (const contender of contenders) {
      const run = contender.bind(lookup);
      Deno.bench({
        name: contender.name,
        group,
        baseline: contender.name.startsWith("Hono"),
        fn() {
          sink[0] = run();
        },
      });
    }
  }
}

matchingGroups("match 12 routes", honoRoutes, honoLookups);
matchingGroups(
  `match ${githubRoutesWithoutSiblings.length} GitHub routes`,
  githubRoutesWithoutSiblings,
  githubLookups,
);
// The whole GitHub table has static segments beside params, which
// RegExpRouter rejects; a Hono app then runs its TrieRouter, so that is
// Hono's number for this table.
matchingGroups(
  `match ${githubRoutes.length} GitHub routes, with siblings`,
  githubRoutes,
  githubLookups,
  new TrieRouter(),
);

// End to end: the same 12 routes in each router's app, each handler
// reading its params (as real handlers do; Hono builds them only then) and
// answering with them, so the check below sees the whole path.

type Fetch = (request: Request) => Response | Promise<Response>;

function bodyOf(
  route: string,
  params: Record<string, string | undefined>,
): string {
  return JSON.stringify({ route, params });
}

function oursApp(): Fetch {
  const router = createRouter();
  for (const { method, path } of honoRoutes) {
    const add = method === "POST" ? router.post : router.get;
    add(path, ({ params }) => new Response(bodyOf(path, params)));
  }
  return router.fetch;
}

function honoApp(): Fetch {
  const app = new Hono();
  for (const { method, path } of honoRoutes) {
    app.on(method, path, (c) => new Response(bodyOf(path, c.req.param())));
  }
  return (request) => Promise.resolve(app.fetch(request));
}

function remixApp(): Fetch {
  const router = createRemixRouter();
  for (const { method, path } of honoRoutes) {
    router.route(
      method as "GET" | "POST",
      path,
      (context) => new Response(bodyOf(path, context.params)),
    );
  }
  return (request) => router.fetch(request);
}

const fetchLookups = honoLookups.filter((lookup) =>
  ["short static", "mixed static dynamic", "miss"].includes(lookup.name)
);

const apps: [string, Fetch][] = [
  ["fetchkit createRouter", oursApp()],
  ["Hono app", honoApp()],
  ["Remix createRouter", remixApp()],
];

for (const lookup of fetchLookups) {
  const url = `http://localhost${lookup.path}`;
  for (const [name, fetch] of apps) {
    const response = await fetch(new Request(url, { method: lookup.method }));
    const where = `${name}: ${lookup.method} ${lookup.path}`;
    if (lookup.route === undefined) {
      equal(response.status, 404, where);
      await response.body?.cancel();
      continue;
    }
    equal(response.status, 200, where);
    deepStrictEqual(
      JSON.parse(await response.text()),
      { route: lookup.route, params: lookup.params },
      where,
    );
  }
}

for (const lookup of fetchLookups) {
  const url = `http://localhost${lookup.path}`;
  const group =
    `fetch 12 routes: ${lookup.name} (${lookup.method} ${lookup.path})`;
  for (const [name, fetch] of apps) {
    Deno.bench({
      name,
      group,
      baseline: name === "Hono app",
      async fn() {
        // The body is not read: serving it costs the same in every router.
        sink[0] = await fetch(new Request(url, { method: lookup.method }));
      },
    });
  }
}
