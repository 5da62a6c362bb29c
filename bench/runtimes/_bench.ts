/**
 * Shared by `load.ts` and `instructions.ts`: the scenarios, the servers
 * each runtime runs, the bundle of `_servers.ts` for Node and Bun, and the
 * command line that starts one server.
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";
import { freePort, type Running, spawnReady } from "../_load.ts";

export type { Running } from "../_load.ts";

/** One scenario: how to request it and what a correct answer holds. */
export interface Scenario {
  name: string;
  path: string;
  post: boolean;
  /** The status and a text the body must contain (checked before loading). */
  status: number;
  body: string;
}

export const SCENARIOS: Scenario[] = [
  { name: "static", path: "/", post: false, status: 200, body: "home" },
  {
    name: "two params",
    path: "/users/42/posts/7",
    post: false,
    status: 200,
    body: '"postId":"7"',
  },
  {
    name: "three middlewares",
    path: "/mw",
    post: false,
    status: 200,
    body: "mw",
  },
  { name: "404", path: "/no/such/page", post: false, status: 404, body: "" },
  {
    name: "urlencoded POST",
    path: "/echo",
    post: true,
    status: 200,
    body: "hello world",
  },
];

export const POST_BODY = "text=hello+world&n=1";

/** The servers of each runtime, ours first, the bare server last. */
export const SERVERS: Record<string, string[]> = {
  deno: ["fetchkit", "fetchkit-formdata", "hono", "bare"],
  node: [
    "fetchkit",
    "fetchkit-formdata",
    "fastify",
    "hono",
    "bare",
    "adapter",
  ],
  bun: [
    "fetchkit",
    "fetchkit-formdata",
    "elysia",
    "hono",
    "bare",
  ],
};

/** Servers that answer one constant text: loaded on the static route only. */
export function staticOnly(server: string): boolean {
  return server === "bare" || server === "adapter";
}

/**
 * Whether `server` is loaded on `scenario`: the bare servers on the static
 * route only, and `fetchkit-formdata` (ours, its POST handler reading
 * `get(FormData)` instead of `get(FormFields)`) on the POST only.
 */
export function loads(server: string, scenario: string): boolean {
  if (staticOnly(server)) return scenario === "static";
  if (server === "fetchkit-formdata") return scenario === "urlencoded POST";
  return true;
}

/** Whether `server` is ours (a variant, or base), not a peer. */
export function isOurs(server: string): boolean {
  return server.startsWith("fetchkit") || server === "base";
}

/** `--name=value` options. */
export function options(): Map<string, string> {
  return new Map(
    Deno.args.map((arg) =>
      arg.replace(/^--/, "").split("=") as [string, string]
    ),
  );
}

/** Where the bundle and wrk's POST script go (beside node_modules). */
export const OUT: string = join(ROOT, "bench/runtimes/.out");
const SCRIPT = join(ROOT, "bench/runtimes/_servers.ts");

/**
 * The servers of `runtime`; with `--base=<dir>` (a checkout of an earlier
 * commit with this folder's `_servers.ts`), `base` after ours: the same
 * app on the earlier code, in the same sitting.
 */
export function serversOf(runtime: string, base: string | undefined): string[] {
  const names = SERVERS[runtime]!;
  return base === undefined ? names : [names[0]!, "base", ...names.slice(1)];
}

/**
 * Bundles `_servers.ts` (of `root`, this checkout by default) for Node and
 * Bun into this folder's `.out/` (so `node_modules` here resolves the
 * peers), and writes wrk's POST script.
 */
export async function build(
  root: string = ROOT,
): Promise<{ bundle: string; post: string }> {
  await Deno.mkdir(OUT, { recursive: true });
  const bundle = join(OUT, root === ROOT ? "servers.mjs" : "servers_base.mjs");
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--external=@hono/node-server",
      "-o",
      bundle,
      join(root, "bench/runtimes/_servers.ts"),
    ],
    cwd: root,
  }).output();
  if (!built.success) {
    throw new Error(
      `deno bundle failed:\n${new TextDecoder().decode(built.stderr)}`,
    );
  }
  const post = join(OUT, "post.lua");
  await Deno.writeTextFile(
    post,
    `wrk.method = "POST"\nwrk.body = "${POST_BODY}"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
  );
  return { bundle, post };
}

/**
 * Starts `server` on `runtime`, under `wrap` (valgrind) when given; `base`
 * is ours from `bundles.base` (or the base checkout, on Deno).
 */
export async function start(
  runtime: string,
  server: string,
  bundles: { bundle: string; base?: string; baseRoot?: string },
  wrap: string[] = [],
): Promise<Running> {
  const port = freePort();
  const isBase = server === "base";
  const root = isBase ? bundles.baseRoot! : ROOT;
  const command = runtime === "deno"
    ? [
      Deno.execPath(),
      "run",
      "--allow-net=127.0.0.1",
      // bench/runtimes/package.json would otherwise be its config.
      `--config=${join(root, "deno.json")}`,
      isBase ? join(root, "bench/runtimes/_servers.ts") : SCRIPT,
    ]
    : [
      runtime === "node" ? "node" : await bunBinary() ?? "bun",
      isBase ? bundles.base! : bundles.bundle,
    ];
  const argv = [
    ...wrap,
    ...command,
    isBase ? "fetchkit" : server,
    String(port),
  ];
  return await spawnReady(argv, port, {
    cwd: ROOT,
    what: `${runtime} ${server}`,
  });
}

/** Checks that a server answers `scenario` correctly; throws if not. */
export async function check(
  port: number,
  scenario: Scenario,
  what: string,
): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${scenario.path}`, {
    method: scenario.post ? "POST" : "GET",
    body: scenario.post ? POST_BODY : undefined,
    headers: scenario.post
      ? { "Content-Type": "application/x-www-form-urlencoded" }
      : {},
  });
  const body = await response.text();
  if (response.status !== scenario.status || !body.includes(scenario.body)) {
    throw new Error(
      `${what} ${scenario.name}: ${response.status} ${JSON.stringify(body)}`,
    );
  }
}

/**
 * CPU time (user and system, all threads) a process has used, in
 * seconds, from `/proc/<pid>/stat` (Linux; 100 ticks a second).
 */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
