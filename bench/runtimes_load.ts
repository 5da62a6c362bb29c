/**
 * HTTP load on Node and Bun: the scenarios of `http_load.ts` that need no
 * Deno KV (static route, one param, three middlewares, miss, POST
 * urlencoded) against a bare server and Hono on the same runtime, through
 * `@hono/node-server` on Node and `Bun.serve` on Bun. The three servers run
 * side by side; each scenario loads them back to back in a rotating order,
 * round after round, and medians are reported with the min-max spread of
 * the fetchkit / Hono ratio over rounds.
 *
 * ```sh
 * bash _tools/runtimes/install.sh   # Bun and the Node adapter, from npm
 * deno run -A bench/runtimes_load.ts [--rounds=5] [--seconds=2] [--runtimes=node,bun]
 *   [--servers=bare,fetchkit,hono] [--scenarios=param,miss]
 * ```
 *
 * `--servers` may add `fetchkit-response-json` (see `_runtime_servers.ts`);
 * `--scenarios` keeps the scenarios whose name contains one of the words.
 *
 * @module
 */
import { freePort, untilReady, wrkRun } from "./_load.ts";
import { median, quantile } from "./_stats.ts";
import {
  buildRuntimeServers,
  runtimeBenchArgs,
  runtimeBinary,
} from "./_runtime_bench.ts";

const { args, runtimes, servers: SERVERS, scenarios: SCENARIOS } =
  runtimeBenchArgs();
const rounds = Number(args.get("rounds") ?? 5);
const seconds = Number(args.get("seconds") ?? 2);

const { bundle, post } = await buildRuntimeServers();

const results = new Map<string, number[]>();
for (const runtime of runtimes) {
  // All three servers up at once, so each scenario's contenders run back
  // to back (A B C, then B C A, ...) rather than minutes apart.
  const running = new Map<string, { port: number; child: Deno.ChildProcess }>();
  for (const server of SERVERS) {
    const port = freePort();
    const child = new Deno.Command(await runtimeBinary(runtime), {
      args: [bundle, server, String(port)],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    await untilReady(child, `${runtime} ${server}`);
    running.set(server, { port, child });
  }
  try {
    for (let round = 0; round < rounds; round++) {
      const order = SERVERS.map((_, index) =>
        SERVERS[(index + round) % SERVERS.length]
      );
      for (const scenario of SCENARIOS) {
        for (const server of order) {
          if (!scenario.servers.includes(server)) continue;
          const { port } = running.get(server)!;
          const result = await wrkRun(
            `http://127.0.0.1:${port}${scenario.path}`,
            {
              seconds,
              script: scenario.name.startsWith("POST") ? post : undefined,
            },
          );
          const key = `${runtime}|${scenario.name}|${server}`;
          results.set(key, [...(results.get(key) ?? []), result.rps]);
        }
      }
    }
  } finally {
    for (const { child } of running.values()) {
      child.kill("SIGTERM");
      await child.status;
    }
  }
}

function ratios(runtime: string, scenario: string, server: string): number[] {
  const ours = results.get(`${runtime}|${scenario}|${server}`)!;
  const hono = results.get(`${runtime}|${scenario}|hono`)!;
  return ours.map((rps, index) => rps / hono[index]);
}

const quartiles = (values: number[], digits: number, scale = 1) =>
  `${(quantile(values, 0.25) * scale).toFixed(digits)}-${
    (quantile(values, 0.75) * scale).toFixed(digits)
  }`;
const others = SERVERS.filter((server) => server !== "hono");
console.log(
  `| runtime | scenario | ${
    SERVERS.map((server) => `${server} req/s (quartiles)`).join(" | ")
  } | ${
    others.map((server) => `${server} / hono (quartiles, min-max)`).join(
      " | ",
    )
  } |`,
);
console.log(
  `|---|---|${SERVERS.map(() => "---:|").join("")}${
    others.map(() => "---:|").join("")
  }`,
);
for (const runtime of runtimes) {
  for (const scenario of SCENARIOS) {
    const cells = SERVERS.map((server) => {
      const values = results.get(`${runtime}|${scenario.name}|${server}`);
      return values === undefined
        ? "—"
        : `${Math.round(median(values)).toLocaleString("en-US")} (${
          quartiles(values, 1, 1e-3)
        }k)`;
    });
    const ratioCells = others.map((server) => {
      if (!results.has(`${runtime}|${scenario.name}|${server}`)) return "—";
      const values = ratios(runtime, scenario.name, server);
      return `${median(values).toFixed(2)} (${quartiles(values, 2)}, ${
        Math.min(...values).toFixed(2)
      }-${Math.max(...values).toFixed(2)})`;
    });
    console.log(
      `| ${runtime} | ${scenario.name} | ${cells.join(" | ")} | ${
        ratioCells.join(" | ")
      } |`,
    );
  }
}
