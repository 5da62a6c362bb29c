/**
 * Instructions per request of serve() against the runtime's bare server
 * on `/` (a short text), on Deno, Node and Bun: each server runs under
 * valgrind's callgrind with counting off, is warmed with wrk, then counted
 * over `--seconds` of wrk with counting switched on and off by
 * `callgrind_control`, and the count divided by the requests completed.
 * Counts do not depend on what else the machine does; req/s here moves by
 * 10-40 % from run to run.
 *
 *     deno run -A bench/serve/serve_instructions.ts --runtimes=deno,node,bun --rounds=2 --seconds=5
 *
 * @module
 */
import { join } from "node:path";
import { wrkRun } from "../_load.ts";
import { OUT } from "../_runtime_bench.ts";
import { options, startKind } from "../_serve_process.ts";
import { median } from "../_stats.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 2);
const seconds = Number(args.get("seconds") ?? 5);

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

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(
  "| runtime | bare instr/request | serve() instr/request | serve()/bare | runs bare | runs serve() |",
);
console.log("| --- | ---: | ---: | ---: | --- | --- |");
for (const runtime of runtimes) {
  const counts: Record<string, number[]> = { bare: [], serve: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["bare", "serve"] : ["serve", "bare"];
    for (const kind of order) {
      const file = join(OUT, `callgrind.serve.${runtime}.${kind}.${round}`);
      const server = await startKind(runtime, kind, [
        "valgrind",
        "--tool=callgrind",
        "--smc-check=all-non-file",
        "--instr-atstart=no",
        `--callgrind-out-file=${file}`,
      ]);
      const url = `http://127.0.0.1:${server.port}/`;
      const load = async (duration: number) =>
        (await wrkRun(url, { seconds: duration, connections: 4, timeout: 60 }))
          .total;
      try {
        await load(3);
        await load(3);
        await control(server.pid, "--zero");
        await control(server.pid, "--instr=on");
        const requests = await load(seconds);
        await control(server.pid, "--instr=off");
        await control(server.pid, "--dump");
        const total = await dumpTotal(`${file}.1`);
        counts[kind]!.push(total / requests);
        console.error(`${runtime} ${kind}: ${fmt(total / requests)}`);
      } finally {
        await server.stop();
      }
    }
  }
  const bare = median(counts.bare!);
  const ours = median(counts.serve!);
  console.log(
    `| ${runtime} | ${fmt(bare)} | ${fmt(ours)} | ${
      (ours / bare).toFixed(3)
    } | ${counts.bare!.map(fmt).join(", ")} | ${
      counts.serve!.map(fmt).join(", ")
    } |`,
  );
}
