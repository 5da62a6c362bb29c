/**
 * Starts the servers of `_servers.ts` (`bare` or `serve`) on Deno,
 * Node or Bun for the serve() and WebSocket benchmarks, one process each.
 *
 * @module
 */
import { denoBundle } from "../_bundle.ts";
import { join } from "node:path";
import { freePort, type Running, spawnReady } from "../_load.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";
import { OUT, ROOT } from "../../_tools/runtimes/bundle.ts";

const SCRIPT = join(ROOT, "bench/serve/_servers.ts");
let bundled: Promise<string> | undefined;

function bundle(): Promise<string> {
  return denoBundle(SCRIPT, join(OUT, "serve_servers.mjs"), {
    cwd: ROOT,
    external: ["@hono/node-server"],
  });
}

export type { Running } from "../_load.ts";

/** The command line that serves `kind` on `runtime` at `port`. */
export async function commandFor(
  runtime: string,
  kind: string,
  port: number,
): Promise<string[]> {
  if (runtime === "deno") {
    return [
      Deno.execPath(),
      "run",
      "--allow-net=127.0.0.1",
      "--v8-flags=--expose-gc",
      SCRIPT,
      kind,
      String(port),
    ];
  }
  return [
    runtime === "node" ? "node" : await bunBinary() ?? "bun",
    ...(runtime === "node" ? ["--expose-gc"] : []),
    await (bundled ??= bundle()),
    kind,
    String(port),
  ];
}

/**
 * Starts `kind` ("bare" or "serve") on `runtime` ("deno", "node", "bun"),
 * under `wrap` (valgrind) when given.
 */
export async function startKind(
  runtime: string,
  kind: string,
  wrap: string[] = [],
): Promise<Running> {
  const port = freePort();
  const argv = [...wrap, ...await commandFor(runtime, kind, port)];
  return await spawnReady(argv, port, { cwd: OUT, what: `${runtime} ${kind}` });
}

/** The server's resident memory, in bytes. */
export async function rssOf(port: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/mem`);
  return (await response.json()).rss;
}

/** `--name=value` options. */
export function options(): Map<string, string> {
  return new Map(
    Deno.args.map((arg) =>
      arg.replace(/^--/, "").split("=") as [string, string]
    ),
  );
}

/**
 * CPU time (user and system, all threads) a process has used, in
 * seconds, from `/proc/<pid>/stat` (Linux; 100 ticks a second).
 */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // Fields after the command name, which is in parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
