/**
 * Instructions per request on every runtime, for the servers and
 * scenarios of `load.ts`: each server runs under valgrind's callgrind with
 * counting off; every scenario is warmed with wrk (twice over), then
 * counted over windows of `requests` answers with counting switched on and
 * off by `callgrind_control`, and the count divided by the answers; the
 * fewest of `repeat` such windows is reported (a window in which a JIT
 * compiler or GC thread still worked on the path counts its work too).
 * Counts depend far less than time on what else the machine does, where
 * req/s on a shared machine moves by 10-40 %.
 *
 * A window ends at its `requests`-th answer, not after a time: under
 * valgrind every thread of a server takes turns on one lock, and on a
 * loaded machine a server's JIT or GC helper threads can hold it for
 * seconds, so that a window of fixed seconds answered nothing (reported as
 * ∞ or NaN). Now such a window lasts longer instead (at most `--cap`
 * seconds; one that still answered nothing is taken again). Warming is
 * counted in answers too (`--warm-requests` per pass at least), so that a
 * starved server is not counted cold.
 *
 * `--processes=N` (default 1) counts each server in N fresh processes
 * instead of one: a process settles at one of several levels and keeps
 * it (Deno static, the same code: 13.7k to 14.6k instructions a request in
 * different processes), which is more than the gap between ours and the
 * peer in some cells, so one process a contender cannot decide them. The
 * servers of a runtime are interleaved process by process (A B A B ...,
 * so that a drift in the machine's load hits all alike); each process is
 * warmed and counted over `--repeat` windows as above, and each server and
 * scenario is reported by the median and the minimum of the processes'
 * fewest windows, with every process's fewest beside them.
 *
 * ```sh
 * deno run -A bench/runtimes/instructions.ts [--warm=3] [--warm-requests=1000]
 *   [--requests=300] [--cap=120] [--repeat=2] [--processes=1]
 *   [--runtimes=bun,node,deno] [--servers=fetchkit,elysia] [--scenarios=static,404]
 *   [--base=<dir>] [--threads=main|all|split] [--v8=single] [--v8-flags=<flags>] [--idle=3]
 *   [--table [--cpu-rounds=5] [--cpu-seconds=2]] [--sim]
 * ```
 *
 * `--sim` runs callgrind with its cache and branch-predictor simulation
 * (`--cache-sim=yes --branch-sim=yes`, about twice as slow) and prints,
 * after the instruction tables (which read as without it), a table of
 * what the count of instructions does not show: per request, first-level
 * instruction and data cache misses, last-level misses, mispredicted
 * conditional and indirect branches, and the estimated cycles (`Ir` + 10
 * a first-level miss + 100 more a last-level miss + 10 a mispredict:
 * `CYCLE_WEIGHTS` in `_bench.ts`, KCachegrind's estimate), over the same
 * windows; then ours ÷ the fastest peer (by instructions) in each.
 *
 * `--base` as in `load.ts`. `--seconds` (the window's length before) is
 * accepted and ignored. `--table` then runs `load.ts` on the same
 * runtimes, servers and scenarios (`--cpu-rounds` interleaved rounds of
 * `--cpu-seconds`, no valgrind) and prints one table: per runtime and
 * scenario, ours and the fastest peer in instructions per request (fewest
 * window, and the other windows; with `--processes` above 1, the median
 * of the processes' fewest windows, and the other processes' fewest),
 * their ratio, the load average during the windows, and the CPU medians
 * beside them, with the commands; then a second table of the same CPU
 * taken apart (`apart()` below: the CPU ratio's 95 % interval and whether
 * it reads above, level or below 1.00, user and system time, the other
 * threads, minor page faults). Needs `valgrind` and `wrk`.
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import { join } from "node:path";
import { wrkCount, wrkRun } from "../_load.ts";
import { median } from "../_stats.ts";
import {
  build,
  callgrindWrap,
  CYCLE_WEIGHTS,
  estimatedCycles,
  isOurs,
  levelRule,
  loads,
  options,
  OUT,
  prepare,
  type SavedRounds,
  type Scenario,
  SCENARIOS,
  serversOf,
  type SimulatedEvents,
  start,
  staticOnly,
} from "./_bench.ts";

const args = options();
const warmSeconds = Number(args.get("warm") ?? 3);
const warmRequests = Number(args.get("warm-requests") ?? 1000);
const requests = Number(args.get("requests") ?? 300);
const cap = Number(args.get("cap") ?? 120);
const repeat = Number(args.get("repeat") ?? 2);
// Fresh processes a server (see the module doc: a process keeps its level).
const processes = Number(args.get("processes") ?? 1);
if (!Number.isInteger(processes) || processes < 1) {
  throw new Error(
    `--processes must be a whole number from 1, not ${processes}`,
  );
}
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
// `split`: the main thread's as `main` does, and beside it (a table of its
// own) every thread's in the same windows, so that the helper threads'
// share is read in the same sitting.
const split = args.get("threads") === "split";
const mainThread = args.get("threads") === "main" || split;
// `--v8=single`: V8 without helper threads on Deno and Node
// (`--single-threaded`: the JIT compiles and the GC marks on the main
// thread, where they are counted), so that when code is optimised does not
// depend on how the machine's load schedules a helper thread.
// `--v8-flags=--a,--b=1`: more of V8's flags for every Deno and Node
// server of the sitting (a young generation of one size for all:
// `--min-semi-space-size=16,--max-semi-space-size=16`).
const v8Flags = [
  ...(args.get("v8") === "single" ? ["--single-threaded"] : []),
  ...(args.get("v8-flags")?.split(",").filter((flag) => flag !== "") ?? []),
];
// `--idle=3` (seconds; 0 turns it off): after warming, each server process
// is counted with no request for this long, and its rate (instructions a
// second of the runtime's clock-driven work: timers, incremental GC) times
// each window's length is subtracted from that window's count, so a window
// that lasted longer (a loaded machine, a server slower under valgrind)
// is not charged more per answer. Both figures are printed.
const idleSeconds = Number(args.get("idle") ?? 3);
// `--sim`: callgrind's cache and branch simulation over the same windows.
const simulate = args.has("sim");
// Under valgrind a server runs some 30x slower: few connections suffice.
const CONNECTIONS = 4;

const baseRoot = args.get("base");
// Node and Bun run a bundle; a Deno-only sitting needs none (nor the
// peers installed in bench/runtimes/node_modules for the bundle).
const bundled = runtimes.some((runtime) => runtime !== "deno");
const bundles = {
  bundle: bundled ? (await build()).bundle : "",
  baseRoot,
  base: baseRoot === undefined || !bundled
    ? undefined
    : (await build(baseRoot)).bundle,
};

/** The load average over the last minute, now. */
async function loadAverage(): Promise<number> {
  return Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
}

