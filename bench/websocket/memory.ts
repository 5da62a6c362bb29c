/**
 * What WebSockets cost a server in memory, `upgradeWebSocket()` through
 * `serve()` against the runtime's bare API, on Deno, Node and Bun:
 *
 * - idle: the server's RSS before and after `--sockets` idle sockets are
 *   opened (by this Deno process), divided by their number;
 * - slow readers: `--readers` clients that complete the handshake and
 *   never read, each sent 16 MiB in 64 KiB messages by the server; the
 *   rise of the server's RSS after 3 s. `upgradeWebSocket()` closes such
 *   a socket (1008) once 4 MiB wait unsent; the bare servers keep
 *   buffering (Bun up to its 16 MiB backpressure limit per socket).
 *
 *     deno run -A bench/websocket/memory.ts --runtimes=deno,node,bun --sockets=1000 --readers=20
 *
 * @module
 */
import { connect, type Socket } from "node:net";
import { options, rssOf, startKind } from "../serve/_process.ts";

const args = options();
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const count = Number(args.get("sockets") ?? 1000);
const readers = Number(args.get("readers") ?? 20);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

function open(port: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error("could not connect"));
  });
}

/** A client that completes the handshake and then never reads. */
function stalledReader(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", reject);
    socket.on("connect", () =>
      socket.write(
        `GET /blast HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ));
    socket.once("data", () => {
      socket.pause();
      resolve(socket);
    });
  });
}

console.log(
  `| runtime | server | RSS per idle socket (KiB, ${count} sockets) | RSS rise with ${readers} slow readers (MiB) |`,
);
console.log("| --- | --- | ---: | ---: |");
for (const runtime of runtimes) {
  for (const kind of ["bare", "serve"]) {
    const server = await startKind(runtime, kind);
    try {
      // Warm: the code paths of an upgrade, a message and a close.
      for (let i = 0; i < 20; i++) (await open(server.port)).close();
      await delay(500);
      const before = await rssOf(server.port);
      const sockets: WebSocket[] = [];
      for (let i = 0; i < count; i++) sockets.push(await open(server.port));
      await delay(2000);
      const idle = (await rssOf(server.port) - before) / count;
      for (const socket of sockets) socket.close();
      await delay(1000);
      const quiet = await rssOf(server.port);
      const stalled: Socket[] = [];
      for (let i = 0; i < readers; i++) {
        stalled.push(await stalledReader(server.port));
      }
      await delay(3000);
      const rise = (await rssOf(server.port) - quiet) / MiB;
      for (const socket of stalled) socket.destroy();
      console.log(
        `| ${runtime} | ${
          kind === "bare" ? "bare" : "serve() + upgradeWebSocket()"
        } | ${(idle / 1024).toFixed(1)} | ${rise.toFixed(1)} |`,
      );
    } finally {
      await server.stop();
    }
  }
}
