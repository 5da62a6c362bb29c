/**
 * HTTP cost in instructions: the servers of `http_load.ts`, each run under
 * valgrind's callgrind, loaded by `wrk` on 127.0.0.1, counting the
 * instructions the server process executes per request (user space, every
 * thread: the JIT's compiler threads and the GC's too). A count does not
 * depend on what else the machine is doing: two runs of the same server
 * agree within about 0.5%, where req/s on this shared VM moves by 10-40%
 * between rounds. It leaves out the kernel's share of a request (sockets),
 * which is the same for every server, and memory stalls.
 *
 *     flock /tmp/fetchkit-bench.lock \
 *       deno run --unstable-kv --allow-all bench/http_instructions.ts [warm=5] [seconds=10] [only]
 *
 * Needs `valgrind` and `wrk` (Debian packages). Each server process starts
 * under callgrind with counting off; every scenario it has is first loaded
 * untimed, in runs of `warm` seconds, until it served 10,000 requests or
 * for 30 seconds, and all of them twice over (the JIT settles; every
 * scenario is warmed before any is counted, as in `http_load.ts`), then
 * each is counted over `seconds` of
 * wrk: counting is switched on and off around that run with
 * `callgrind_control`, and the count divided by the requests wrk
 * completed. `only` works as in `http_load.ts`. Bounded: at most a minute
 * plus (seconds + 5) seconds per server and scenario. What is left between
 * runs is the JIT's timing: a compile that lands in the counted window
 * adds to it, so runs of a scenario differ by a few percent; run twice.
 *
 * @module
 */

import {
  type HttpServer,
  loadScenario,
  pickScenarios,
  type Scenario,
  type Server,
  SERVERS,
  startHttpServer,
} from "./_http_scenarios.ts";

const warmSeconds = Number(Deno.args[0] ?? 5);
const seconds = Number(Deno.args[1] ?? 10);
const SCENARIOS = pickScenarios(Deno.args[2]?.split(","));
// valgrind runs the server some 30x slower: fewer connections suffice.
const CONNECTIONS = 4;
const WARM_REQUESTS = 10_000;

interface Running extends HttpServer {
  /** callgrind's output files: `${out}.<n>` per dump. */
  out: string;
}

async function start(name: Server, dir: string): Promise<Running> {
  const out = `${dir}/callgrind.${name}`;
  const server = await startHttpServer(name, {
    wrap: [
      "valgrind",
      "--tool=callgrind",
      // V8 writes and rewrites machine code on the heap.
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      `--callgrind-out-file=${out}`,
    ],
  });
  return { ...server, out };
}

async function control(running: Running, ...args: string[]): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...args, String(running.process.pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${args.join(" ")} failed`);
}

/** The "totals:" line of the newest dump, once callgrind has written it. */
async function lastDumpTotal(
  running: Running,
  dumps: number,
): Promise<number> {
  const file = `${running.out}.${dumps}`;
  for (let tries = 0; tries < 100; tries++) {
    try {
      const text = await Deno.readTextFile(file);
      const total = /^totals: (\d+)/m.exec(text);
      if (total !== null) return Number(total[1]);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

async function load(
  running: Running,
  scenario: Scenario,
  dir: string,
  duration: number,
): Promise<number> {
  const result = await loadScenario(running, scenario, dir, {
    seconds: duration,
    connections: CONNECTIONS,
    // Under valgrind a GC or JIT pause can hold an answer for seconds;
    // with wrk's 2 s a connection that timed out sits idle.
    timeout: 60,
    socketErrors: false,
  });
  return result.total;
}

/**
 * Loads a scenario untimed until it has served WARM_REQUESTS (the JIT has
 * tiered up; a slow server takes longer) or for at most 30 seconds.
 */
async function warm(
  running: Running,
  scenario: Scenario,
  dir: string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  let served = 0;
  while (served < WARM_REQUESTS && Date.now() < deadline) {
    served += await load(running, scenario, dir, warmSeconds);
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const dir = await Deno.makeTempDir();
const counts = new Map<string, number>();
try {
  for (const name of SERVERS) {
    const mine = SCENARIOS.filter((scenario) =>
      scenario.servers.includes(name)
    );
    if (mine.length === 0) continue;
    const running = await start(name, dir);
    let dumps = 0;
    try {
      // Twice over: a scenario warmed early sees code that later ones
      // made polymorphic (shared call sites) tier up again.
      for (let pass = 0; pass < 2; pass++) {
        for (const scenario of mine) await warm(running, scenario, dir);
      }
      for (const scenario of mine) {
        await load(running, scenario, dir, 2);
        await control(running, "--zero");
        await control(running, "--instr=on");
        const requests = await load(running, scenario, dir, seconds);
        await control(running, "--instr=off");
        await control(running, "--dump");
        const total = await lastDumpTotal(running, ++dumps);
        counts.set(`${scenario.name}|${name}`, total / requests);
        console.error(
          `${name} ${scenario.name}: ${fmt(total / requests)} per request (${
            fmt(requests)
          } requests)`,
        );
      }
    } finally {
      running.process.kill("SIGTERM");
      await running.process.status;
    }
  }
  const cell = (scenario: Scenario, server: Server) => {
    const count = counts.get(`${scenario.name}|${server}`);
    return count === undefined ? "-" : fmt(count);
  };
  /** Theirs over ours: above 1, ours executes fewer instructions. */
  const ratio = (scenario: Scenario, server: Server) => {
    const ours = counts.get(`${scenario.name}|fetchkit`);
    const theirs = counts.get(`${scenario.name}|${server}`);
    return ours === undefined || theirs === undefined
      ? "-"
      : `${(theirs / ours).toFixed(2)}x`;
  };
  console.log(
    `| scenario | bare Deno.serve | bare, reading url and method | fetchkit | Hono | Remix | bare / ours | Hono / ours | Remix / ours |`,
  );
  console.log(
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  );
  for (const scenario of SCENARIOS) {
    console.log(
      `| ${scenario.name} (\`${scenario.path}\`) | ${
        cell(scenario, "bare")
      } | ${cell(scenario, "bare-url")} | ${cell(scenario, "fetchkit")} | ${
        cell(scenario, "hono")
      } | ${cell(scenario, "remix")} | ${ratio(scenario, "bare")} | ${
        ratio(scenario, "hono")
      } | ${ratio(scenario, "remix")} |`,
    );
  }
  console.log(
    `\nInstructions per request in the server process (callgrind, user space, all threads), over ${seconds} s of wrk -t1 -c${CONNECTIONS} after at least ${
      fmt(WARM_REQUESTS)
    } requests (or 30 s) of warm-up per scenario, twice over; Deno ${Deno.version.deno}. A peer's count over ours: above 1, ours executes fewer.`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
