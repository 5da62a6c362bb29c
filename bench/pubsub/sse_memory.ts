/**
 * Memory per idle SSE stream: the live board (`examples/live/main.ts`, one
 * pub/sub subscription per stream behind `streamLimit()`) against a bare
 * `createEventStreamResponse()` whose source waits forever
 * (`bench/_sse_server.ts`), each in a fresh process. 1,000 streams are
 * opened over raw loopback sockets from this process; the server's RSS
 * (`/proc/<pid>/status`) is read before and 3 s after, and the difference
 * divided by 1,000. Servers alternate (A B A B).
 *
 * ```sh
 * deno run --allow-all bench/pubsub/sse_memory.ts [rounds=3]
 * ```
 *
 * @module
 */

import net from "node:net";
import { median } from "../_stats.ts";

const STREAMS = 1000;
const LIVE = new URL("../../examples/live/main.ts", import.meta.url).pathname;
const BARE = new URL("../_sse_server.ts", import.meta.url).pathname;

async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]);
}

async function measure(kind: "live" | "bare"): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: kind === "live"
      ? ["run", "--allow-all", LIVE]
      // heartbeat 15 s, an event every hour: idle
      : ["run", "--allow-all", BARE, "15000", "3600000"],
    env: {
      PORT: "0",
      STREAMS_TOTAL: "5000",
      STREAMS_PER_ADDRESS: "5000",
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) first += (await reader.read()).value ?? "";
  const drain = (async () => {
    while (!(await reader.read()).done) { /* log lines */ }
  })();
  const port = Number(/listening (\d+)/.exec(first)![1]);
  const sockets: net.Socket[] = [];
  try {
    // One request first, so lazily loaded code is in the baseline.
    await openStreams(port, 1, sockets);
    sockets.pop()!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = await rssKiB(child.pid);
    await openStreams(port, STREAMS, sockets);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await rssKiB(child.pid);
    return (after - before) / STREAMS;
  } finally {
    for (const socket of sockets) socket.destroy();
    child.kill("SIGTERM");
    await child.status;
    await drain.catch(() => {});
  }
}

async function openStreams(
  port: number,
  count: number,
  sockets: net.Socket[],
): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await Promise.all(
      Array.from(
        { length: Math.min(100, count - i) },
        () =>
          new Promise<void>((resolve, reject) => {
            const socket = net.connect({ host: "127.0.0.1", port });
            sockets.push(socket);
            socket.on("connect", () =>
              socket.write(
                "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
              ));
            socket.once("data", (chunk) => {
              if (!String(chunk).startsWith("HTTP/1.1 200")) {
                reject(
                  new Error(`stream refused: ${String(chunk).slice(0, 80)}`),
                );
              } else resolve();
            });
            socket.on("error", reject);
          }),
      ),
    );
  }
}

const rounds = Number(Deno.args[0] ?? 3);
const results: Record<string, number[]> = { live: [], bare: [] };
for (let r = 0; r < rounds; r++) {
  for (const kind of ["live", "bare"] as const) {
    const kib = await measure(kind);
    results[kind].push(kib);
    console.log(`round ${r + 1} ${kind}: ${kib.toFixed(1)} KiB per stream`);
  }
}
for (const kind of ["live", "bare"] as const) {
  const values = results[kind];
  console.log(
    `${kind}: median ${median(values).toFixed(1)} KiB per idle stream (${
      Math.min(...values).toFixed(1)
    }-${Math.max(...values).toFixed(1)})`,
  );
}
