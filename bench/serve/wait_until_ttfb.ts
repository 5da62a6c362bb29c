/**
 * Time to first byte with `waitUntil()` work pending, on Deno, Node and
 * Bun: `/work/200` hands 200 ms of work to `waitUntil()` and answers,
 * `/inline/200` awaits the same work before answering, `/none` does no
 * work. A real server process (wait_until/testdata/wait_server.ts under
 * serve()), one request at a time over keep-alive, the three paths
 * interleaved for `--rounds` rounds; the median time from sending the
 * request to the response head, in ms.
 *
 *     deno run -A bench/serve/wait_until_ttfb.ts --runtimes=deno,node,bun --rounds=40
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { commandFor, start } from "../../serve/_test_process.ts";
import { median } from "../_stats.ts";

const args = new Map(
  Deno.args.map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 40);
const SCRIPT = join(ROOT, "wait_until/testdata/wait_server.ts");
const paths = ["/none", "/work/200", "/inline/200"];

console.log(
  "| runtime | no work: TTFB ms | waitUntil(200 ms work): TTFB ms | 200 ms work awaited: TTFB ms |",
);
console.log("| --- | ---: | ---: | ---: |");
for (const runtime of runtimes) {
  const argv = await commandFor(SCRIPT, runtime, "60000");
  if (argv === undefined) {
    console.error(`${runtime}: missing, skipped`);
    continue;
  }
  const server = await start(argv);
  const times: Record<string, number[]> = {};
  try {
    for (let round = -2; round < rounds; round++) {
      for (const path of paths) {
        const started = performance.now();
        const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
        const ttfb = performance.now() - started;
        await response.text();
        if (round >= 0) (times[path] ??= []).push(ttfb); // two warm-up rounds
      }
    }
  } finally {
    server.child.kill("SIGKILL");
    await server.exited;
  }
  console.log(
    `| ${runtime} | ${
      paths.map((path) => median(times[path]!).toFixed(2)).join(" | ")
    } |`,
  );
}
