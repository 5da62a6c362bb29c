/**
 * Shared by `runtimes_load.ts` and `runtimes_instructions.ts`: their
 * command-line options, the scenarios, the bundle of
 * `_runtime_servers.ts` with its POST script, and the runtimes' binaries.
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "../_tools/runtimes/bundle.ts";
import { bunBinary } from "../_tools/runtimes/binaries.ts";

/** One scenario: a path and the servers that answer it. */
export interface RuntimeScenario {
  name: string;
  path: string;
  servers: string[];
}

/** The options both scripts take, parsed from `Deno.args`. */
export interface RuntimeBenchArgs {
  /** Every `--name=value` option, by name. */
  args: Map<string, string>;
  runtimes: string[];
  servers: string[];
  scenarios: RuntimeScenario[];
}

/** Reads `--runtimes`, `--servers` and `--scenarios` (and keeps the rest). */
export function runtimeBenchArgs(): RuntimeBenchArgs {
  const args = new Map(
    Deno.args.map((arg) =>
      arg.replace(/^--/, "").split("=") as [string, string]
    ),
  );
  const runtimes = (args.get("runtimes") ?? "node,bun").split(",");
  const servers = (args.get("servers") ?? "bare,fetchkit,hono").split(",");
  const words = args.get("scenarios")?.split(",");
  // "bare" only answers the static route.
  const routers = servers.filter((server) => server !== "bare");
  const scenarios = [
    { name: "static route", path: "/", servers },
    { name: "one param, JSON", path: "/users/42", servers: routers },
    { name: "three middlewares", path: "/mw", servers: routers },
    { name: "miss (404)", path: "/no/such/page", servers: routers },
    { name: "POST urlencoded body", path: "/echo", servers: routers },
  ].filter((scenario) =>
    words === undefined || words.some((word) => scenario.name.includes(word))
  );
  return { args, runtimes, servers, scenarios };
}

/** Where the bundle, the POST script and other output go. */
export const OUT: string = join(ROOT, "_tools/runtimes/.out");

/**
 * Bundles `_runtime_servers.ts` for Node and Bun and writes wrk's POST
 * script; returns both paths.
 */
export async function buildRuntimeServers(): Promise<
  { bundle: string; post: string }
> {
  await Deno.mkdir(OUT, { recursive: true });
  const bundle = join(OUT, "runtime_servers.mjs");
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--external=@hono/node-server",
      "-o",
      bundle,
      join(ROOT, "bench/_runtime_servers.ts"),
    ],
    cwd: ROOT,
  }).output();
  if (!built.success) throw new Error("deno bundle failed");
  const post = join(OUT, "post.lua");
  await Deno.writeTextFile(
    post,
    `wrk.method = "POST"\nwrk.body = "text=hello+world&n=1"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
  );
  return { bundle, post };
}

/** The binary that runs `runtime` ("node" or "bun"). */
export async function runtimeBinary(runtime: string): Promise<string> {
  if (runtime === "node") return "node";
  return await bunBinary() ?? "bun";
}