/**
 * Per runtime|scenario|server: every window's count per answer, raw and
 * with the idle rate taken off, the load then, and which of the
 * `--processes` counted it (0 up).
 */
const windows = new Map<
  string,
  {
    count: number;
    corrected: number;
    load: number;
    nth: number;
    /** Every thread's count per answer (`--threads=split`). */
    all?: number;
    /** The simulated misses and mispredicts per answer (`--sim`). */
    sim?: SimulatedEvents;
  }[]
>();
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const names = (runtime: string) =>
  serversOf(runtime, baseRoot).filter((name) =>
    only === undefined || only.includes(name)
  );
// A Deno-only sitting builds no bundle, which would have made the folder.
await Deno.mkdir(OUT, { recursive: true });
const started = new Date();
for (const runtime of runtimes) {
  // Process by process, every server of the runtime in turn (A B A B ...):
  // with one process, server after server as ever.
  for (let nth = 0; nth < processes; nth++) {
    for (const server of names(runtime)) {
      // The hello-world and the real-app scenarios run in processes of their own.
      for (const group of ["hello", "app"] as const) {
        await countProcess(runtime, server, group, nth);
      }
    }
  }
}
const ended = new Date();

/**
 * Counts `server`'s scenarios of `group` on `runtime` in one fresh
 * process (the `nth` of `--processes`): warmed, its idle rate taken, then
 * `--repeat` windows a scenario, kept in `windows`.
 */
