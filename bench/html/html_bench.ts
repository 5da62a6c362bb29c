/**
 * Rendering a 50-row and a 1,000-row table: our `html` tag, Hono's `html`
 * helper and plain string concatenation with the same escaping.
 *
 * Run: deno bench bench/html/html_bench.ts
 * Medians of interleaved rounds (what BENCHMARKS.md quotes):
 *      deno run bench/html/report.ts
 */
import {
  makeRows,
  renderHono,
  renderOurs,
  renderPlain,
} from "../_html_table.ts";

for (const count of [50, 1000]) {
  const rows = makeRows(count);
  const group = `table ${count} rows`;
  Deno.bench(
    `plain concatenation (${count})`,
    { group, baseline: true },
    () => {
      renderPlain(rows);
    },
  );
  Deno.bench(`fetchkit html (${count})`, { group }, () => {
    renderOurs(rows);
  });
  Deno.bench(`hono html (${count})`, { group }, () => {
    renderHono(rows);
  });
}
