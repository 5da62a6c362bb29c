// Interleaved rounds for the cache and idempotency benchmarks: each round
// runs every contender once, in turn (A B C A B C ...), so load from other
// processes falls on all of them alike; per operation, wall time and this
// process's CPU time (user + system, so Deno KV's SQLite counts), medians
// and quartiles over rounds.

import { cpuUsage } from "node:process";
import { median, quantile } from "../_stats.ts";

/** One contender: an async operation run `n` times a round. */
export interface Contender {
  name: string;
  run: () => Promise<unknown>;
}

/** Per-operation figures of one contender, in microseconds. */
export interface Figures {
  name: string;
  wall: number;
  wallLow: number;
  wallHigh: number;
  cpu: number;
  cpuLow: number;
  cpuHigh: number;
}

/** Runs `rounds` rounds of `n` operations of each contender. */
export async function interleave(
  contenders: readonly Contender[],
  rounds: number,
  n: number,
): Promise<Figures[]> {
  const wall = contenders.map(() => [] as number[]);
  const cpu = contenders.map(() => [] as number[]);
  // Warm-up: one short round, not counted.
  for (const contender of contenders) {
    for (let i = 0; i < Math.min(n, 500); i++) await contender.run();
  }
  for (let round = 0; round < rounds; round++) {
    for (const [index, contender] of contenders.entries()) {
      const cpuStart = cpuUsage();
      const start = performance.now();
      for (let i = 0; i < n; i++) await contender.run();
      const elapsed = performance.now() - start;
      const used = cpuUsage(cpuStart);
      wall[index].push((elapsed * 1000) / n);
      cpu[index].push((used.user + used.system) / n);
    }
  }
  return contenders.map((contender, index) => ({
    name: contender.name,
    wall: median(wall[index]),
    wallLow: quantile(wall[index], 0.25),
    wallHigh: quantile(wall[index], 0.75),
    cpu: median(cpu[index]),
    cpuLow: quantile(cpu[index], 0.25),
    cpuHigh: quantile(cpu[index], 0.75),
  }));
}

/** A markdown table of figures, each also as a ratio to the first row. */
export function table(figures: readonly Figures[]): string {
  const base = figures[0];
  const f = (value: number) => value.toFixed(2);
  const lines = [
    "| contender | wall µs/op (median, IQR) | CPU µs/op (median, IQR) | wall / first | CPU / first |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const row of figures) {
    lines.push(
      `| ${row.name} | ${f(row.wall)} (${f(row.wallLow)}-${
        f(row.wallHigh)
      }) | ${f(row.cpu)} (${f(row.cpuLow)}-${f(row.cpuHigh)}) | ${
        (row.wall / base.wall).toFixed(2)
      }x | ${(row.cpu / base.cpu).toFixed(2)}x |`,
    );
  }
  return lines.join("\n");
}

/** `--name value` from the command line, or `fallback`. */
export function option(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Number(Deno.args[at + 1]);
}
