/**
 * Medians of interleaved rounds for the `html` table benchmarks; prints a
 * Markdown table for BENCHMARKS.md.
 *
 * Run: deno run bench/html/report.ts [rounds]
 */
import { median } from "../_stats.ts";
import {
  makeRows,
  renderHono,
  renderOurs,
  renderPlain,
  type Row,
} from "../_html_table.ts";

const rounds = Number(Deno.args[0] ?? 15);
const contenders: [string, (rows: Row[]) => string][] = [
  ["plain", renderPlain],
  ["fetchkit", renderOurs],
  ["hono", renderHono],
];
// The three must produce the same page, or the comparison means nothing.
const sample = makeRows(30);
for (const [name, render] of contenders) {
  if (render(sample) !== renderPlain(sample)) {
    throw new Error(`${name} renders a different table`);
  }
}

console.log(
  `Deno ${Deno.version.deno}, ${rounds} interleaved rounds, median µs per table\n`,
);
console.log(
  "| rows | plain concatenation | fetchkit `html` | Hono `html` | ours / plain | Hono / ours |",
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
for (const count of [50, 1000]) {
  const rows = makeRows(count);
  const iterations = Math.max(20, Math.round(200_000 / count));
  for (const [, render] of contenders) {
    for (let i = 0; i < iterations; i++) render(rows);
  }
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (k + round) % contenders.length;
      const render = contenders[index][1];
      const start = performance.now();
      for (let i = 0; i < iterations; i++) render(rows);
      times[index].push(((performance.now() - start) * 1000) / iterations);
    }
  }
  const [plain, ours, hono] = times.map(median);
  console.log(
    `| ${count} | ${plain.toFixed(1)} µs | ${ours.toFixed(1)} µs | ${
      hono.toFixed(1)
    } µs | ${(ours / plain).toFixed(2)}× | ${(hono / ours).toFixed(2)}× |`,
  );
}
