/**
 * HTTP load on every runtime, in one sitting: ours (`serve(router.fetch)`),
 * Elysia, Hono and bare `Bun.serve` on Bun; ours, Fastify, Hono and bare
 * `node:http` on Node; ours, Hono and bare `Deno.serve` on Deno; on the
 * scenarios of `_bench.ts` (five hello-worlds, and three requests of real
 * apps from `_apps.ts`: a signed-in page, a validated JSON call, a cached
 * page; those run in a second process per server). All servers of a runtime run side by
 * side; each round loads every scenario on each server back to back, in
 * an order that rotates from round to round. Reported: req/s (median and
 * quartiles) and the server's CPU time per request (user + system from
 * `/proc`, median and min-max), which other load on a shared machine moves
 * less than req/s; then ours ÷ the fastest peer's CPU per request (per
 * round, median and min-max), and on the static route ours ÷ bare req/s.
 *
 * ```sh
 * bash _tools/runtimes/install.sh                                   # Bun
 * (cd bench/runtimes && npm ci --ignore-scripts)                    # Elysia, Fastify
 * deno run -A bench/runtimes/load.ts [--rounds=7] [--seconds=2] [--runtimes=bun,node,deno]
 *   [--scenarios=static,404] [--servers=fetchkit,hono] [--save=after] [--apart]
 * ```
 *
 * `--save=name` writes the raw figures to `bench/runtimes/.out/name.json`
 * (with each round's user and system CPU, the main thread's CPU and the
 * minor page faults a request beside the sum). `--apart` prints them too:
 * per runtime, scenario and server, the medians of user, system, main
 * thread, other threads (µs a request), minor faults a request, and the
 * main thread's voluntary and involuntary context switches a request
 * (how often it waited for work; how often another process took its
 * core); then
 * ours ÷ the fastest peer per round in CPU with the interval that holds
 * the median with 95 % and what it reads (`levelRule` in `_bench.ts`),
 * and in user, system and main-thread time.
 * `--base=<dir>` adds `base`: ours from another checkout (an earlier
 * commit, with this folder's `_servers.ts` copied in), for before/after
 * figures from one sitting (`git archive <commit> | tar -x -C <dir>`).
 *
 * @module
 */
import { join } from "node:path";
import { wrkRun } from "../_load.ts";
import { median, quantile } from "../_stats.ts";
import {
  build,
  type CpuUse,
  cpuUse,
  isOurs,
  levelRule,
  loads,
  options,
  OUT,
  prepare,
  type Running,
  type SavedRounds,
  type Scenario,
  SCENARIOS,
  serversOf,
  start,
  staticOnly,
} from "./_bench.ts";

const args = options();
const rounds = Number(args.get("rounds") ?? 7);
const seconds = Number(args.get("seconds") ?? 2);
const runtimes = (args.get("runtimes") ?? "bun,node,deno").split(",");
const words = args.get("scenarios")?.split(",");
const only = args.get("servers")?.split(",");
const measured = (runtime: string) =>
  serversOf(runtime, baseRoot).filter((name) =>
    only === undefined || only.includes(name)
  );
const scenarios = SCENARIOS.filter((scenario) =>
  words === undefined || words.some((word) => scenario.name.includes(word))
);

const baseRoot = args.get("base");
// Node and Bun run a bundle; a Deno-only sitting needs none.
const bundled = runtimes.some((runtime) => runtime !== "deno");
const bundles = {
  bundle: bundled ? (await build()).bundle : "",
  baseRoot,
  base: baseRoot === undefined || !bundled
    ? undefined
    : (await build(baseRoot)).bundle,
};

/** Per runtime|scenario|server: req/s and CPU µs per request, by round. */
const rps = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
// The same CPU apart, by round: user and system µs a request (every
// thread), the main thread's user + system, minor page faults a request.
const user = new Map<string, number[]>();
const system = new Map<string, number[]>();
const main = new Map<string, number[]>();
const faults = new Map<string, number[]>();
// The main thread's voluntary (waits for work) and involuntary (another
// process took the core) context switches a request, by round.
const wakeups = new Map<string, number[]>();
const preempted = new Map<string, number[]>();
const push = (map: Map<string, number[]>, key: string, value: number) =>
  map.set(key, [...(map.get(key) ?? []), value]);

