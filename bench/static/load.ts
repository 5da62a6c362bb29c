/**
 * Static files through real sockets: a 1 KiB and a 10 MiB file from our
 * `serveStatic` and from Hono's `serveStatic` (`hono/deno`), each
 * `Deno.serve`d in its own process on 127.0.0.1 and loaded by `wrk` in
 * interleaved rounds (fetchkit, Hono, fetchkit, Hono, ...). Bounded: it
 * stops by itself and ends the servers it started. Run it alone:
 *
 *     flock /tmp/fetchkit-bench.lock deno run --allow-all bench/static/load.ts [rounds=5] [seconds=5] [--bodies]
 *
 * With `--bodies`, it compares instead three bare `Deno.serve` handlers
 * sending the 1 KiB file as bytes, as its stream with `Content-Length`, and
 * as its stream without it.
 *
 * Prints requests/second and MiB/s per server and file (medians of the
 * rounds) and the spread (lowest and highest round).
 *
 * @module
 */

import { median } from "../_stats.ts";
import { type ServerProcess, startServer, stopServer, wrk } from "../_load.ts";

const bodies = Deno.args.includes("--bodies");
const [rounds = 5, seconds = 5] = Deno.args.filter((arg) => arg !== "--bodies")
  .map(Number);
const SERVERS = bodies
  ? ["bare-bytes", "bare-stream-length", "bare-stream"]
  : ["fetchkit", "hono"];
// Fewer connections for the large file: 32 parallel 10 MiB bodies would
// time wrk out on a 2-core machine.
const ALL_FILES = [
  { name: "1 KiB", file: "small.txt", size: 1024, connections: 32 },
  { name: "10 MiB", file: "large.bin", size: 10 * 1024 * 1024, connections: 4 },
];
const FILES = bodies ? ALL_FILES.slice(0, 1) : ALL_FILES;
const SCRIPT = new URL("./_servers.ts", import.meta.url).pathname;

const root = await Deno.makeTempDir({ prefix: "static-bench-" });
for (const { file, size } of FILES) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = 32 + (i % 95);
  await Deno.writeFile(`${root}/${file}`, bytes);
}
const servers = new Map<string, ServerProcess>();
try {
  for (const name of SERVERS) {
    servers.set(
      name,
      await startServer(SCRIPT, [name, root], { allowRead: true }),
    );
  }
  // Both must serve the same bytes before anything is timed.
  for (const [name, { port }] of servers) {
    for (const { file, size } of FILES) {
      const response = await fetch(`http://127.0.0.1:${port}/${file}`);
      const length = (await response.arrayBuffer()).byteLength;
      if (response.status !== 200 || length !== size) {
        throw new Error(`${name} /${file}: ${response.status}, ${length} B`);
      }
    }
  }
  const results = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const { name: fileName, file, connections } of FILES) {
      for (const name of SERVERS) {
        const rps = await wrk(
          `http://127.0.0.1:${servers.get(name)!.port}/${file}`,
          { seconds, connections },
        );
        const key = `${fileName}|${name}`;
        results.set(key, [...(results.get(key) ?? []), rps]);
      }
    }
  }
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const spread = (values: number[]) =>
    `${fmt(Math.min(...values))}-${fmt(Math.max(...values))}`;
  console.log(
    `| file | ${
      SERVERS.map((name) => `${name} req/s (rounds)`).join(" | ")
    } | ${
      SERVERS.slice(1).map((name) => `${SERVERS[0]} vs ${name}`).join(" | ")
    } |`,
  );
  console.log(`| --- |${" ---: |".repeat(2 * SERVERS.length - 1)}`);
  for (const { name: fileName, size } of FILES) {
    const runs = SERVERS.map((name) => results.get(`${fileName}|${name}`)!);
    const medians = runs.map(median);
    const cells = runs.map((values, i) =>
      `${fmt(medians[i])} (${spread(values)}), ${
        (medians[i] * size / 1048576).toFixed(0)
      } MiB/s`
    );
    const ratios = medians.slice(1).map((other) =>
      `${(medians[0] / other).toFixed(2)}x`
    );
    console.log(
      `| ${fileName} | ${cells.join(" | ")} | ${ratios.join(" | ")} |`,
    );
  }
  console.log(
    `\n${rounds} interleaved rounds of ${seconds} s per server and file; wrk -t1 (-c32 for 1 KiB, -c4 for 10 MiB); medians (lowest-highest round).`,
  );
} finally {
  for (const server of servers.values()) await stopServer(server);
  await Deno.remove(root, { recursive: true });
}
