/**
 * Whether streaming support costs a synchronous template anything: the
 * 50- and 1,000-row tables of `bench/html/` rendered by this tree's `html`
 * and by the tag as it was before holes took Promises (`git show
 * <base>:html/mod.ts`, one self-contained file then), interleaved in one
 * process. CPU time (user + system) per batch, which a busy machine's
 * preemption does not inflate as it does wall time. Prints medians and the
 * spread (min-max of the per-round ratio).
 *
 * Run: deno run --allow-read --allow-write --allow-run=git bench/html/sync_cost.ts [rounds] [base]
 */
import { median } from "../_stats.ts";
import { makeRows, type Row } from "../_html_table.ts";
import { html as current } from "@fetchkit/toolkit/html-template";
import { cpuUsage } from "node:process";

const rounds = Number(Deno.args[0] ?? 21);
const base = Deno.args[1] ?? "8dca12c";
const source = new Deno.Command("git", {
  args: ["show", `${base}:html/mod.ts`],
  stdout: "piped",
}).outputSync();
if (!source.success) throw new Error(`git show ${base}:html/mod.ts failed`);
const file = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeFile(file, source.stdout);
const before = (await import(`file://${file}`)).html as typeof current;
await Deno.remove(file);

type Tag = typeof current;
// deno-fmt-ignore: the formatter would reflow the HTML inside the template.
function table(tag: Tag, rows: Row[]): string {
  return String(tag`<table class="users">
<thead><tr><th>Id</th><th>Name</th><th>Email</th><th>Role</th></tr></thead>
<tbody>${rows.map((row) => tag`<tr class="${row.role}"><td>${row.id}</td><td>${row.name}</td><td><a href="mailto:${row.email}">${row.email}</a></td><td>${row.role}</td></tr>`)}</tbody>
</table>`);
}

const sample = makeRows(30);
if (table(current, sample) !== table(before, sample)) {
  throw new Error("the two tags render different tables");
}
console.log(
  `Deno ${Deno.version.deno}, ${rounds} interleaved rounds, median CPU µs per table (base ${base})\n`,
);
console.log("| rows | before | now | now / before (min-max per round) |");
console.log("| ---: | ---: | ---: | ---: |");
for (const count of [50, 1000]) {
  const rows = makeRows(count);
  const iterations = Math.max(100, Math.round(1_000_000 / count));
  for (let i = 0; i < iterations; i++) {
    table(before, rows);
    table(current, rows);
  }
  const times: [number[], number[]] = [[], []];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const pair = [0, 0];
    for (const k of order) {
      const tag = k === 0 ? before : current;
      const start = cpuUsage();
      for (let i = 0; i < iterations; i++) table(tag, rows);
      const used = cpuUsage(start);
      pair[k] = (used.user + used.system) / iterations;
      times[k].push(pair[k]);
    }
    ratios.push(pair[1] / pair[0]);
  }
  ratios.sort((a, b) => a - b);
  console.log(
    `| ${count} | ${median(times[0]).toFixed(1)} | ${
      median(times[1]).toFixed(1)
    } | ${median(ratios).toFixed(3)} (${ratios[0].toFixed(2)}-${
      ratios[ratios.length - 1].toFixed(2)
    }) |`,
  );
}
