/**
 * Instructions per request on Node, server and client in one process:
 * each server of `_servers.ts` (ours, `base` with `--base`, Fastify, Hono)
 * runs in a Node process with a raw keep-alive HTTP/1.1 client
 * (`_socket_driver.mjs`) under callgrind; after a warm-up of 3,700
 * requests with two pauses (time for the JIT's helper threads), the main
 * thread's instructions over `--requests` requests are divided by them.
 * The count holds the client too (the same bytes for every server), so a
 * difference between two servers is theirs; no load generator, timing
 * window or other process takes part, so a loaded machine, which starved
 * `instructions.ts`'s windows, does not silence it. Servers run
 * interleaved per scenario.
 *
 * ```sh
 * deno run -A bench/runtimes/socket_instructions.ts [--requests=1000]
 *   [--servers=fetchkit,base,fastify] [--scenarios=static,page] [--base=<dir>]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { callgrindControl, dumpTotal } from "../_callgrind.ts";
import { childLines } from "../_child_lines.ts";
import { freePort } from "../_load.ts";
import { build, options, OUT, SCENARIOS } from "./_bench.ts";
import { ORDER_BODY } from "./_app_data.ts";

const args = options();
const requests = Number(args.get("requests") ?? 1000);
const servers = (args.get("servers") ?? "fetchkit,fastify").split(",");
const words = args.get("scenarios")?.split(",");
const scenarios = SCENARIOS.filter((scenario) =>
  words === undefined || words.some((word) => scenario.name.includes(word))
);
const baseRoot = args.get("base");
const bundles: Record<string, string> = { ours: (await build()).bundle };
if (baseRoot !== undefined) bundles.base = (await build(baseRoot)).bundle;
const driver = join(import.meta.dirname!, "_socket_driver.mjs");

/** Main-thread instructions per request of one server on one scenario. */
async function count(
  server: string,
  scenario: (typeof SCENARIOS)[number],
): Promise<{ per: number; status: string }> {
  const file = join(OUT, `socket.${crypto.randomUUID()}`);
  const bundle = server === "base" ? bundles.base! : bundles.ours;
  const child = new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      "--separate-threads=yes",
      `--callgrind-out-file=${file}`,
      "node",
      driver,
      bundle,
      server === "base" ? "fetchkit" : server,
      scenario.group,
      String(requests),
      String(freePort()),
      ORDER_BODY,
    ],
    cwd: OUT,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const { send, line, close } = childLines(child, `${server} driver`);
  const kind = !scenario.post ? "get" : scenario.send ? "json" : "form";
  await send(`${scenario.path} ${kind}`);
  const status = (await line()).replace(/ ready$/, "");
  await callgrindControl(child.pid, "--zero");
  await callgrindControl(child.pid, "--instr=on");
  await send("go");
  await line();
  await callgrindControl(child.pid, "--instr=off");
  await callgrindControl(child.pid, "--dump");
  const total = await dumpTotal(`${file}.1-01`);
  await send("next");
  await send("");
  await close();
  await child.status;
  for await (const entry of Deno.readDir(OUT)) {
    if (entry.name.startsWith(file.slice(OUT.length + 1))) {
      await Deno.remove(join(OUT, entry.name)).catch(() => {});
    }
  }
  return { per: total / requests, status };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
const rows: string[] = [];
for (const scenario of scenarios) {
  const cells: string[] = [];
  for (const server of servers) {
    const { per, status } = await count(server, scenario);
    console.error(
      `node ${server} ${scenario.name}: ${
        fmt(per)
      } (${status}, load ${load()})`,
    );
    cells.push(fmt(per));
  }
  rows.push(`| ${scenario.name} | ${cells.join(" | ")} |`);
}
console.log(`| scenario | ${servers.join(" | ")} |`);
console.log(`|---|${"---:|".repeat(servers.length)}`);
for (const row of rows) console.log(row);
