/**
 * Instructions per request of the whole auth app and of the same app on
 * Hono (`hono.ts`), on Deno: each server runs under valgrind's callgrind
 * with counting off; each request is warmed with wrk, then counted over
 * `seconds` of wrk with counting switched on and off by
 * `callgrind_control` (`../_callgrind.ts`), all the server's threads
 * (bcrypt's, KV's, V8's) included, and the count divided by the requests
 * wrk completed. The contenders alternate (fetchkit, hono, fetchkit,
 * hono...) for `rounds` windows each; the median and the range are
 * printed. Counts do not depend on what else the machine runs.
 *
 *   deno run -A --unstable-kv bench/app/instructions.ts [--rounds=3] [--seconds=5] [--warm=3]
 *
 * Needs `valgrind` and `wrk`; a few minutes.
 *
 * @module
 */
import { countWhile } from "../_callgrind.ts";
import type { Running } from "../_load.ts";
import { wrkRun } from "../_load.ts";
import { median } from "../_stats.ts";
import {
  type Contender,
  CONTENDERS,
  options,
  SCENARIOS,
  scriptFile,
  startContender,
} from "./_contenders.ts";

const args = options();
const rounds = Number(args.rounds ?? 3);
const seconds = Number(args.seconds ?? 5);
const warmSeconds = Number(args.warm ?? 3);
// Under valgrind a server runs some 30x slower: few connections suffice.
const CONNECTIONS = 4;
const dir = await Deno.makeTempDir({ prefix: "app-callgrind-" });

const running = new Map<Contender, Running>();
const counts = new Map<string, number[]>();
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
try {
  for (const name of CONTENDERS) {
    running.set(
      name,
      await startContender(name, {
        prefix: [
          "valgrind",
          "--tool=callgrind",
          "--smc-check=all-non-file",
          "--instr-atstart=no",
          `--callgrind-out-file=${dir}/callgrind.${name}`,
        ],
      }),
    );
  }
  let dumps = 0;
  for (const scenario of SCENARIOS) {
    const scripts = new Map<Contender, string>();
    for (const [name, server] of running) {
      scripts.set(name, await scriptFile(await scenario.script(server.port)));
    }
    const load = async (name: Contender, duration: number) => {
      const server = running.get(name)!;
      const result = await wrkRun(
        `http://127.0.0.1:${server.port}${scenario.path}`,
        {
          seconds: duration,
          connections: CONNECTIONS,
          timeout: 60,
          script: scripts.get(name),
        },
      );
      if (result.non2xx > 0 || result.socketErrors) {
        throw new Error(`${name} ${scenario.name}: errors\n${result.text}`);
      }
      return result.total;
    };
    for (let pass = 0; pass < 2; pass++) {
      for (const name of CONTENDERS) await load(name, warmSeconds);
    }
    for (let round = 0; round < rounds; round++) {
      for (const name of CONTENDERS) {
        const { total, result: requests } = await countWhile(
          running.get(name)!.pid,
          `${dir}/callgrind.${name}.${++dumps}`,
          () => load(name, seconds),
        );
        const key = `${scenario.name}|${name}`;
        counts.set(key, [...counts.get(key) ?? [], total / requests]);
        console.error(
          `round ${round + 1} ${scenario.name} ${name}: ${
            fmt(total / requests)
          } (${requests} requests)`,
        );
      }
    }
    for (const path of scripts.values()) await Deno.remove(path);
  }
} finally {
  for (const server of running.values()) await server.stop();
  await Deno.remove(dir, { recursive: true });
}

const cell = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${fmt(median(values))} (${fmt(sorted[0]!)}–${fmt(sorted.at(-1)!)})`;
};
console.log(
  `| request | fetchkit instructions/request | hono instructions/request | fetchkit ÷ hono (medians) |`,
);
console.log("|---|---:|---:|---:|");
for (const scenario of SCENARIOS) {
  const ours = counts.get(`${scenario.name}|fetchkit`)!;
  const hono = counts.get(`${scenario.name}|hono`)!;
  console.log(
    `| ${scenario.name} | ${cell(ours)} | ${cell(hono)} | ${
      (median(ours) / median(hono)).toFixed(2)
    } |`,
  );
}
console.log(
  `\nmedian (min–max) of ${rounds} interleaved windows × ${seconds} s, ${CONNECTIONS} connections, under callgrind`,
);
