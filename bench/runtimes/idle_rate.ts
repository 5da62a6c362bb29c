/**
 * Instructions a server's main thread executes per second with no request
 * at all, after a load: the work that runs by the clock (the runtime's
 * timers, the garbage collector's incremental sweeping) and that a window
 * of `instructions.ts` counts whole. A window that lasts longer (a loaded
 * machine, or a server slower under valgrind) charges more of it to each
 * answer: on Bun at load 6-8 it was 0.6-2 M instructions a second, 0.6-2k
 * per answer at 1,000 answers in 1-3 s (BENCHMARKS.md, "Fourth round:
 * Bun"). Subtracting this rate times a window's length from its count is
 * the correction.
 *
 * ```sh
 * deno run -A bench/runtimes/idle_rate.ts [--runtimes=bun] [--servers=fetchkit,elysia]
 *   [--seconds=3] [--windows=3] [--load=6]
 * ```
 *
 * Each server is started under callgrind (main thread only), loaded with
 * wrk on its static route for `--load` seconds, then counted over
 * `--windows` idle windows of `--seconds`; the first idle window still
 * holds the collector's work left by the load, the last is the floor.
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import { join } from "node:path";
import { wrkRun } from "../_load.ts";
import { build, options, OUT, serversOf, start } from "./_bench.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "bun").split(",");
const only = args.get("servers")?.split(",");
const seconds = Number(args.get("seconds") ?? 3);
const windows = Number(args.get("windows") ?? 3);
const loadSeconds = Number(args.get("load") ?? 6);

const bundled = runtimes.some((runtime) => runtime !== "deno");
const bundles = { bundle: bundled ? (await build()).bundle : "" };
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

console.log("| runtime | server | idle instructions per second, by window |");
console.log("|---|---|---|");
for (const runtime of runtimes) {
  for (
    const server of serversOf(runtime, undefined).filter((name) =>
      only === undefined ? name !== "fetchkit-formdata" : only.includes(name)
    )
  ) {
    const file = join(OUT, `idle.${runtime}.${server}`);
    const running = await start(runtime, server, bundles, [
      "valgrind",
      "--tool=callgrind",
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      "--separate-threads=yes",
      `--callgrind-out-file=${file}`,
    ]);
    try {
      await wrkRun(`http://127.0.0.1:${running.port}/`, {
        seconds: loadSeconds,
        connections: 4,
        timeout: 60,
      });
      const rates: number[] = [];
      for (let window = 1; window <= windows; window++) {
        const { total } = await countWhile(
          running.pid,
          `${file}.${window}`,
          () => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
          { thread: 1 },
        );
        rates.push(total / seconds);
      }
      console.log(`| ${runtime} | ${server} | ${rates.map(fmt).join(", ")} |`);
    } finally {
      await running.stop();
    }
  }
}