async function countProcess(
  runtime: string,
  server: string,
  group: "hello" | "app",
  nth: number,
): Promise<void> {
  const mine = scenarios.filter((scenario) =>
    scenario.group === group && loads(server, scenario.name)
  );
  if (mine.length === 0) return;
  // Stderr names the process only when there are several.
  const tag = processes === 1 ? "" : ` [process ${nth + 1}/${processes}]`;
  const file = join(
    OUT,
    `callgrind.${runtime}.${server}.${group}${
      processes === 1 ? "" : `.p${nth + 1}`
    }`,
  );
  const running = await start(
    runtime,
    server,
    bundles,
    callgrindWrap(file, mainThread, simulate),
    group,
    v8Flags,
  );
  const scripts = new Map<string, string | undefined>();
  for (const scenario of mine) {
    scripts.set(
      scenario.name,
      await prepare(running.port, scenario, `${runtime} ${server}`),
    );
  }
  const url = (scenario: Scenario) =>
    `http://127.0.0.1:${running.port}${scenario.path}`;
  const answer = (scenario: Scenario, count: number, seconds: number) =>
    wrkCount(url(scenario), {
      requests: count,
      seconds,
      connections: CONNECTIONS,
      script: scripts.get(scenario.name),
      status: scenario.status,
      scriptFile: join(
        OUT,
        `count_${runtime}_${server}_${group}.lua`.replaceAll(/\W+/g, "_"),
      ),
    });
  const warm = async (scenario: Scenario) => {
    // `--warm` seconds, then answers up to `--warm-requests`.
    const { total } = await wrkRun(url(scenario), {
      seconds: warmSeconds,
      connections: CONNECTIONS,
      timeout: 60,
      script: scripts.get(scenario.name),
    });
    if (total < warmRequests) {
      await answer(scenario, warmRequests - total, cap);
    }
  };
  let dumps = 0;
  try {
    for (let pass = 0; pass < 2; pass++) {
      for (const scenario of mine) await warm(scenario);
    }
    // The process's idle rate, once its scenarios are warm.
    let idleRate = 0;
    if (idleSeconds > 0) {
      const idle = await countWhile(
        running.pid,
        `${file}.${++dumps}`,
        () => new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000)),
        { thread: mainThread ? 1 : undefined },
      );
      idleRate = idle.total / idle.seconds;
      console.error(
        `${runtime} ${server} ${group}${tag}: idle ${
          fmt(idleRate)
        } instructions/s`,
      );
    }
    for (const scenario of mine) {
      // A window that answered nothing in `cap` seconds counts for
      // nothing: another is taken, up to 3x `repeat`.
      const key = `${runtime}|${scenario.name}|${server}`;
      let counted = 0;
      for (
        let window = 0;
        window < 3 * repeat && counted < repeat;
        window++
      ) {
        await answer(scenario, 50, cap);
        const load = await loadAverage();
        const { total, result, seconds, all, events } = await countWhile(
          running.pid,
          `${file}.${++dumps}`,
          () => answer(scenario, requests, cap),
          { thread: mainThread ? 1 : undefined, everyThread: split },
        );
        if (result.unexpected > 0) {
          throw new Error(
            `${runtime} ${server} ${scenario.name}: ${result.unexpected} answers not ${scenario.status}`,
          );
        }
        const corrected = (total - idleRate * seconds) / result.total;
        console.error(
          `${runtime} ${server} ${scenario.name}${tag}: ${
            result.total === 0 ? "no answer" : fmt(total / result.total)
          } (less idle: ${
            result.total === 0 ? "—" : fmt(corrected)
          }; ${result.total} answers in ${seconds.toFixed(1)} s, load ${load})`,
        );
        if (result.total === 0) continue;
        counted++;
        windows.set(key, [
          ...(windows.get(key) ?? []),
          {
            count: total / result.total,
            corrected,
            load,
            nth,
            ...(all === undefined ? {} : { all: all / result.total }),
            ...(simulate ? { sim: estimatedCycles(events, result.total) } : {}),
          },
        ]);
      }
    }
  } finally {
    await running.stop();
  }
}

/**
 * Each process's fewest window of a cell (raw or less idle), in the order
 * the processes ran; a process that answered nothing is left out.
 */
function perProcess(
  key: string,
  which: "count" | "corrected" = "count",
): number[] {
  const found = windows.get(key) ?? [];
  const fewest: number[] = [];
  for (let nth = 0; nth < processes; nth++) {
    const mine = found.filter((window) => window.nth === nth);
    if (mine.length > 0) {
      fewest.push(Math.min(...mine.map((window) => window[which])));
    }
  }
  return fewest;
}

/**
 * A cell's level: the median of its processes' fewest windows (with one
 * process, its fewest window), or undefined. The median, not the
 * minimum: one process that settled low would otherwise decide the cell.
 */
