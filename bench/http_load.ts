/**
 * HTTP load through real sockets: the same small app on our router, a Hono
 * app and Remix's fetch-router, each `Deno.serve`d in its own process on
 * 127.0.0.1, loaded by `wrk` (Debian package) in interleaved rounds.
 * Bounded: each round is `seconds` long per server and path; it stops by
 * itself and ends the servers it started.
 *
 *     deno run --allow-all bench/http_load.ts [rounds=3] [seconds=5]
 *
 * Prints requests/second per server and path (median of the rounds).
 *
 * @module
 */

import { median } from "./_stats.ts";
import { type ServerProcess, startServer, stopServer, wrk } from "./_load.ts";

const rounds = Number(Deno.args[0] ?? 3);
const seconds = Number(Deno.args[1] ?? 5);
const SERVERS = ["fetchkit", "hono", "remix"] as const;
const PATHS = [
  { name: "GET / (static)", path: "/", script: undefined },
  {
    name: "GET /users/:id (param, JSON)",
    path: "/users/42",
    script: undefined,
  },
  { name: "POST /echo (urlencoded body)", path: "/echo", script: "post.lua" },
];

const SERVER_SCRIPT = new URL("./_http_servers.ts", import.meta.url).pathname;

const dir = await Deno.makeTempDir();
await Deno.writeTextFile(
  `${dir}/post.lua`,
  `wrk.method = "POST"\nwrk.body = "text=hello+world&n=1"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
);
const servers = new Map<string, ServerProcess>();
try {
  for (const name of SERVERS) {
    servers.set(name, await startServer(SERVER_SCRIPT, [name]));
  }
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const { name: pathName, path, script } of PATHS) {
      for (const name of SERVERS) {
        const rps = await wrk(
          `http://127.0.0.1:${servers.get(name)!.port}${path}`,
          { seconds, script: script && `${dir}/${script}` },
        );
        const key = `${pathName}|${name}`;
        results.set(key, [...(results.get(key) ?? []), rps]);
      }
    }
  }
  console.log(
    `| path | fetchkit req/s | Hono req/s | Remix req/s | ours vs Hono | ours vs Remix |`,
  );
  console.log(`| --- | ---: | ---: | ---: | ---: | ---: |`);
  for (const { name: pathName } of PATHS) {
    const [ours, hono, remix] = SERVERS.map((name) =>
      median(results.get(`${pathName}|${name}`)!)
    );
    const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
    console.log(
      `| ${pathName} | ${fmt(ours)} | ${fmt(hono)} | ${fmt(remix)} | ${
        (ours / hono).toFixed(2)
      }x | ${(ours / remix).toFixed(2)}x |`,
    );
  }
  console.log(
    `\n${rounds} interleaved rounds of ${seconds} s per server and path; wrk -t1 -c32; medians.`,
  );
} finally {
  for (const server of servers.values()) await stopServer(server);
  await Deno.remove(dir, { recursive: true });
}
