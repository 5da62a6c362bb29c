/**
 * Instructions per request on Node and Bun, as `http_instructions.ts`
 * counts them on Deno: each server of `bench/_runtime_servers.ts` runs under
 * valgrind's callgrind with counting off; every scenario is warmed with
 * wrk (twice over), then counted over `seconds` of wrk with counting
 * switched on and off by `callgrind_control`, and the count divided by the
 * requests wrk completed. Counts do not depend on what else the machine
 * does, where req/s on a shared machine moves by 10-40 %.
 *
 * ```sh
 * bash _tools/runtimes/install.sh
 * deno run -A bench/runtimes_instructions.ts [--warm=3] [--seconds=5] [--runtimes=node,bun]
 *   [--servers=bare,fetchkit,hono] [--scenarios=param,miss]
 * ```
 *
 * `--servers` may add `fetchkit-response-json` (see `_runtime_servers.ts`);
 * `--scenarios` keeps the scenarios whose name contains one of the words.
 *
 * Needs `valgrind` and `wrk`. Bounded: about a minute and a half per server.
 *
 * @module
 */
import { join } from "node:path";
import { freePort, untilReady, wrkRun } from "./_load.ts";
import {
  buildRuntimeServers,
  OUT,
  runtimeBenchArgs,
  runtimeBinary,
} from "./_runtime_bench.ts";

const { args, runtimes, servers: SERVERS, scenarios: SCENARIOS } =
  runtimeBenchArgs();
const warmSeconds = Number(args.get("warm") ?? 3);
const seconds = Number(args.get("seconds") ?? 5);
// Under valgrind a server runs some 30x slower: few connections suffice.
const CONNECTIONS = 4;

const { bundle, post } = await buildRuntimeServers();

async function control(pid: number, ...flags: string[]): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...flags, String(pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${flags.join(" ")} failed`);
}

async function dumpTotal(file: string): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      const total = /^totals: (\d+)/m.exec(await Deno.readTextFile(file));
      if (total !== null) return Number(total[1]);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

const counts = new Map<string, number>();
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
for (const runtime of runtimes) {
  for (const server of SERVERS) {
    const mine = SCENARIOS.filter((s) => s.servers.includes(server));
    const port = freePort();
    const file = join(OUT, `callgrind.${runtime}.${server}`);
    const child = new Deno.Command("valgrind", {
      args: [
        "--tool=callgrind",
        "--smc-check=all-non-file",
        "--instr-atstart=no",
        `--callgrind-out-file=${file}`,
        await runtimeBinary(runtime),
        bundle,
        server,
        String(port),
      ],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    await untilReady(child, `${runtime} ${server} under callgrind`);
    const load = async (path: string, isPost: boolean, duration: number) =>
      (await wrkRun(`http://127.0.0.1:${port}${path}`, {
        seconds: duration,
        connections: CONNECTIONS,
        timeout: 60,
        script: isPost ? post : undefined,
      })).total;
    let dumps = 0;
    try {
      for (let pass = 0; pass < 2; pass++) {
        for (const scenario of mine) {
          await load(
            scenario.path,
            scenario.name.startsWith("POST"),
            warmSeconds,
          );
        }
      }
      for (const scenario of mine) {
        const isPost = scenario.name.startsWith("POST");
        await load(scenario.path, isPost, 1);
        await control(child.pid, "--zero");
        await control(child.pid, "--instr=on");
        const requests = await load(scenario.path, isPost, seconds);
        await control(child.pid, "--instr=off");
        await control(child.pid, "--dump");
        const total = await dumpTotal(`${file}.${++dumps}`);
        counts.set(`${runtime}|${scenario.name}|${server}`, total / requests);
        console.error(
          `${runtime} ${server} ${scenario.name}: ${fmt(total / requests)}`,
        );
      }
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  }
}

const others = SERVERS.filter((server) => server !== "hono");
console.log(
  `| runtime | scenario | ${SERVERS.join(" | ")} | ${
    others.map((server) => `hono / ${server}`).join(" | ")
  } |`,
);
console.log(
  `|---|---|${SERVERS.map(() => "---:|").join("")}${
    others.map(() => "---:|").join("")
  }`,
);
for (const runtime of runtimes) {
  for (const scenario of SCENARIOS) {
    const get = (server: string) =>
      counts.get(`${runtime}|${scenario.name}|${server}`);
    const cell = (n: number | undefined) => n === undefined ? "—" : fmt(n);
    const hono = get("hono");
    const ratios = others.map((server) => {
      const n = get(server);
      return n === undefined || hono === undefined
        ? "—"
        : (hono / n).toFixed(2);
    });
    console.log(
      `| ${runtime} | ${scenario.name} | ${
        SERVERS.map((server) => cell(get(server))).join(" | ")
      } | ${ratios.join(" | ")} |`,
    );
  }
}
