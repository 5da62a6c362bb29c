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

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function start(
  name: string,
): Promise<{ port: number; process: Deno.ChildProcess }> {
  const port = freePort();
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      new URL("./_http_servers.ts", import.meta.url).pathname,
      name,
      String(port),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = process.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  const { value } = await reader.read();
  if (!value?.includes("ready")) {
    throw new Error(`${name} server did not start`);
  }
  reader.releaseLock();
  return { port, process };
}

async function wrk(
  port: number,
  path: string,
  script: string | undefined,
  dir: string,
): Promise<number> {
  const args = ["-t1", "-c32", `-d${seconds}s`, "--latency"];
  if (script) args.push("-s", `${dir}/${script}`);
  args.push(`http://127.0.0.1:${port}${path}`);
  const { stdout, success } = await new Deno.Command("wrk", {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!success || match === null) throw new Error(`wrk failed:\n${text}`);
  if (/Non-2xx or 3xx responses/.test(text)) {
    throw new Error(`errors under load:\n${text}`);
  }
  return Number(match[1]);
}

const dir = await Deno.makeTempDir();
await Deno.writeTextFile(
  `${dir}/post.lua`,
  `wrk.method = "POST"\nwrk.body = "text=hello+world&n=1"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n`,
);
const servers = new Map<string, { port: number; process: Deno.ChildProcess }>();
try {
  for (const name of SERVERS) servers.set(name, await start(name));
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const { name: pathName, path, script } of PATHS) {
      for (const name of SERVERS) {
        const rps = await wrk(servers.get(name)!.port, path, script, dir);
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
  for (const { process } of servers.values()) {
    process.kill("SIGTERM");
    await process.status;
  }
  await Deno.remove(dir, { recursive: true });
}
