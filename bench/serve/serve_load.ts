/**
 * serve() against the runtime's bare server, req/s on `/` (a short text,
 * so the wrapper's share is as large as it gets), on Deno, Node and Bun.
 * The two alternate (A B, then B A) for `--rounds` rounds; each run is
 * `wrk -t1 -c32` for `--seconds` after a 1 s warm-up.
 *
 *     deno run -A bench/serve/serve_load.ts --runtimes=deno,node,bun --rounds=5 --seconds=5
 *
 * @module
 */
import { wrk } from "../_load.ts";
import { median } from "../_stats.ts";
import { options, startKind } from "../_serve_process.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 5);
const seconds = Number(args.get("seconds") ?? 5);

console.log(
  "| runtime | bare req/s (median) | serve() req/s (median) | serve()/bare | runs bare | runs serve() |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const runtime of runtimes) {
  const results: Record<string, number[]> = { bare: [], serve: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["bare", "serve"] : ["serve", "bare"];
    for (const kind of order) {
      const server = await startKind(runtime, kind);
      try {
        const url = `http://127.0.0.1:${server.port}/`;
        await wrk(url, { seconds: 1 });
        results[kind]!.push(await wrk(url, { seconds }));
      } finally {
        await server.stop();
      }
    }
  }
  const bare = median(results.bare!);
  const ours = median(results.serve!);
  const fmt = (values: number[]) => values.map((v) => Math.round(v)).join(", ");
  console.log(
    `| ${runtime} | ${Math.round(bare)} | ${Math.round(ours)} | ${
      (ours / bare).toFixed(3)
    } | ${fmt(results.bare!)} | ${fmt(results.serve!)} |`,
  );
}
