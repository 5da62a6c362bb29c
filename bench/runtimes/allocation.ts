/**
 * Bytes a request allocates and scavenges per 100,000 answers, on Node,
 * for the servers and scenarios of `load.ts`: what the main thread's
 * garbage collector does a request, which a count of instructions under
 * `--threads=main` leaves out only in part (a scavenge runs on the main
 * thread, with helpers) and which fresh memory costs in cache misses.
 *
 * Each server runs in a process of its own from the bundle that
 * `instructions.ts` builds (`.out/servers.mjs`; `base` from
 * `.out/servers_base.mjs`), with a preload that, on `SIGUSR2`, writes the
 * young generation's used bytes (`new_space` + `new_large_object_space`
 * of `v8.getHeapSpaceStatistics()`) and the collections so far by kind
 * (`perf_hooks`' `gc` entries: minor = scavenge) and the young
 * generation's reserved size to a file.
 *
 * - **Bytes a request**: the process runs with a young generation of
 *   `--semi-space` MB (default 128), so that a window of `--requests`
 *   answers (default 2,000) fits without a collection; bytes a request =
 *   the young generation's growth over the window ÷ its answers. The first
 *   `--warm-requests` answers (default 20,000) are not counted; a window in
 *   which any collection ran is left out (and another taken, up to three
 *   times `--repeat`).
 * - **Scavenges per 100,000 answers**: a second process with V8's default
 *   young generation (as the CPU rounds of `load.ts` run), warmed the same,
 *   then the scavenges over `--gc-requests` answers (default 50,000).
 *
 * ```sh
 * deno run -A bench/runtimes/allocation.ts [--servers=fetchkit,fastify]
 *   [--scenarios=POST,signed] [--requests=2000] [--repeat=3]
 *   [--warm-requests=20000] [--gc-requests=50000] [--semi-space=128]
 *   [--v8-flags=<flags>]
 * ```
 *
 * Needs `wrk` and a bundle (run `instructions.ts` with `--runtimes=node`
 * once first).
 *
 * @module
 */
import { join } from "node:path";
import { wrkCount } from "../_load.ts";
import { median } from "../_stats.ts";
import {
  loads,
  options,
  OUT,
  prepare,
  type Scenario,
  SCENARIOS,
  start,
} from "./_bench.ts";

const args = options();
const servers = (args.get("servers") ?? "fetchkit,fastify").split(",");
const words = (args.get("scenarios") ?? "POST,signed").split(",");
const scenarios = SCENARIOS.filter((scenario) =>
  words.some((word) => scenario.name.includes(word))
);
const requests = Number(args.get("requests") ?? 2000);
const repeat = Number(args.get("repeat") ?? 3);
const warmRequests = Number(args.get("warm-requests") ?? 20000);
const gcRequests = Number(args.get("gc-requests") ?? 50000);
const semiSpace = Number(args.get("semi-space") ?? 128);
const v8Flags =
  args.get("v8-flags")?.split(",").filter((flag) => flag !== "") ?? [];
const CONNECTIONS = 4;

// The preload: on SIGUSR2, one line of JSON to heap_<pid>.jsonl.
const preload = join(OUT, "heap_report.cjs");
await Deno.mkdir(OUT, { recursive: true });
await Deno.writeTextFile(
  preload,
  `const v8 = require("node:v8");
const fs = require("node:fs");
const { PerformanceObserver, constants } = require("node:perf_hooks");
const gc = { minor: 0, major: 0, other: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind ?? entry.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
    else gc.other++;
  }
}).observe({ entryTypes: ["gc"] });
process.on("SIGUSR2", () => {
  let young = 0, size = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (space.space_name === "new_space" || space.space_name === "new_large_object_space") {
      young += space.space_used_size;
    }
    if (space.space_name === "new_space") size = space.space_size;
  }
  // The gc entries of the last moment are delivered a tick later.
  setTimeout(() => {
    fs.appendFileSync(${
    JSON.stringify(OUT + "/heap_")
  } + process.pid + ".jsonl", JSON.stringify({ young, size, ...gc }) + "\\n");
  }, 0);
});
`,
);

interface Report {
  young: number;
  /** The young generation's reserved size (`new_space`'s `space_size`). */
  size: number;
  minor: number;
  major: number;
  other: number;
}