function level(
  key: string,
  which: "count" | "corrected" = "count",
): number | undefined {
  const fewest = perProcess(key, which);
  return fewest.length === 0 ? undefined : median(fewest);
}

/** The peer with the fewest instructions (by `level`) in a cell, if any. */
function fastestPeer(runtime: string, scenario: string): string | undefined {
  const key = (name: string) => `${runtime}|${scenario}|${name}`;
  let peer: string | undefined;
  for (const name of names(runtime)) {
    if (isOurs(name) || staticOnly(name)) continue;
    const n = level(key(name));
    if (n !== undefined && (peer === undefined || n < level(key(peer))!)) {
      peer = name;
    }
  }
  return peer;
}

/** The least of a cell's processes' fewest windows, or undefined. */
function lowest(
  key: string,
  which: "count" | "corrected" = "count",
): number | undefined {
  const fewest = perProcess(key, which);
  return fewest.length === 0 ? undefined : Math.min(...fewest);
}

const command = `deno run -A bench/runtimes/instructions.ts ${
  Deno.args.join(" ")
}`;
const kinds = idleSeconds > 0
  ? ["count", "corrected"] as const
  : ["count"] as const;
for (const which of kinds) {
  for (const runtime of runtimes) {
    const all = names(runtime);
    const peers = all.filter((name) => !isOurs(name) && !staticOnly(name));
    console.log(
      `\n#### ${runtime}, instructions per request${
        which === "corrected" ? ", less the idle rate" : ""
      }${
        processes === 1
          ? ""
          : ` (median / minimum of ${processes} processes' fewest windows; each process's fewest in brackets)`
      }\n`,
    );
    console.log(
      `| scenario | ${all.join(" | ")} | ours ÷ fewest of ${peers.join(", ")}${
        processes === 1 ? "" : " (medians; minimums)"
      } |`,
    );
    console.log(`|---|${"---:|".repeat(all.length + 1)}`);
    for (const scenario of scenarios) {
      const key = (name: string) => `${runtime}|${scenario.name}|${name}`;
      const ratio = (get: (id: string) => number | undefined) => {
        const ours = get(key("fetchkit"));
        const peer = Math.min(
          ...peers.map((name) => get(key(name)) ?? Infinity),
        );
        return ours === undefined || peer === Infinity
          ? "—"
          : (ours / peer).toFixed(2);
      };
      const cell = (name: string) => {
        const n = level(key(name), which);
        if (n === undefined) return "—";
        if (processes === 1) return fmt(n);
        return `${fmt(n)} / ${fmt(lowest(key(name), which)!)} [${
          perProcess(key(name), which).map(fmt).join(", ")
        }]`;
      };
      console.log(
        `| ${scenario.name} | ${all.map(cell).join(" | ")} | ${
          ratio((id) => level(id, which))
        }${processes === 1 ? "" : `; ${ratio((id) => lowest(id, which))}`} |`,
      );
    }
  }
}

if (split) everyThread();
if (simulate) simulated();

/**
 * `--sim`: a cell's simulated events a request: in each process the window
 * with the fewest estimated cycles, and of those the process whose
 * estimate is the median (the lower middle of an even count).
 */
function simulatedLevel(
  key: string,
): (SimulatedEvents & { each: SimulatedEvents[] }) | undefined {
  const found = windows.get(key) ?? [];
  const fewest: SimulatedEvents[] = [];
  for (let nth = 0; nth < processes; nth++) {
    const mine = found.filter((window) =>
      window.nth === nth && window.sim !== undefined
    ).map((window) => window.sim!);
    if (mine.length > 0) {
      fewest.push(mine.reduce((a, b) => b.cycles < a.cycles ? b : a));
    }
  }
  if (fewest.length === 0) return undefined;
  const each = [...fewest];
  fewest.sort((a, b) => a.cycles - b.cycles);
  return { ...fewest[Math.floor((fewest.length - 1) / 2)]!, each };
}

/**
 * `--sim`: per runtime, every server's simulated misses, mispredicts and
 * estimated cycles a request, then ours ÷ the fastest peer by
 * instructions (`fastestPeer`) in each, and the estimate's difference
 * a request split into its parts (weighted), so that what moves the
 * estimate is read beside the count.
 */
