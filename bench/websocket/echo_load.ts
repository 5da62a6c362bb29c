/**
 * WebSocket echo round trips: `upgradeWebSocket()` through `serve()`
 * against the runtime's bare API (`Deno.upgradeWebSocket`, Bun's
 * `server.upgrade`, `ws` on Node), on Deno, Node and Bun. A Deno client
 * opens `--sockets` sockets, each sending a 32-byte text message and
 * waiting for its echo, over and over, for `--seconds`. Reported: round
 * trips per second, and the server process's CPU time per round trip
 * (user and system, from /proc), which other load on a shared machine
 * moves less. Contenders alternate (A B A B ...) for `--rounds` rounds. The
 * lowest CPU figure of each is given too: other processes on a shared
 * machine only ever add to it.
 *
 *     deno run -A bench/websocket/echo_load.ts --runtimes=deno,node,bun --rounds=6 --seconds=3
 *
 * @module
 */
import { cpuSeconds, options, startKind } from "../_serve_process.ts";
import { median } from "../_stats.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 6);
const seconds = Number(args.get("seconds") ?? 3);
const sockets = Number(args.get("sockets") ?? 16);
const MESSAGE = "x".repeat(32);

/** Round trips completed by all sockets in `duration` seconds. */
async function echo(port: number, duration: number): Promise<number> {
  const clients = await Promise.all(
    Array.from(
      { length: sockets },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
          socket.onopen = () => resolve(socket);
          socket.onerror = () => reject(new Error("could not connect"));
        }),
    ),
  );
  let count = 0;
  const end = performance.now() + duration * 1000;
  await Promise.all(clients.map((socket) =>
    new Promise<void>((resolve) => {
      socket.onmessage = () => {
        count++;
        if (performance.now() < end) socket.send(MESSAGE);
        else resolve();
      };
      socket.send(MESSAGE);
    })
  ));
  for (const socket of clients) socket.close();
  return count;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(
  "| runtime | bare round trips/s | ours round trips/s | ours/bare | bare CPU µs/round trip | ours CPU µs/round trip | CPU ours/bare | lowest CPU bare / ours |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const runtime of runtimes) {
  const rate: Record<string, number[]> = { bare: [], serve: [] };
  const cpu: Record<string, number[]> = { bare: [], serve: [] };
  for (let round = 0; round < rounds; round++) {
    for (const kind of ["bare", "serve"]) {
      const server = await startKind(runtime, kind);
      try {
        await echo(server.port, 1); // warm-up
        const before = await cpuSeconds(server.pid);
        const trips = await echo(server.port, seconds);
        const used = await cpuSeconds(server.pid) - before;
        rate[kind]!.push(trips / seconds);
        cpu[kind]!.push(used / trips * 1e6);
        console.error(
          `${runtime} ${kind}: ${fmt(trips / seconds)}/s, ${
            (used / trips * 1e6).toFixed(2)
          } µs CPU/round trip`,
        );
      } finally {
        await server.stop();
      }
    }
  }
  const [rb, rs] = [median(rate.bare!), median(rate.serve!)];
  const [cb, cs] = [median(cpu.bare!), median(cpu.serve!)];
  console.log(
    `| ${runtime} | ${fmt(rb)} | ${fmt(rs)} | ${(rs / rb).toFixed(3)} | ${
      cb.toFixed(2)
    } | ${cs.toFixed(2)} | ${(cs / cb).toFixed(3)} | ${
      Math.min(...cpu.bare!).toFixed(2)
    } / ${Math.min(...cpu.serve!).toFixed(2)} |`,
  );
}
