/**
 * Interleaved rounds (A B A B ...) of in-process `app.fetch` calls, timed
 * by process CPU time (`process.cpuUsage()`, all threads: Web Crypto's
 * work counts wherever it runs) and wall time. Shared by the scripts of
 * `bench/jwt/` and `bench/tracing/`.
 */
import process from "node:process";
import { median, quantile } from "../_stats.ts";

/** One contender: a name and one request-response cycle. */
export interface Contender {
  name: string;
  run: () => Promise<void>;
}

/** Per-request figures of a contender over the rounds, in ns. */
export interface RoundResult {
  name: string;
  cpuNs: number[];
  wallNs: number[];
}

/** Runs `rounds` rounds of `perRound` requests for each contender in turn. */
export async function interleave(
  contenders: readonly Contender[],
  rounds: number,
  perRound: number,
): Promise<RoundResult[]> {
  const results = contenders.map((c) => ({
    name: c.name,
    cpuNs: [] as number[],
    wallNs: [] as number[],
  }));
  // Warm-up: JIT and caches.
  for (const contender of contenders) {
    for (let i = 0; i < perRound; i++) await contender.run();
  }
  for (let round = 0; round < rounds; round++) {
    // Alternate the order too, so no contender always runs after another.
    const order = round % 2 === 0
      ? contenders.map((_, i) => i)
      : contenders.map((_, i) => contenders.length - 1 - i);
    for (const index of order) {
      const contender = contenders[index];
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < perRound; i++) await contender.run();
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      results[index].cpuNs.push(
        ((used.user + used.system) * 1000) / perRound,
      );
      results[index].wallNs.push((wall * 1e6) / perRound);
    }
  }
  return results;
}

function format(ns: number): string {
  return ns >= 10_000 ? `${(ns / 1000).toFixed(1)} µs` : `${ns.toFixed(0)} ns`;
}

/** Prints a Markdown table: median and interquartile range per contender. */
export function report(results: readonly RoundResult[]): void {
  console.log(
    "| contender | CPU median | CPU p25–p75 | wall median | wall p25–p75 |",
  );
  console.log("|---|---|---|---|---|");
  for (const { name, cpuNs, wallNs } of results) {
    console.log(
      `| ${name} | ${format(median(cpuNs))} | ${
        format(quantile(cpuNs, 0.25))
      }–${format(quantile(cpuNs, 0.75))} | ${format(median(wallNs))} | ${
        format(quantile(wallNs, 0.25))
      }–${format(quantile(wallNs, 0.75))} |`,
    );
  }
}