/** Signals `pid` and waits for its next report line. */
async function report(pid: number): Promise<Report> {
  const file = join(OUT, `heap_${pid}.jsonl`);
  const before = await Deno.readTextFile(file).catch(() => "");
  Deno.kill(pid, "SIGUSR2");
  for (let tries = 0; tries < 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const text = await Deno.readTextFile(file).catch(() => "");
    if (text.length > before.length) {
      const lines = text.trim().split("\n");
      return JSON.parse(lines[lines.length - 1]!) as Report;
    }
  }
  throw new Error(`no heap report from ${pid}`);
}

const bundles = {
  bundle: join(OUT, "servers.mjs"),
  baseRoot: args.get("base"),
  base: join(OUT, "servers_base.mjs"),
};

/** One process of `server` for `scenario`, with `flags`; `work` measures. */
async function withServer<T>(
  server: string,
  scenario: Scenario,
  flags: string[],
  work: (pid: number, answer: (count: number) => Promise<void>) => Promise<T>,
): Promise<T> {
  const running = await start("node", server, bundles, [], scenario.group, [
    ...v8Flags,
    ...flags,
    "-r",
    preload,
  ]);
  try {
    const script = await prepare(running.port, scenario, `node ${server}`);
    const answer = async (count: number) => {
      const { unexpected, total } = await wrkCount(
        `http://127.0.0.1:${running.port}${scenario.path}`,
        {
          requests: count,
          seconds: 300,
          connections: CONNECTIONS,
          script,
          status: scenario.status,
          scriptFile: join(OUT, `allocation_${server}.lua`),
        },
      );
      if (unexpected > 0 || total < count) {
        throw new Error(`node ${server} ${scenario.name}: ${total} answers`);
      }
    };
    await answer(warmRequests);
    return await work(running.pid, answer);
  } finally {
    await running.stop();
    await Deno.remove(join(OUT, `heap_${running.pid}.jsonl`)).catch(() => {});
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const rows: string[] = [];
for (const scenario of scenarios) {
  for (const server of servers) {
    if (!loads(server, scenario.name)) continue;
    const bytes = await withServer(
      server,
      scenario,
      [
        `--min-semi-space-size=${semiSpace}`,
        `--max-semi-space-size=${semiSpace}`,
      ],
      async (pid, answer) => {
        const found: number[] = [];
        for (
          let window = 0;
          window < 3 * repeat && found.length < repeat;
          window++
        ) {
          const before = await report(pid);
          await answer(requests);
          const after = await report(pid);
          const collected = after.minor + after.major + after.other -
            before.minor - before.major - before.other;
          console.error(
            `node ${server} ${scenario.name}: ${
              collected > 0
                ? "a collection ran"
                : fmt((after.young - before.young) / requests)
            } bytes a request`,
          );
          if (collected === 0) {
            found.push((after.young - before.young) / requests);
          }
        }
        return found;
      },
    );
    const scavenges = await withServer(
      server,
      scenario,
      [],
      async (pid, answer) => {
        const before = await report(pid);
        await answer(gcRequests);
        const after = await report(pid);
        return {
          minor: (after.minor - before.minor) * 100000 / gcRequests,
          major: (after.major - before.major) * 100000 / gcRequests,
          size: after.size,
        };
      },
    );
    console.error(
      `node ${server} ${scenario.name}: ${scavenges.minor} scavenges, ${scavenges.major} full collections per 100k answers`,
    );
    rows.push(
      `| ${scenario.name} | ${server} | ${
        bytes.length === 0 ? "—" : fmt(median(bytes))
      } | ${
        bytes.length === 0
          ? "—"
          : `${fmt(Math.min(...bytes))}-${fmt(Math.max(...bytes))}`
      } | ${fmt(scavenges.minor)} | ${fmt(scavenges.major)} | ${
        (scavenges.size / 2 ** 20).toFixed(1)
      } |`,
    );
  }
}
console.log(
  `\n#### Node: bytes a request (young generation of ${semiSpace} MB, windows of ${requests} answers without a collection) and collections per 100,000 answers (default young generation, ${gcRequests} answers)\n`,
);
console.log(
  "| scenario | server | bytes a request (median) | windows (min-max) | scavenges / 100k answers | full collections / 100k answers | young generation at the end, MB |",
);
console.log("|---|---|---:|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
console.log(
  `\n\`deno run -A bench/runtimes/allocation.ts ${Deno.args.join(" ")}\``,
);
