/**
 * HTTP load through real sockets: the same small app on our router, a Hono
 * app and Remix's fetch-router, plus bare `Deno.serve` answering a constant
 * response, each `Deno.serve`d in its own process on 127.0.0.1 and loaded by
 * `wrk` (Debian package) in interleaved rounds (the order of the servers
 * rotates every round). Bounded: each run is `seconds` long per server and
 * scenario; it stops by itself and ends the servers it started.
 *
 *     flock /tmp/fetchkit-bench.lock \
 *       deno run --unstable-kv --allow-all bench/http_load.ts [rounds=3] [seconds=5] [only]
 *
 * `only`, optional, is a comma-separated list of words: just the scenarios
 * whose name contains one of them run (e.g. `miss,html`), and no chart is
 * written. Before the timed rounds, every server gets one second of each of
 * its scenarios, untimed, so the first round is not a JIT warm-up.
 *
 * `--fresh` starts every server anew (and warms it up again) each round: a
 * process keeps its JIT decisions and memory layout, which moved one
 * server's figures by more than the gaps reported here, so fresh
 * processes sample that too.
 *
 * Prints requests/second per server and scenario (median of the rounds, and
 * the spread of the rounds), ratios to ours paired by round (the median of
 * the rounds' ratios, with their quartiles: the machine drifts by more
 * than the gaps between servers over a run, and a round's servers run
 * back to back), the server process's CPU time per request
 * (from `/proc/<pid>/stat`: steadier than req/s on a shared VM), and writes
 * `bench/http_chart.svg`: each server's throughput relative to ours, per
 * scenario.
 *
 * @module
 */

import { median, quantile } from "./_stats.ts";
import {
  type HttpServer,
  loadScenario,
  pickScenarios,
  type Scenario,
  type Server,
  SERVERS,
  startHttpServer,
} from "./_http_scenarios.ts";

const fresh = Deno.args.includes("--fresh");
const args = Deno.args.filter((arg) => arg !== "--fresh");
const rounds = Number(args[0] ?? 3);
const seconds = Number(args[1] ?? 5);
const only = args[2]?.split(",").filter((word) => word !== "");
const SCENARIOS = pickScenarios(only);

async function wrk(
  server: HttpServer,
  scenario: Scenario,
  dir: string,
  duration = seconds,
): Promise<{ rps: number; cpu: number }> {
  const before = cpuTicks(server.process.pid);
  const result = await loadScenario(server, scenario, dir, {
    seconds: duration,
  });
  const cpu = (cpuTicks(server.process.pid) - before) * TICK_US /
    result.total;
  return { rps: result.rps, cpu };
}

/** Microseconds per clock tick of /proc/<pid>/stat (USER_HZ is 100). */
const TICK_US = 10_000;

/**
 * CPU time (user + system, in ticks) the server process has used: per
 * request it is much steadier than requests per second on a shared VM,
 * where wrk and the server compete for the two cores.
 */
function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the command name, which is in parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/**
 * `a / b` of two servers' figures in `map`, one ratio per round: a round's
 * servers run back to back, so each ratio cancels the machine's slow drift,
 * which over a run is larger than the gaps between servers. Undefined when
 * one of the two has no figures for the scenario.
 */
function pairedRatios(
  map: Map<string, number[]>,
  scenario: Scenario,
  a: Server,
  b: Server,
): number[] | undefined {
  const top = map.get(`${scenario.name}|${a}`);
  const bottom = map.get(`${scenario.name}|${b}`);
  if (top === undefined || bottom === undefined) return undefined;
  return top.map((value, round) => value / bottom[round]);
}

/**
 * The chart: per scenario, each server's req/s relative to ours (the median
 * of the rounds' ratios).
 */
function chart(
  results: Map<string, number[]>,
): string {
  const colors: Record<Server, string> = {
    bare: "#9e9e9e",
    "bare-url": "#c8c8c8",
    fetchkit: "#1565c0",
    hono: "#ef6c00",
    remix: "#6a1b9a",
  };
  const barHeight = 14;
  const left = 190;
  const width = 420;
  const maxRatio = 1.6;
  const x = (ratio: number) =>
    left + (Math.min(ratio, maxRatio) / maxRatio) * width;
  let y = 40;
  let body = "";
  for (const scenario of SCENARIOS) {
    body += `<text x="${left - 8}" y="${
      y + barHeight
    }" text-anchor="end" font-weight="bold">${scenario.name}</text>\n`;
    for (const server of scenario.servers) {
      const rps = median(results.get(`${scenario.name}|${server}`)!);
      const ratio = median(
        pairedRatios(results, scenario, server, "fetchkit")!,
      );
      // A label starts right of the 1.00 line, so the line never crosses it.
      body +=
        `<rect x="${left}" y="${y}" width="${
          (x(ratio) - left).toFixed(1)
        }" height="${barHeight}" fill="${colors[server]}"/>` +
        `<text x="${(Math.max(x(ratio), x(1)) + 4).toFixed(1)}" y="${
          y + barHeight - 3
        }">${server} ${ratio.toFixed(2)} (${fmt(rps)}/s)</text>\n`;
      y += barHeight + 3;
    }
    y += 10;
  }
  const height = y + 30;
  const one = x(1);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${
    left + width + 170
  }" height="${height}" font-family="sans-serif" font-size="11">
<title>HTTP throughput relative to fetchkit (median of ${rounds} rounds' ratios, ${seconds} s each, wrk -t1 -c32)</title>
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="13" font-weight="bold">Requests/s relative to fetchkit (1.00 = ours; longer is faster)</text>
${body}<line x1="${one}" y1="30" x2="${one}" y2="${
    height - 25
  }" stroke="#000" stroke-dasharray="4 3"/>
<text x="${one}" y="${height - 10}" text-anchor="middle">1.00</text>
<text x="10" y="${
    height - 10
  }">Deno ${Deno.version.deno}; ${rounds} interleaved rounds x ${seconds} s${
    fresh ? ", fresh processes" : ""
  }; written by bench/http_load.ts</text>
