/**
 * Time to first byte and to last byte of a streamed page with one slow
 * out-of-order part: our `html` + `html.defer()` + `createHtmlResponse()`
 * against Hono's `jsxRenderer({ stream: true })` + `<Suspense>`, the same
 * page (`_stream_servers.tsx`, both in one server process). The client
 * (this process) alternates between the two, one request at a time, and
 * reads each body to its end: first byte is the first body chunk's arrival
 * (headers and the shell), last byte the end of the stream. With a delay of
 * 0 ms the slow part resolves on the next timer turn, so the times are the
 * rendering and streaming overhead; with 20 ms, that wait plus overhead.
 *
 * Run: deno run --allow-net --allow-run --allow-read --allow-env bench/html/stream_ttfb.ts [requests] [delays...]
 */
import { median, quantile } from "../_stats.ts";
import { freePort, spawnReady } from "../_load.ts";

const requests = Number(Deno.args[0] ?? 400);
const delays = Deno.args.length > 1 ? Deno.args.slice(1).map(Number) : [0, 20];
const root = new URL("../../", import.meta.url).pathname;

async function timeOne(url: string): Promise<[number, number, string]> {
  const start = performance.now();
  const response = await fetch(url);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let first = 0;
  let text = "";
  for (;;) {
    const step = await reader.read();
    if (first === 0) first = performance.now() - start;
    if (step.done) break;
    text += decoder.decode(step.value, { stream: true });
  }
  return [first, performance.now() - start, text];
}

console.log(
  `Deno ${Deno.version.deno}, ${requests} requests each, alternating, one at a time; ms, median (p90)\n`,
);
console.log(
  "| slow part | fetchkit first byte | Hono first byte | fetchkit last byte | Hono last byte |",
);
console.log("| ---: | ---: | ---: | ---: | ---: |");
for (const delay of delays) {
  const ours = freePort();
  const hono = freePort();
  const server = await spawnReady(
    [
      Deno.execPath(),
      "run",
      "--allow-net",
      "--allow-env",
      "bench/html/_stream_servers.tsx",
      String(ours),
      String(hono),
      String(delay),
    ],
    ours,
    { cwd: root, what: "stream servers" },
  );
  try {
    const urls = [`http://127.0.0.1:${ours}/`, `http://127.0.0.1:${hono}/`];
    // Both pages hold every comment, and their first chunk only the shell.
    for (const url of urls) {
      const [, , text] = await timeOne(url);
      for (let i = 0; i < 10; i++) {
        if (!text.includes(`Comment &lt;${i}&gt;`)) {
          throw new Error(`${url} lacks comment ${i}`);
        }
      }
    }
    for (let i = 0; i < 50; i++) await timeOne(urls[i % 2]); // warm up
    const first: [number[], number[]] = [[], []];
    const last: [number[], number[]] = [[], []];
    for (let i = 0; i < requests * 2; i++) {
      // ABBA order, so neither always goes first.
      const k = [0, 1, 1, 0][i % 4];
      const [f, l] = await timeOne(urls[k]);
      first[k].push(f);
      last[k].push(l);
    }
    const cell = (values: number[]) =>
      `${median(values).toFixed(2)} (${quantile(values, 0.9).toFixed(2)})`;
    console.log(
      `| ${delay} ms | ${cell(first[0])} | ${cell(first[1])} | ${
        cell(last[0])
      } | ${cell(last[1])} |`,
    );
  } finally {
    await server.stop();
  }
}
