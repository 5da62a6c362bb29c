/**
 * Instructions per request on every runtime, for the servers and
 * scenarios of `load.ts`: each server runs under valgrind's callgrind with
 * counting off; every scenario is warmed with wrk (twice over), then
 * counted over `seconds` of wrk with counting switched on and off by
 * `callgrind_control`, and the count divided by the requests wrk
 * completed; the fewest of `repeat` such windows is reported (Bun's JIT
 * threads, counted too, can still be compiling in the first). Counts do not depend on what else the machine does, where
 * req/s on a shared machine moves by 10-40 %.
 *
 * ```sh
 * deno run -A bench/runtimes/instructions.ts [--warm=3] [--seconds=5] [--repeat=2]
 *   [--runtimes=bun,node,deno] [--servers=fetchkit,elysia] [--scenarios=static,404]
 *   [--base=<dir>] [--threads=main|all]
 * ```
 *
 * `--base` as in `load.ts`. Needs `valgrind` and `wrk`; about a minute
 * and a half per server.
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import { join } from "node:path";
import { wrkRun } from "../_load.ts";
import {
  build,
  isOurs,
  loads,
  options,
  OUT,
  prepare,
  type Scenario,
  SCENARIOS,
  serversOf,
  start,
  staticOnly,
} from "./_bench.ts";

const args = options();
const warmSeconds = Number(args.get("warm") ?? 3);
const seconds = Number(args.get("seconds") ?? 5);
const repeat = Number(args.get("repeat") ?? 2);
const runtimes = (args.get("runtimes") ?? "bun,node,deno").split(",");
const only = args.get("servers")?.split(",");
const words = args.get("scenarios")?.split(",");
const scenarios = SCENARIOS.filter((scenario) =>
  words === undefined || words.some((word) => scenario.name.includes(word))
);
// `--threads=main`: the main thread's instructions only (JavaScript and
// the server's event loop), not the JIT compiler's and GC's helper
// threads, whose share of a window moves with the machine's load (on a
// loaded machine whole windows were theirs); `all` (the default) counts
// every thread.
const mainThread = args.get("threads") === "main";
// Under valgrind a server runs some 30x slower: few connections suffice.
const CONNECTIONS = 4;

const baseRoot = args.get("base");
const { bundle } = await build();
const bundles = {
  bundle,
  baseRoot,
  base: baseRoot === undefined ? undefined : (await build(baseRoot)).bundle,
};

const counts = new Map<string, number>();
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
for (const runtime of runtimes) {
  const names = serversOf(runtime, baseRoot).filter((name) =>
    only === undefined || only.includes(name)
  );
  for (const server of names) {
    // The hello-world and the real-app scenarios run in processes of their own.
    for (const group of ["hello", "app"] as const) {
      const mine = scenarios.filter((scenario) =>
        scenario.group === group && loads(server, scenario.name)
      );
      if (mine.length === 0) continue;
      const file = join(OUT, `callgrind.${runtime}.${server}.${group}`);
      const running = await start(runtime, server, bundles, [
        "valgrind",
        "--tool=callgrind",
        "--smc-check=all-non-file",
        "--instr-atstart=no",
        ...(mainThread ? ["--separate-threads=yes"] : []),
        `--callgrind-out-file=${file}`,
      ], group);
      const scripts = new Map<string, string | undefined>();
      for (const scenario of mine) {
        scripts.set(
          scenario.name,
          await prepare(running.port, scenario, `${runtime} ${server}`),
        );
      }
      const load = async (scenario: Scenario, duration: number) =>
        (await wrkRun(`http://127.0.0.1:${running.port}${scenario.path}`, {
          seconds: duration,
          connections: CONNECTIONS,
          timeout: 60,
          script: scripts.get(scenario.name),
        })).total;
      let dumps = 0;
      try {
        for (let pass = 0; pass < 2; pass++) {
          for (const scenario of mine) await load(scenario, warmSeconds);
        }
        for (const scenario of mine) {
          // The fewest of `repeat` windows: a window in which a JIT compiler
          // thread still worked on this path counts its work too.
          // A window in which a starved server (a loaded machine) answered
          // nothing counts for nothing: another is taken, up to 3x `repeat`.
          let fewest = Infinity;
          let counted = 0;
          for (
            let window = 0;
            window < 3 * repeat && counted < repeat;
            window++
          ) {
            await load(scenario, 1);
            const { total, result: requests } = await countWhile(
              running.pid,
              `${file}.${++dumps}`,
              () => load(scenario, seconds),
              { thread: mainThread ? 1 : undefined },
            );
            if (requests > 0) counted++;
            fewest = Math.min(fewest, total / requests);
            console.error(
              `${runtime} ${server} ${scenario.name}: ${fmt(total / requests)}`,
            );
          }
          counts.set(`${runtime}|${scenario.name}|${server}`, fewest);
        }
      } finally {
        await running.stop();
      }
    }
  }
}

for (const runtime of runtimes) {
  const names = serversOf(runtime, baseRoot).filter((name) =>
    only === undefined || only.includes(name)
  );
  const peers = names.filter((name) => !isOurs(name) && !staticOnly(name));
  console.log(`\n#### ${runtime}, instructions per request\n`);
  console.log(
    `| scenario | ${names.join(" | ")} | ours ÷ fewest of ${
      peers.join(", ")
    } |`,
  );
  console.log(`|---|${"---:|".repeat(names.length + 1)}`);
  for (const scenario of scenarios) {
    const get = (name: string) =>
      counts.get(`${runtime}|${scenario.name}|${name}`);
    const ours = get("fetchkit");
    const fewest = Math.min(
      ...peers.map((peer) => get(peer) ?? Infinity),
    );
    console.log(
      `| ${scenario.name} | ${
        names.map((name) => {
          const n = get(name);
          return n === undefined ? "—" : fmt(n);
        }).join(" | ")
      } | ${
        ours === undefined || fewest === Infinity
          ? "—"
          : (ours / fewest).toFixed(2)
      } |`,
    );
  }
}