function simulated(): void {
  const { l1Miss, llMiss, mispredict } = CYCLE_WEIGHTS;
  for (const runtime of runtimes) {
    console.log(
      `\n#### ${runtime}, simulated caches and branches per request (the window with the fewest estimated cycles${
        processes === 1 ? "" : `, median of ${processes} processes`
      }; estimated cycles = Ir + ${l1Miss} × (I1 + D1 misses) + ${llMiss} × LL misses + ${mispredict} × mispredicts)\n`,
    );
    console.log(
      `| scenario | server | Ir | I1 misses | D1 misses | LL misses | mispredicts: conditional, indirect | estimated cycles |${
        processes === 1 ? "" : " each process: estimated cycles (LL misses) |"
      }`,
    );
    console.log(`|---|---|${"---:|".repeat(processes === 1 ? 6 : 7)}`);
    const two = (n: number) => n.toFixed(1);
    for (const scenario of scenarios) {
      for (const name of names(runtime)) {
        const sim = simulatedLevel(`${runtime}|${scenario.name}|${name}`);
        if (sim === undefined) continue;
        console.log(
          `| ${scenario.name} | ${name} | ${fmt(sim.ir)} | ${two(sim.i1)} | ${
            two(sim.d1)
          } | ${two(sim.ll)} | ${two(sim.bcm)}, ${two(sim.bim)} | ${
            fmt(sim.cycles)
          } |${
            processes === 1
              ? ""
              : ` ${
                sim.each.map((one) => `${fmt(one.cycles)} (${fmt(one.ll)})`)
                  .join(", ")
              } |`
          }`,
        );
      }
    }
    console.log(
      `\n#### ${runtime}, ours ÷ the fastest peer: instructions and estimated cycles (ours − peer a request, weighted, in brackets)\n`,
    );
    console.log(
      "| scenario | peer | ours ÷ peer, Ir | ours ÷ peer, estimated cycles | I1 misses (×10) | D1 misses (×10) | LL misses (×100) | mispredicts (×10) |",
    );
    console.log(`|---|---|${"---:|".repeat(6)}`);
    for (const scenario of scenarios) {
      const peer = fastestPeer(runtime, scenario.name);
      if (peer === undefined) continue;
      const a = simulatedLevel(`${runtime}|${scenario.name}|fetchkit`);
      const b = simulatedLevel(`${runtime}|${scenario.name}|${peer}`);
      if (a === undefined || b === undefined) continue;
      const ratio = (x: number, y: number) => (x / y).toFixed(3);
      const part = (x: number, y: number, weight: number) =>
        `${ratio(x, y)} (${x - y >= 0 ? "+" : ""}${fmt(weight * (x - y))})`;
      console.log(
        `| ${scenario.name} | ${peer} | ${ratio(a.ir, b.ir)} | ${
          ratio(a.cycles, b.cycles)
        } | ${part(a.i1, b.i1, l1Miss)} | ${part(a.d1, b.d1, l1Miss)} | ${
          part(a.ll, b.ll, llMiss)
        } | ${part(a.bcm + a.bim, b.bcm + b.bim, mispredict)} |`,
      );
    }
  }
}

/**
 * `--threads=split`: per runtime and scenario, every thread's instructions
 * a request in the window where the main thread's were fewest, and the
 * other threads' part of it (the runtime's JIT compiler, GC and allocator
 * helpers), for each server.
 */
function everyThread(): void {
  for (const runtime of runtimes) {
    const all = names(runtime);
    console.log(
      `\n#### ${runtime}, every thread's instructions per request (the main thread's fewest window; the other threads' part in brackets)\n`,
    );
    console.log(`| scenario | ${all.join(" | ")} |`);
    console.log(`|---|${"---:|".repeat(all.length)}`);
    for (const scenario of scenarios) {
      const cells = all.map((name) => {
        const found = windows.get(`${runtime}|${scenario.name}|${name}`);
        if (found === undefined || found.length === 0) return "—";
        const fewest = found.reduce((a, b) => b.count < a.count ? b : a);
        return fewest.all === undefined
          ? "—"
          : `${fmt(fewest.all)} (${fmt(fewest.all - fewest.count)})`;
      });
      console.log(`| ${scenario.name} | ${cells.join(" | ")} |`);
    }
  }
}

if (args.has("table")) await table();

/**
 * `--table`: CPU medians from `load.ts` (interleaved rounds, no valgrind)
 * on the same runtimes, servers and scenarios, beside the counts above, in
 * the one table: per runtime and scenario, ours and the fastest peer.
 */