for (const runtime of runtimes) {
  const names = measured(runtime);
  // One process per server and group of scenarios that it serves.
  const running = new Map<string, Running>();
  const scripts = new Map<string, string | undefined>();
  const at = (server: string, scenario: Scenario) =>
    running.get(`${server}|${scenario.group}`)!;
  try {
    for (const server of names) {
      for (const group of ["hello", "app"] as const) {
        if (
          !scenarios.some((one) =>
            one.group === group && loads(server, one.name)
          )
        ) continue;
        running.set(
          `${server}|${group}`,
          await start(runtime, server, bundles, [], group),
        );
      }
    }
    for (const server of names) {
      for (const scenario of scenarios) {
        if (!loads(server, scenario.name)) continue;
        scripts.set(
          `${server}|${scenario.name}`,
          await prepare(
            at(server, scenario).port,
            scenario,
            `${runtime} ${server}`,
          ),
        );
      }
    }
    for (let round = 0; round < rounds; round++) {
      const order = names.map((_, index) =>
        names[(index + round) % names.length]!
      );
      for (const scenario of scenarios) {
        for (const server of order) {
          // The bare server answers one text to everything.
          if (!loads(server, scenario.name)) continue;
          const { port, pid } = at(server, scenario);
          const before = await cpuUse(pid);
          const result = await wrkRun(
            `http://127.0.0.1:${port}${scenario.path}`,
            { seconds, script: scripts.get(`${server}|${scenario.name}`) },
          );
          const after = await cpuUse(pid);
          const spent = (get: (use: CpuUse) => number, scale = 1e6) =>
            (get(after) - get(before)) / result.total * scale;
          const key = `${runtime}|${scenario.name}|${server}`;
          push(rps, key, result.rps);
          push(cpu, key, spent((use) => use.user + use.system));
          push(user, key, spent((use) => use.user));
          push(system, key, spent((use) => use.system));
          push(main, key, spent((use) => use.mainUser + use.mainSystem));
          push(faults, key, spent((use) => use.faults, 1));
          push(wakeups, key, spent((use) => use.wakeups, 1));
          push(preempted, key, spent((use) => use.preempted, 1));
        }
      }
      console.error(`${runtime}: round ${round + 1} of ${rounds}`);
    }
  } finally {
    for (const server of running.values()) await server.stop();
  }
}

if (args.has("save")) {
  await Deno.writeTextFile(
    join(OUT, `${args.get("save")}.json`),
    JSON.stringify(
      {
        rps: Object.fromEntries(rps),
        cpu: Object.fromEntries(cpu),
        user: Object.fromEntries(user),
        system: Object.fromEntries(system),
        main: Object.fromEntries(main),
        faults: Object.fromEntries(faults),
        wakeups: Object.fromEntries(wakeups),
        preempted: Object.fromEntries(preempted),
      } satisfies SavedRounds,
    ),
  );
}

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}-${
    Math.max(...values).toFixed(digits)
  }`;
for (const runtime of runtimes) {
  const names = measured(runtime);
  const peers = names.filter((name) => !isOurs(name) && !staticOnly(name));
  console.log(`\n#### ${runtime}\n`);
  console.log(
    `| scenario | ${
      names.map((name) => `${name} req/s (quartiles)`).join(" | ")
    } | ${
      names.map((name) => `${name} CPU µs/req (min-max)`).join(" | ")
    } | ours ÷ fastest peer, CPU/req (min-max) | ours ÷ bare, req/s |${
      baseRoot === undefined ? "" : " ours ÷ base, CPU/req (min-max) |"
    }`,
  );
  console.log(
    `|---|${"---:|".repeat(names.length * 2 + 2 + (baseRoot ? 1 : 0))}`,
  );
  for (const scenario of scenarios) {
    const key = (name: string) => `${runtime}|${scenario.name}|${name}`;
    const rpsCells = names.map((name) => {
      const values = rps.get(key(name));
      return values === undefined
        ? "—"
        : `${k(median(values))} (${k(quantile(values, 0.25))}-${
          k(quantile(values, 0.75))
        })`;
    });
    const cpuCells = names.map((name) => {
      const values = cpu.get(key(name));
      return values === undefined
        ? "—"
        : `${median(values).toFixed(1)} (${range(values, 1)})`;
    });
    // Per round: ours over the peer with the least CPU per request then.
    const ours = cpu.get(key("fetchkit"))!;
    const ratios = ours.map((value, round) =>
      value / Math.min(
        ...peers.map((peer) => cpu.get(key(peer))?.[round] ?? Infinity),
      )
    );
    const bare = rps.get(key("bare"));
    const bareRatio = bare === undefined ? "—" : median(
      rps.get(key("fetchkit"))!.map((value, round) => value / bare[round]!),
    ).toFixed(2);
    let baseCell = "";
    const base = cpu.get(key("base"));
    if (baseRoot !== undefined) {
      const overBase = ours.map((value, round) => value / base?.[round]!);
      baseCell = base === undefined
        ? " — |"
        : ` ${median(overBase).toFixed(2)} (${range(overBase, 2)}) |`;
    }
    console.log(
      `| ${scenario.name} | ${rpsCells.join(" | ")} | ${
        cpuCells.join(" | ")
      } | ${median(ratios).toFixed(2)} (${
        range(ratios, 2)
      }) | ${bareRatio} |${baseCell}`,
    );
  }
}

