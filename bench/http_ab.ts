/**
 * Two servers of `_http_servers.ts` head to head on one scenario, in the
 * same two processes: `wrk` loads one, then the other, back to back, in
 * pairs whose order alternates (A B, B A, ...), and each pair gives one
 * ratio. Prints every pair and the median of the ratios with their
 * quartiles. On this shared VM req/s drifts by tens of percent over a
 * minute, more than the gaps between servers; a pair's two runs see nearly
 * the same machine, so their ratio cancels most of the drift.
 *
 *     flock /tmp/fetchkit-bench.lock \
 *       deno run --unstable-kv --allow-all bench/http_ab.ts <a,b> [pairs=30] [seconds=2] [scenario=static]
 *
 * Run a server against itself (`bare,bare`: two processes of the same
 * code) to see what this machine can resolve at that moment: the ratio's
 * distance from 1.00 and its quartiles are the noise. Bounded: about
 * `2 * pairs * seconds` seconds plus start-up; it ends the servers it
 * started.
 *
 * @module
 */

import { median, quantile } from "./_stats.ts";
import {
  type HttpServer,
  loadScenario,
  pickScenarios,
  type Server,
  SERVERS,
  startHttpServer,
} from "./_http_scenarios.ts";

const [pair, pairsArg, secondsArg, scenarioArg] = Deno.args;
const names = (pair ?? "").split(",");
if (
  names.length !== 2 ||
  !names.every((name) => (SERVERS as readonly string[]).includes(name))
) {
  console.error(
    `usage: http_ab.ts <a,b> [pairs] [seconds] [scenario]; servers: ${
      SERVERS.join(", ")
    }`,
  );
  Deno.exit(2);
}
const [a, b] = names as Server[];
const pairs = Number(pairsArg ?? 30);
const seconds = Number(secondsArg ?? 2);
const scenario = pickScenarios([scenarioArg ?? "static"])[0];
if (
  scenario === undefined || !scenario.servers.includes(a) ||
  !scenario.servers.includes(b)
) {
  console.error(`no scenario "${scenarioArg}" that both ${a} and ${b} serve`);
  Deno.exit(2);
}

const dir = await Deno.makeTempDir();
const running: HttpServer[] = [];

async function start(name: Server): Promise<HttpServer> {
  const server = await startHttpServer(name);
  running.push(server);
  // Untimed, so the first pair is not a JIT warm-up.
  await load(server, 3);
  return server;
}

async function load(server: HttpServer, duration = seconds): Promise<number> {
  const result = await loadScenario(server, scenario, dir, {
    seconds: duration,
  });
  return result.rps;
}

try {
  const first = await start(a);
  const second = await start(b);
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    let rpsA: number;
    let rpsB: number;
    if (i % 2 === 0) {
      rpsA = await load(first);
      rpsB = await load(second);
    } else {
      rpsB = await load(second);
      rpsA = await load(first);
    }
    ratios.push(rpsB / rpsA);
    console.log(
      `pair ${i + 1}: ${a} ${Math.round(rpsA)}, ${b} ${
        Math.round(rpsB)
      }, ${b}/${a} ${(rpsB / rpsA).toFixed(3)}`,
    );
  }
  const [low, high] = [0.25, 0.75].map((q) => quantile(ratios, q).toFixed(3));
  console.log(
    `\n${scenario.name}: ${b} / ${a} by req/s, median of ${pairs} pairs of ${seconds} s: ${
      median(ratios).toFixed(3)
    } (quartiles ${low}-${high}); wrk -t1 -c32; Deno ${Deno.version.deno}.`,
  );
} finally {
  for (const { process } of running) {
    process.kill("SIGTERM");
    await process.status;
  }
  await Deno.remove(dir, { recursive: true });
}
