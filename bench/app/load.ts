/**
 * Requests per second of the whole auth app against the same app on Hono
 * (`hono.ts`), on Deno, over loopback with Debian's `wrk`: a signed-in
 * `GET /dashboard` and a password `POST /auth/login` (bcrypt at cost 4 in
 * both). Both servers run at once in their own processes (`_server.ts`,
 * Deno KV in memory); each is warmed, then the contenders alternate
 * (fetchkit, hono, fetchkit, hono...) for `rounds` rounds of `seconds`
 * each; the median and the range of each are printed as a Markdown table.
 * On a shared machine req/s move by 10-40 %: `instructions.ts` decides.
 *
 *   deno run -A --unstable-kv bench/app/load.ts [--rounds=3] [--seconds=5] [--connections=16] [--kv=memory|file]
 *
 * @module
 */
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
const connections = Number(args.connections ?? 16);
const dir = await Deno.makeTempDir({ prefix: "app-load-" });

const running = new Map(
  await Promise.all(CONTENDERS.map(async (name) =>
    [
      name,
      await startContender(name, {
        kvPath: args.kv === "file" ? `${dir}/${name}.sqlite` : ":memory:",
      }),
    ] as const
  )),
);
const results = new Map<string, number[]>();
try {
  for (const scenario of SCENARIOS) {
    const scripts = new Map<Contender, string>();
    for (const [name, server] of running) {
      scripts.set(name, await scriptFile(await scenario.script(server.port)));
    }
    const run = async (name: Contender, duration: number) => {
      const server = running.get(name)!;
      const result = await wrkRun(
        `http://127.0.0.1:${server.port}${scenario.path}`,
        { seconds: duration, connections, script: scripts.get(name) },
      );
      if (result.non2xx > 0 || result.socketErrors) {
        throw new Error(`${name} ${scenario.name}: errors\n${result.text}`);
      }
      return result.rps;
    };
    for (const name of CONTENDERS) await run(name, 2);
    for (let round = 0; round < rounds; round++) {
      for (const name of CONTENDERS) {
        const rps = await run(name, seconds);
        const key = `${scenario.name}|${name}`;
        results.set(key, [...results.get(key) ?? [], rps]);
        console.error(
          `round ${round + 1} ${scenario.name} ${name}: ${rps.toFixed(0)}`,
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
  return `${median(values).toFixed(0)} (${sorted[0]!.toFixed(0)}–${
    sorted.at(-1)!.toFixed(0)
  })`;
};
console.log(
  `| request | fetchkit req/s | hono req/s | fetchkit ÷ hono (medians) |`,
);
console.log("|---|---:|---:|---:|");
for (const scenario of SCENARIOS) {
  const ours = results.get(`${scenario.name}|fetchkit`)!;
  const hono = results.get(`${scenario.name}|hono`)!;
  console.log(
    `| ${scenario.name} | ${cell(ours)} | ${cell(hono)} | ${
      (median(ours) / median(hono)).toFixed(2)
    } |`,
  );
}
console.log(
  `\nmedian (min–max) of ${rounds} interleaved rounds × ${seconds} s, ${connections} connections`,
);
