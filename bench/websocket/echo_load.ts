/**
 * WebSocket echo round trips: `upgradeWebSocket()` through `serve()`
 * against the runtime's bare API (`Deno.upgradeWebSocket`, Bun's
 * `server.upgrade`, `ws` on Node), on Deno, Node and Bun. A Deno client
 * opens `--sockets` sockets, each sending a 32-byte text message and
 * waiting for its echo, over and over, for `--seconds`. Contenders
 * alternate (A B, then B A) for `--rounds` rounds. With `--callgrind`, the
 * server runs under valgrind's callgrind and the figure is instructions
 * per round trip in the server, which the machine's load does not move.
 *
 *     deno run -A bench/websocket/echo_load.ts --runtimes=deno,node,bun --rounds=5 --seconds=4
 *     deno run -A bench/websocket/echo_load.ts --callgrind --rounds=2 --seconds=4
 *
 * @module
 */
import { join } from "node:path";
import { OUT } from "../_runtime_bench.ts";
import { options, startKind } from "../_serve_process.ts";
import { median } from "../_stats.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 5);
const seconds = Number(args.get("seconds") ?? 4);
const sockets = Number(args.get("sockets") ?? 16);
const callgrind = args.has("callgrind");
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

async function control(pid: number, ...flags: string[]): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...flags, String(pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${flags.join(" ")} failed`);
}

async function dumpTotal(file: string): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      const total = /^totals: (\d+)/m.exec(await Deno.readTextFile(file));
      if (total !== null) return Number(total[1]);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

const unit = callgrind ? "instr/round trip" : "round trips/s";
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(
  `| runtime | bare ${unit} | upgradeWebSocket() ${unit} | ours/bare | runs bare | runs ours |`,
);
console.log("| --- | ---: | ---: | ---: | --- | --- |");
for (const runtime of runtimes) {
  const results: Record<string, number[]> = { bare: [], serve: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["bare", "serve"] : ["serve", "bare"];
    for (const kind of order) {
      const file = join(OUT, `callgrind.ws.${runtime}.${kind}.${round}`);
      const server = await startKind(
        runtime,
        kind,
        callgrind
          ? [
            "valgrind",
            "--tool=callgrind",
            "--smc-check=all-non-file",
            "--instr-atstart=no",
            `--callgrind-out-file=${file}`,
          ]
          : [],
      );
      try {
        await echo(server.port, callgrind ? 4 : 1); // warm-up
        if (callgrind) {
          await echo(server.port, 4);
          await control(server.pid, "--zero");
          await control(server.pid, "--instr=on");
          const trips = await echo(server.port, seconds);
          await control(server.pid, "--instr=off");
          await control(server.pid, "--dump");
          results[kind]!.push(await dumpTotal(`${file}.1`) / trips);
        } else {
          results[kind]!.push(await echo(server.port, seconds) / seconds);
        }
      } finally {
        await server.stop();
      }
    }
  }
  const bare = median(results.bare!);
  const ours = median(results.serve!);
  console.log(
    `| ${runtime} | ${fmt(bare)} | ${fmt(ours)} | ${
      (ours / bare).toFixed(3)
    } | ${results.bare!.map(fmt).join(", ")} | ${
      results.serve!.map(fmt).join(", ")
    } |`,
  );
}
