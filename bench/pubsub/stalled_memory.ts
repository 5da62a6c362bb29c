/**
 * Memory with clients that stopped reading: the live board
 * (`examples/live/main.ts`, memory pub/sub) with 100 event streams whose
 * clients never read, while 5,000 messages of 500 characters are posted
 * (each stream is offered 5,000 events of about 600 bytes: 3 MB, 300 MB
 * for the 100 if nothing bounded them). The server's RSS is read before
 * the posts, after them, and once more 3 s later; its log says how many
 * streams were dropped for falling 1,000 events behind.
 *
 * ```sh
 * deno run --allow-all bench/pubsub/stalled_memory.ts [rounds=2] [posts=5000]
 * ```
 *
 * @module
 */

import net from "node:net";

const MAIN = new URL("../../examples/live/main.ts", import.meta.url).pathname;
const STALLED = 100;
const POSTS = Number(Deno.args[1] ?? 5000);

async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function round(): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN],
    env: {
      PORT: "0",
      POSTS_PER_MINUTE: "1000000",
      STREAMS_PER_ADDRESS: "1000",
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("\n")) output += (await reader.read()).value ?? "";
  const port = Number(/listening (\d+)/.exec(output)![1]);
  let log = "";
  const drain = (async () => {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      // Keep only the lines that matter: the rest is one line per request.
      for (const line of value.split("\n")) {
        if (line.includes("event stream ended")) log += line + "\n";
      }
    }
  })();
  const sockets: net.Socket[] = [];
  try {
    for (let i = 0; i < STALLED; i++) {
      const socket = net.connect({ host: "127.0.0.1", port });
      socket.on("error", () => {});
      socket.write(
        "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
      );
      socket.pause(); // never reads
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = await rssMiB(child.pid);
    const text = "x".repeat(500);
    let peak = before;
    for (let i = 0; i < POSTS; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/messages`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "bench", text }),
      });
      await response.body?.cancel();
      if (i % 500 === 0) peak = Math.max(peak, await rssMiB(child.pid));
    }
    const after = await rssMiB(child.pid);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const settled = await rssMiB(child.pid);
    const dropped = (log.match(/fell 1000 events behind/g) ?? []).length;
    return `RSS ${before.toFixed(1)} MiB before, peak ${
      Math.max(peak, after).toFixed(1)
    }, ${after.toFixed(1)} after, ${
      settled.toFixed(1)
    } 3 s later; ${dropped} of ${STALLED} stalled streams dropped`;
  } finally {
    for (const socket of sockets) socket.destroy();
    child.kill("SIGTERM");
    await child.status;
    await drain.catch(() => {});
  }
}

const rounds = Number(Deno.args[0] ?? 2);
for (let r = 1; r <= rounds; r++) console.log(`round ${r}: ${await round()}`);