</svg>
`;
}

const dir = await Deno.makeTempDir();
const servers = new Map<Server, HttpServer>();
async function stopAll(): Promise<void> {
  for (const { process } of servers.values()) {
    process.kill("SIGTERM");
    await process.status;
  }
  servers.clear();
}
try {
  const warm = async () => {
    for (const name of SERVERS) {
      // Its stderr kept apart so wrk's table stays readable; summarized at
      // the end.
      servers.set(
        name,
        await startHttpServer(name, { log: `${dir}/${name}.log` }),
      );
    }
    for (const scenario of SCENARIOS) {
      for (const name of scenario.servers) {
        await wrk(servers.get(name)!, scenario, dir, 1);
      }
    }
  };
  await warm();
  const results = new Map<string, number[]>();
  const cpus = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    if (fresh && round > 0) {
      await stopAll();
      await warm();
    }
    for (const scenario of SCENARIOS) {
      const order = scenario.servers.map((_, i, all) =>
        all[(i + round) % all.length]
      );
      for (const name of order) {
        const { rps, cpu } = await wrk(servers.get(name)!, scenario, dir);
        const key = `${scenario.name}|${name}`;
        results.set(key, [...(results.get(key) ?? []), rps]);
        cpus.set(key, [...(cpus.get(key) ?? []), cpu]);
      }
    }
  }
  const cell = (scenario: Scenario, server: Server) => {
    const values = results.get(`${scenario.name}|${server}`);
    if (values === undefined) return "-";
    const spread = (Math.max(...values) - Math.min(...values)) /
      median(values) * 100;
    return `${fmt(median(values))} (±${(spread / 2).toFixed(0)}%)`;
  };
  /** `a / b` as {@linkcode pairedRatios} gives it, with quartiles. */
  const quotient = (
    map: Map<string, number[]>,
    scenario: Scenario,
    a: Server,
    b: Server,
  ) => {
    const ratios = pairedRatios(map, scenario, a, b);
    if (ratios === undefined) return "-";
    const [low, middle, high] = [0.25, 0.5, 0.75].map((q) =>
      quantile(ratios, q).toFixed(2)
    );
    return `${middle}x (${low}-${high})`;
  };
  // Both ratios read "ours ahead" above 1: req/s ours over theirs, CPU
  // theirs over ours.
  const ratio = (scenario: Scenario, server: Server) =>
    quotient(results, scenario, "fetchkit", server);
  const cpuRatio = (scenario: Scenario, server: Server) =>
    quotient(cpus, scenario, server, "fetchkit");
  console.log(
    `| scenario | bare Deno.serve | bare, reading url and method | fetchkit | Hono | Remix | ours / bare | ours / bare reading url and method | ours / Hono | ours / Remix |`,
  );
  console.log(
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  );
  for (const scenario of SCENARIOS) {
    console.log(
      `| ${scenario.name} (\`${scenario.path}\`) | ${
        cell(scenario, "bare")
      } | ${cell(scenario, "bare-url")} | ${cell(scenario, "fetchkit")} | ${
        cell(scenario, "hono")
      } | ${cell(scenario, "remix")} | ${ratio(scenario, "bare")} | ${
        ratio(scenario, "bare-url")
      } | ${ratio(scenario, "hono")} | ${ratio(scenario, "remix")} |`,
    );
  }
  const cpuCell = (scenario: Scenario, server: Server) => {
    const values = cpus.get(`${scenario.name}|${server}`);
    return values === undefined ? "-" : median(values).toFixed(1);
  };
  console.log(
    `\nServer CPU per request (µs, user + system, median of the rounds; a peer's figure over ours: above 1 means ours uses less):\n`,
  );
  console.log(
    `| scenario | bare Deno.serve | bare, reading url and method | fetchkit | Hono | Remix | bare / ours | Hono / ours | Remix / ours |`,
  );
  console.log(
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  );
  for (const scenario of SCENARIOS) {
    console.log(
      `| ${scenario.name} | ${cpuCell(scenario, "bare")} | ${
        cpuCell(scenario, "bare-url")
      } | ${cpuCell(scenario, "fetchkit")} | ${cpuCell(scenario, "hono")} | ${
        cpuCell(scenario, "remix")
      } | ${cpuRatio(scenario, "bare")} | ${cpuRatio(scenario, "hono")} | ${
        cpuRatio(scenario, "remix")
      } |`,
    );
  }
  console.log(
    `\nreq/s, median of ${rounds} interleaved rounds of ${seconds} s per server and scenario (± half the range of the rounds)${
      fresh ? ", servers started anew each round" : ""
    }; wrk -t1 -c32; Deno ${Deno.version.deno}. Ratios: the median of the rounds' ratios, each round's two figures taken back to back, with the rounds' quartiles in parentheses.`,
  );
  if (only === undefined) {
    const svg = new URL("./http_chart.svg", import.meta.url);
    await Deno.writeTextFile(svg, chart(results));
    console.log(`chart: ${svg.pathname}`);
  }
  for (const name of SERVERS) {
    const log = await Deno.readTextFile(`${dir}/${name}.log`);
    const errors = log.match(/^\w*Error\b.*$/gm) ?? [];
    if (errors.length !== 0) {
      console.log(
        `${name} logged ${errors.length} errors, e.g. "${errors[0]}"`,
      );
    }
  }
} finally {
  await stopAll();
  await Deno.remove(dir, { recursive: true });
}
