/**
 * Whole-request overhead in one process: our `router.fetch` against Hono's
 * `app.fetch` and a bare handler, with every `Request` built before timing
 * (so only the framework is timed), contenders interleaved batch by batch,
 * and the median of many batches reported.
 *
 * Tables: Hono's 12-route benchmark set and the ~340-route GitHub REST set
 * (`router/_test_github_routes.ts`), each plus two routes for the probes that need them:
 * `/repos/:owner/:repo` on the small table (two parameters) and
 * `/mw/three` behind three pass-through middlewares on both. Probes: a
 * static hit, a two-parameter hit, the route behind three middlewares, and
 * a miss (404). Every handler answers `new Response("ok")`; the bare
 * handler does only that. A fourth contender adds the same routes through
 * `router.mount()` sections, to show that mounting adds no per-request
 * work (one matcher, one match).
 *
 * ```sh
 * flock /tmp/fetchkit-bench.lock deno run --allow-all bench/router/fetch_report.ts [rounds] [before]
 * ```
 *
 * `before`, optional, is a directory holding another checkout of this
 * package (e.g. `git archive <commit> | tar -x -C /tmp/before`): its
 * router joins the run as one more contender, for before/after figures
 * measured in the same process.
 *
 * @module
 */

import { Hono } from "hono";
import {
  createRouter,
  type RouteMethods,
} from "@fetchkit/toolkit/fetch-router";
import {
  type BenchRoute,
  githubRoutes,
} from "../../router/_test_github_routes.ts";
import { honoRoutes } from "./_hono_routes.ts";
import { median } from "../_stats.ts";

interface Probe {
  readonly name: string;
  readonly path: string;
  readonly status: number;
}

interface Table {
  readonly name: string;
  readonly routes: readonly BenchRoute[];
  readonly probes: readonly Probe[];
}

const tables: readonly Table[] = [
  {
    name: "12-route Hono table",
    routes: [...honoRoutes, { method: "GET", path: "/repos/:owner/:repo" }],
    probes: [
      { name: "static hit", path: "/user", status: 200 },
      { name: "two-parameter hit", path: "/repos/deno/std", status: 200 },
      { name: "three middlewares", path: "/mw/three", status: 200 },
      { name: "miss", path: "/event/abcd1234/likes", status: 404 },
    ],
  },
  {
    name: "~340-route GitHub table",
    routes: githubRoutes,
    probes: [
      { name: "static hit", path: "/user/repos", status: 200 },
      {
        name: "two-parameter hit",
        path: "/repos/julienschmidt/httprouter/stargazers",
        status: 200,
      },
      { name: "three middlewares", path: "/mw/three", status: 200 },
      {
        name: "miss",
        path: "/repos/julienschmidt/httprouter/stargazerz",
        status: 404,
      },
    ],
  },
];

type Fetch = (request: Request) => Response | Promise<Response>;

function add(
  router: RouteMethods<string>,
  method: string,
  path: string,
  handler: () => Response,
): void {
  if (method === "GET") router.get(path, handler);
  else if (method === "POST") router.post(path, handler);
  else if (method === "PUT") router.put(path, handler);
  else if (method === "PATCH") router.patch(path, handler);
  else if (method === "DELETE") router.delete(path, handler);
}

/**
 * Our router; with `mounted`, every route is added inside a
 * `router.mount()` of its first segment (`/user` + `/comments`), which
 * must cost nothing per request: it builds the same single matcher.
 */
function ours(
  routes: readonly BenchRoute[],
  mounted = false,
  create: typeof createRouter = createRouter,
): Fetch {
  const router = create();
  const ok = () => new Response("ok");
  if (!mounted) {
    for (const { method, path } of routes) add(router, method, path, ok);
  } else {
    const sections = Map.groupBy(routes, ({ path }) => path.split("/")[1]);
    for (const [first, group] of sections) {
      router.mount(`/${first}`, (section) => {
        for (const { method, path } of group) {
          add(section, method, path.slice(first.length + 1) || "/", ok);
        }
      });
    }
  }
  const pass = async (_context: unknown, next: () => Promise<Response>) => {
    await next();
  };
  router.get("/mw/three", pass, pass, pass, ok);
  return router.fetch;
}

function hono(routes: readonly BenchRoute[]): Fetch {
  const app = new Hono();
  const ok = () => new Response("ok");
  for (const { method, path } of routes) app.on(method, path, ok);
  const pass = async (_context: unknown, next: () => Promise<void>) => {
    await next();
  };
  app.get("/mw/three", pass, pass, pass, ok);
  return (request) => app.fetch(request);
}

function bare(): Fetch {
  return () => new Response("ok");
}

const BATCH = 2000;

async function batch(fetch: Fetch, request: Request): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < BATCH; i++) await fetch(request);
  return (performance.now() - start) * 1e6 / BATCH;
}

function ns(value: number): string {
  return value >= 1000
    ? `${(value / 1000).toFixed(2)} µs`
    : `${Math.round(value)} ns`;
}

if (import.meta.main) {
  const rounds = Number(Deno.args[0] ?? 41);
  const beforeDir = Deno.args[1];
  const before: typeof createRouter | undefined = beforeDir === undefined
    ? undefined
    : (await import(
      new URL(`${beforeDir}/router/mod.ts`, `file://${Deno.cwd()}/`).href
    ))
      .createRouter;
  console.log(
    `Deno ${Deno.version.deno}, ${rounds} interleaved batches of ${BATCH} requests, medians (ns per request)\n`,
  );
  console.log(
    `| table | probe | ours \`router.fetch\` | ours, routes in \`mount()\` | Hono \`app.fetch\` | bare handler | ours / Hono | ours − bare | Hono − bare |${
      before === undefined ? "" : " before | now / before |"
    }`,
  );
  console.log(
    `|---|---|---|---|---|---|---|---|---|${
      before === undefined ? "" : "---|---|"
    }`,
  );
  for (const table of tables) {
    const contenders: [string, Fetch][] = [
      ["ours", ours(table.routes)],
      ["mounted", ours(table.routes, true)],
      ...(before === undefined
        ? []
        : [["before", ours(table.routes, false, before)] as [string, Fetch]]),
      ["hono", hono(table.routes)],
      ["bare", bare()],
    ];
    for (const probe of table.probes) {
      const request = new Request(`http://localhost${probe.path}`);
      for (const [name, fetch] of contenders) {
        const response = await fetch(request);
        if (name !== "bare" && response.status !== probe.status) {
          throw new Error(
            `${name} answered ${response.status} for ${probe.path}, expected ${probe.status}`,
          );
        }
        for (let i = 0; i < 5; i++) await batch(fetch, request); // warm up
      }
      const times = new Map<string, number[]>(
        contenders.map(([name]) => [name, []]),
      );
      for (let round = 0; round < rounds; round++) {
        // Rotate the order, so no contender always runs right after another.
        for (let i = 0; i < contenders.length; i++) {
          const [name, fetch] = contenders[(round + i) % contenders.length];
          times.get(name)!.push(await batch(fetch, request));
        }
      }
      const [o, m, h, b, old] = ["ours", "mounted", "hono", "bare", "before"]
        .map((name) => median(times.get(name) ?? [NaN]));
      console.log(
        `| ${table.name} | ${probe.name} | ${ns(o)} | ${ns(m)} | ${ns(h)} | ${
          ns(b)
        } | ${(o / h).toFixed(2)} | ${ns(o - b)} | ${ns(h - b)} |${
          before === undefined ? "" : ` ${ns(old)} | ${(o / old).toFixed(2)} |`
        }`,
      );
    }
  }
}
