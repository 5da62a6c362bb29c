/**
 * Summarizes several runs of `router_bench.ts` (beside this file) into the Markdown tables of
 * `BENCHMARKS.md`: per benchmark, the median over runs of `deno bench`'s
 * time/iter (its mean), and our time against each peer's.
 *
 * A single run on a noisy 2-core machine can be off by 2x, so the tables
 * are built from the medians of several runs, each with every peer inside.
 *
 * ```sh
 * for i in 1 2 3 4 5; do
 *   deno bench --allow-all --json bench/router/router_bench.ts > /tmp/router_$i.json
 * done
 * deno run --allow-read bench/router/report.ts /tmp/router_*.json
 * ```
 *
 * @module
 */

import { median } from "../_stats.ts";

interface BenchResult {
  group: string;
  name: string;
  results: { ok?: { avg: number } }[];
}

interface Run {
  runtime: string;
  cpu: string;
  benches: BenchResult[];
}

function time(ns: number): string {
  return ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(1)} ns`;
}

/** `1.8× faster` or `2.9× slower`: how our time compares with a peer's. */
function ratio(ours: number, peer: number): string {
  return ours <= peer
    ? `${(peer / ours).toFixed(2)}× faster`
    : `**${(ours / peer).toFixed(2)}× slower**`;
}

if (import.meta.main) {
  const runs: Run[] = [];
  for (const file of Deno.args) {
    runs.push(JSON.parse(await Deno.readTextFile(file)));
  }
  if (runs.length === 0) {
    throw new TypeError("Pass the JSON files of `deno bench --json` runs");
  }
  // group -> name -> one time per run, in the bench file's order.
  const times = new Map<string, Map<string, number[]>>();
  for (const run of runs) {
    for (const { group, name, results } of run.benches) {
      const avg = results[0]?.ok?.avg;
      if (avg === undefined) throw new Error(`${group} / ${name} failed`);
      if (!times.has(group)) times.set(group, new Map());
      const byName = times.get(group)!;
      if (!byName.has(name)) byName.set(name, []);
      byName.get(name)!.push(avg);
    }
  }
  // Each set ("match 12 routes", ...) gets its own table.
  const tables = new Map<string, string[]>();
  for (const [group, byName] of times) {
    const [set, lookup] = group.split(": ");
    const names = [...byName.keys()];
    const [ours, ...peers] = names.map((name) => median(byName.get(name)!));
    if (!tables.has(set)) {
      const versus = names.slice(1).map((name) =>
        `ours vs ${name.split(" ")[0]}`
      );
      tables.set(set, [
        `**${set}**`,
        "",
        `| lookup | ${[...names, ...versus].join(" | ")} |`,
        `|${" --- |".repeat(names.length + versus.length + 1)}`,
      ]);
    }
    const cells = [
      lookup,
      time(ours),
      ...peers.map(time),
      ...peers.map((peer) => ratio(ours, peer)),
    ];
    tables.get(set)!.push(`| ${cells.join(" | ")} |`);
  }
  console.log(
    [...tables.values()].map((lines) => lines.join("\n")).join("\n\n"),
  );
  console.log(
    `\n${runs.length} runs; ${runs[0].runtime}; ${runs[0].cpu}`,
  );
}