// `--apart`: where each server's CPU went, medians of the rounds.
if (args.has("apart")) {
  for (const runtime of runtimes) {
    const names = measured(runtime);
    console.log(`\n#### ${runtime}, CPU apart (medians of ${rounds} rounds)\n`);
    console.log(
      "| scenario | server | CPU µs/req | user µs/req | system µs/req | main thread µs/req | other threads µs/req | minor faults/req | main thread waits/req | main thread preempted/req |",
    );
    console.log(`|---|---|${"---:|".repeat(8)}`);
    for (const scenario of scenarios) {
      for (const name of names) {
        const key = `${runtime}|${scenario.name}|${name}`;
        if (!cpu.has(key)) continue;
        const m = (map: Map<string, number[]>) => median(map.get(key)!);
        const others = cpu.get(key)!.map((value, round) =>
          value - main.get(key)![round]!
        );
        console.log(
          `| ${scenario.name} | ${name} | ${m(cpu).toFixed(1)} | ${
            m(user).toFixed(1)
          } | ${m(system).toFixed(1)} | ${m(main).toFixed(1)} | ${
            median(others).toFixed(1)
          } | ${m(faults).toFixed(2)} | ${m(wakeups).toFixed(3)} | ${
            m(preempted).toFixed(3)
          } |`,
        );
      }
    }
    // Ours over the peer with the least CPU per request in each round (as
    // the table above), and the same peer's user, system and main-thread
    // figures in that round.
    const peers = names.filter((name) => !isOurs(name) && !staticOnly(name));
    console.log(
      `\n| scenario | ours ÷ fastest peer, CPU (95 % interval of the median) | CPU reads | ÷ user | ÷ system | ÷ main thread |`,
    );
    console.log(`|---|${"---:|".repeat(5)}`);
    for (const scenario of scenarios) {
      const key = (name: string) => `${runtime}|${scenario.name}|${name}`;
      const ours = cpu.get(key("fetchkit"));
      const present = peers.filter((peer) => cpu.has(key(peer)));
      if (ours === undefined || present.length === 0) continue;
      const fastest = ours.map((_, round) =>
        present.reduce((best, peer) =>
          cpu.get(key(peer))![round]! < cpu.get(key(best))![round]!
            ? peer
            : best
        )
      );
      const over = (map: Map<string, number[]>) =>
        map.get(key("fetchkit"))!.map((value, round) =>
          value / map.get(key(fastest[round]!))![round]!
        );
      const rule = levelRule(over(cpu));
      console.log(
        `| ${scenario.name} | ${median(over(cpu)).toFixed(2)} (${
          rule.low.toFixed(2)
        }-${rule.high.toFixed(2)}${
          rule.coverage < 0.95
            ? `, min-max: ${Math.round(rule.coverage * 100)} %`
            : ""
        }) | ${rule.verdict} | ${median(over(user)).toFixed(2)} | ${
          median(over(system)).toFixed(2)
        } | ${median(over(main)).toFixed(2)} |`,
      );
    }
  }
}
