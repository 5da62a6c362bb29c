// Over HTTP: wrk POSTs the 1 KB (or 100 KB) order to three Deno.serve
// servers, each in its own process: fetchkit with parseJson, fetchkit with
// `request.json()` + the schema in the handler, and Hono with
// sValidator('json'). Rounds interleave the servers (A B C, A B C, ...);
// prints req/s medians and ranges. Every answer must be 200.
//
//   deno run --allow-all bench/validation/http_load.ts [rounds=5] [seconds=5] [1k|100k]
import { startServer, stopServer, wrkRun } from "../_load.ts";
import { LARGE, SMALL } from "./_fixtures.ts";

const rounds = Number(Deno.args[0] ?? 5);
const seconds = Number(Deno.args[1] ?? 5);
const size = Deno.args[2] ?? "1k";
const body = size === "100k" ? LARGE : SMALL;
const SERVERS = ["fetchkit", "fetchkit-bare", "hono"];

const script = await Deno.makeTempFile({ suffix: ".lua" });
await Deno.writeTextFile(
  script,
  `wrk.method = "POST"
wrk.body = ${JSON.stringify(body)}
wrk.headers["Content-Type"] = "application/json"
`,
);
const servers = await Promise.all(
  SERVERS.map((name) =>
    startServer(new URL("./_http_server.ts", import.meta.url).pathname, [name])
  ),
);
try {
  const rps: Record<string, number[]> = {};
  // Warm-up: one short run each.
  for (const server of servers) {
    await wrkRun(`http://127.0.0.1:${server.port}/orders`, {
      seconds: 2,
      script,
    });
  }
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < SERVERS.length; i++) {
      const result = await wrkRun(
        `http://127.0.0.1:${servers[i].port}/orders`,
        { seconds, script },
      );
      if (result.non2xx > 0 || result.socketErrors) {
        throw new Error(`errors under load:\n${result.text}`);
      }
      (rps[SERVERS[i]] ??= []).push(result.rps);
    }
  }
  const median = (xs: number[]) =>
    [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(
    `POST ${size} JSON (${body.length} bytes), wrk -t1 -c32, ${rounds} × ${seconds} s:`,
  );
  for (const name of SERVERS) {
    const xs = rps[name];
    console.log(
      `  ${name}: ${Math.round(median(xs))} req/s [${
        Math.round(Math.min(...xs))
      }-${Math.round(Math.max(...xs))}]`,
    );
  }
  console.log(
    `  fetchkit / Hono: ${
      (median(rps.fetchkit) / median(rps.hono)).toFixed(3)
    }`,
  );
} finally {
  await Promise.all(servers.map(stopServer));
  await Deno.remove(script);
}