async function table(): Promise<void> {
  const save = `table_${Date.now()}`;
  const loadArgs = [
    `--rounds=${args.get("cpu-rounds") ?? 5}`,
    `--seconds=${args.get("cpu-seconds") ?? 2}`,
    `--runtimes=${runtimes.join(",")}`,
    ...(only === undefined ? [] : [`--servers=${only.join(",")}`]),
    ...(words === undefined ? [] : [`--scenarios=${words.join(",")}`]),
    ...(baseRoot === undefined ? [] : [`--base=${baseRoot}`]),
    `--save=${save}`,
  ];
  const cpuLoad = await loadAverage();
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(import.meta.dirname!, "load.ts"), ...loadArgs],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("load.ts failed");
  const saved = JSON.parse(
    await Deno.readTextFile(join(OUT, `${save}.json`)),
  ) as SavedRounds;
  const cpuLoadAfter = await loadAverage();
  const range = (values: number[]) =>
    `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
  console.log(
    `\n### One sitting: ours and the fastest peer (${
      started.toISOString().slice(11, 16)
    }-${ended.toISOString().slice(11, 16)} UTC)\n`,
  );
  // With several processes a column says so: the counts are the median of
  // the processes' fewest windows, the other processes' fewest beside them.
  const several = processes === 1 ? "" : ` (median of ${processes} processes)`;
  console.log(
    `| runtime | scenario | ours instr/req${several} | fastest peer instr/req${several} | ours ÷ peer | less idle: ours, peer, ratio | ${
      processes === 1 ? "other windows" : "other processes' fewest windows"
    } (ours; peer) | load | ours CPU µs/req | peer CPU µs/req | ours ÷ peer, CPU (min-max) |`,
  );
  console.log(`|---|---|${"---:|".repeat(9)}`);
  for (const runtime of runtimes) {
    const peers = names(runtime).filter((name) =>
      !isOurs(name) && !staticOnly(name)
    );
    for (const scenario of scenarios) {
      const key = (name: string) => `${runtime}|${scenario.name}|${name}`;
      const ours = level(key("fetchkit"));
      const peer = fastestPeer(runtime, scenario.name);
      const theirs = peer === undefined ? undefined : level(key(peer));
      const lessIdle = () => {
        const a = level(key("fetchkit"), "corrected");
        const b = peer === undefined
          ? undefined
          : level(key(peer), "corrected");
        return a === undefined || b === undefined || idleSeconds === 0
          ? "—"
          : `${fmt(a)}, ${fmt(b)}, ${(a / b).toFixed(2)}`;
      };
      const others = (name: string | undefined) => {
        if (processes > 1) {
          // The processes' fewest windows but the one that is the median
          // (with an even count the median is none of them: all are shown).
          const fewest = name === undefined ? [] : perProcess(key(name));
          const middle = fewest.indexOf(median(fewest));
          const rest = fewest.filter((_, index) => index !== middle);
          return rest.length === 0 ? "—" : rest.map(fmt).join(", ");
        }
        const found = name === undefined ? [] : windows.get(key(name)) ?? [];
        const min = Math.min(...found.map((window) => window.count));
        const rest = found.filter((window) => window.count !== min);
        return rest.length === 0
          ? "—"
          : rest.map((window) => fmt(window.count)).join(", ");
      };
      const loads = [
        ...(windows.get(key("fetchkit")) ?? []),
        ...(peer === undefined ? [] : windows.get(key(peer)) ?? []),
      ].map((window) => window.load);
      const cpuOurs = saved.cpu[key("fetchkit")];
      // CPU: the peer with the least CPU per request, per round.
      const cpuPeers = peers.map((name) => saved.cpu[key(name)]).filter((
        values,
      ): values is number[] => values !== undefined);
      const perRound = cpuOurs?.map((value, round) =>
        value / Math.min(...cpuPeers.map((values) => values[round]!))
      );
      const cpuPeer = peer === undefined ? undefined : saved.cpu[key(peer)];
      console.log(
        `| ${runtime} | ${scenario.name} | ${
          ours === undefined ? "no answer" : fmt(ours)
        } | ${
          theirs === undefined ? "no answer" : `${fmt(theirs)} (${peer})`
        } | ${
          ours === undefined || theirs === undefined
            ? "—"
            : (ours / theirs).toFixed(2)
        } | ${lessIdle()} | ${others("fetchkit")}; ${others(peer)} | ${
          loads.length === 0 ? "—" : range(loads).replaceAll(".00", "")
        } | ${cpuOurs === undefined ? "—" : median(cpuOurs).toFixed(1)} | ${
          cpuPeer === undefined ? "—" : median(cpuPeer).toFixed(1)
        } | ${
          perRound === undefined || cpuPeers.length === 0
            ? "—"
            : `${median(perRound).toFixed(2)} (${range(perRound)})`
        } |`,
      );
    }
  }
  apart(saved);
  console.log(
    `\nInstructions: \`${command}\` (main thread: ${mainThread}; windows of ${requests} answers, fewest of ${repeat}${
      processes === 1
        ? ""
        : ` in each of ${processes} processes, median of those`
    }).`,
  );
  console.log(
    `CPU: \`deno run -A bench/runtimes/load.ts ${
      loadArgs.filter((arg) => !arg.startsWith("--save")).join(" ")
    }\` (load ${cpuLoad} before, ${cpuLoadAfter} after).`,
  );
}

