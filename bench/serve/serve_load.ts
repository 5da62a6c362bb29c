/**
 * serve() against the runtime's bare server on `/` (a short text, so the
 * wrapper's share is as large as it gets), on Deno, Node and Bun: req/s,
 * and the server process's CPU time per request (user and system, from
 * /proc), which other load on a shared machine moves less than req/s;
 * its lowest value too, since other processes only ever add to it.
 * The two alternate (A B A B ...) for `--rounds` rounds; each run is
 * `wrk -t1 -c32` for `--seconds` after a 1 s warm-up.
 *
 *     deno run -A bench/serve/serve_load.ts --runtimes=deno,node,bun --rounds=6 --seconds=4
 *
 * @module
 */
import { wrkRun } from "../_load.ts";
import { median } from "../_stats.ts";
import { cpuSeconds, options, startKind } from "../_serve_process.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 6);
const seconds = Number(args.get("seconds") ?? 4);

console.log(
  "| runtime | bare req/s | serve() req/s | req/s serve()/bare | bare CPU µs/request | serve() CPU µs/request | CPU serve()/bare | lowest CPU bare / serve() |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const runtime of runtimes) {
  const rps: Record<string, number[]> = { bare: [], serve: [] };
  const cpu: Record<string, number[]> = { bare: [], serve: [] };
  for (let round = 0; round < rounds; round++) {
    for (const kind of ["bare", "serve"]) {
      const server = await startKind(runtime, kind);
      try {
        const url = `http://127.0.0.1:${server.port}/`;
        await wrkRun(url, { seconds: 1 });
        const before = await cpuSeconds(server.pid);
        const result = await wrkRun(url, { seconds });
        const used = await cpuSeconds(server.pid) - before;
        if (result.non2xx > 0 || result.socketErrors) {
          throw new Error(`errors under load:\n${result.text}`);
        }
        rps[kind]!.push(result.rps);
        cpu[kind]!.push(used / result.total * 1e6);
        console.error(
          `${runtime} ${kind}: ${Math.round(result.rps)} req/s, ${
            (used / result.total * 1e6).toFixed(2)
          } µs CPU/request`,
        );
      } finally {
        await server.stop();
      }
    }
  }
  const [rb, rs] = [median(rps.bare!), median(rps.serve!)];
  const [cb, cs] = [median(cpu.bare!), median(cpu.serve!)];
  console.log(
    `| ${runtime} | ${Math.round(rb)} | ${Math.round(rs)} | ${
      (rs / rb).toFixed(3)
    } | ${cb.toFixed(2)} | ${cs.toFixed(2)} | ${(cs / cb).toFixed(3)} | ${
      Math.min(...cpu.bare!).toFixed(2)
    } / ${Math.min(...cpu.serve!).toFixed(2)} |`,
  );
}