/**
 * The second table of `--table`: the CPU of the one table taken apart,
 * ours and the peer with the fewest instructions (as there): the CPU
 * ratio's median with the interval that holds the true median with 95 %
 * (`levelRule`) and what it reads (above, level, below), then user and
 * system µs a request (every thread) and their per-round ratios, the
 * runtime's other threads (all but the main one), minor page faults a
 * request, and the main thread's waits for work and preemptions a request
 * (voluntary and involuntary context switches). Instructions count the main thread's user space only: a CPU
 * ratio above 1.00 where instructions are below is the kernel's time, the
 * other threads', or main-thread cost that instructions do not show.
 */
function apart(saved: SavedRounds): void {
  const { cpu, user, system, main, faults, wakeups, preempted } = saved;
  if (!user || !system || !main || !faults || !wakeups || !preempted) return;
  console.log(
    `\n### The CPU apart: user and system, the other threads, page faults\n`,
  );
  console.log(
    "| runtime | scenario | peer | ours ÷ peer, instr | ours ÷ peer, CPU (95 % interval of the median) | CPU reads | user µs/req: ours, peer, ÷ | system µs/req: ours, peer, ÷ | other threads µs/req: ours, peer | minor faults/req: ours, peer | main thread waits/req: ours, peer | main thread preempted/req: ours, peer |",
  );
  console.log(`|---|---|---|${"---:|".repeat(9)}`);
  const ratios = (a: number[], b: number[]) =>
    a.map((value, round) => value / b[round]!);
  const two = (n: number) => n.toFixed(2);
  for (const runtime of runtimes) {
    for (const scenario of scenarios) {
      const key = (name: string) => `${runtime}|${scenario.name}|${name}`;
      const ours = level(key("fetchkit"));
      const peer = fastestPeer(runtime, scenario.name);
      const a = key("fetchkit");
      const b = peer === undefined ? undefined : key(peer);
      if (b === undefined || !cpu[a] || !cpu[b] || ours === undefined) {
        continue;
      }
      const instr = ours / level(b)!;
      const rule = levelRule(ratios(cpu[a], cpu[b]));
      const interval = `${two(median(ratios(cpu[a], cpu[b])))} (${
        two(rule.low)
      }-${two(rule.high)}${
        rule.coverage < 0.95
          ? `, min-max: ${Math.round(rule.coverage * 100)} %`
          : ""
      })`;
      const pair = (map: Record<string, number[]>, digits = 1) =>
        `${median(map[a]!).toFixed(digits)}, ${
          median(map[b]!).toFixed(digits)
        }`;
      const others = (id: string) =>
        median(cpu[id]!.map((value, round) => value - main[id]![round]!))
          .toFixed(1);
      console.log(
        `| ${runtime} | ${scenario.name} | ${peer} | ${
          two(instr)
        } | ${interval} | ${rule.verdict} | ${pair(user)}, ${
          two(median(ratios(user[a]!, user[b]!)))
        } | ${pair(system)}, ${two(median(ratios(system[a]!, system[b]!)))} | ${
          others(a)
        }, ${others(b)} | ${pair(faults, 2)} | ${pair(wakeups, 3)} | ${
          pair(preempted, 3)
        } |`,
      );
    }
  }
  console.log(
    "\nCPU reads: `above` or `below` when the whole interval is (the rounds' 95 % interval of the median ratio, distribution-free), `level` when it holds 1.00; with under 6 rounds no interval reaches 95 % (`too few rounds`).",
  );
}
