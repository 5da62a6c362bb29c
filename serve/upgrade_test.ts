// Sockets serve() takes over for WebSockets, against clients that go
// silent or flood: real server processes (serve/testdata/upgrade_server.ts)
// measured from outside, by their open descriptors and their RSS.
// Deno-only (it reads /proc and spawns the runtimes).
import assert from "node:assert/strict";
import {
  commandFor,
  REQUIRE_ALL,
  start,
  type Started,
} from "./_test_process.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const linux = Deno.build.os === "linux";

/** Open TCP sockets of a process (its listener included). */
function socketsOf(pid: number): number {
  let count = 0;
  for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
    try {
      if (
        Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`).startsWith("socket:")
      ) count++;
    } catch {
      // closed while listed
    }
  }
  return count;
}

/** Resident memory of a process, in MiB. */
function rssOf(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024;
}

async function server(
  runtime: string,
  ...args: string[]
): Promise<Started | undefined> {
  const argv = await commandFor("upgrade_server.ts", runtime, ...args);
  if (argv === undefined) {
    if (REQUIRE_ALL) throw new Error(`${runtime} is missing`);
    console.log(`skipped: ${runtime} is missing`);
    return undefined;
  }
  return await start(argv);
}

async function stop(started: Started): Promise<void> {
  try {
    started.child.kill("SIGKILL");
  } catch { /* exited */ }
  await started.exited;
}

const encoder = new TextEncoder();

function upgradeRequest(port: number, path: string): Uint8Array {
  return encoder.encode(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
      "Sec-WebSocket-Version: 13\r\n\r\n",
  );
}

/** Opens `count` connections that each send an upgrade and then nothing. */
async function silentUpgrades(
  port: number,
  path: string,
  count: number,
): Promise<Deno.TcpConn[]> {
  const connections: Deno.TcpConn[] = [];
  for (let i = 0; i < count; i++) {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    await connection.write(upgradeRequest(port, path));
    connections.push(connection);
  }
  return connections;
}

/** Waits until the process holds at most `most` sockets; returns what it held. */
async function heldAfter(
  pid: number,
  most: number,
  withinMs: number,
): Promise<number> {
  const until = Date.now() + withinMs;
  let held = socketsOf(pid);
  while (held > most && Date.now() < until) {
    await delay(200);
    held = socketsOf(pid);
  }
  return held;
}

Deno.test({
  name:
    "node: silent upgrade requests (refused, unanswered, or a WebSocket that never answers a ping) are all cut by a deadline",
  ignore: !linux,
  async fn() {
    // headersTimeout 1.5 s, keepAliveTimeout 1 s, WebSocket idle 1 s.
    const started = await server("node", "1500", "1000", "1000");
    if (started === undefined) return;
    const pid = started.child.pid;
    try {
      const baseline = socketsOf(pid);
      for (const path of ["/any", "/hang-upgrade", "/ws"]) {
        const connections = await silentUpgrades(started.port, path, 30);
        // The most held at once in the first 500 ms (a refused one may
        // already be closed after its 1 s under load).
        let held = 0;
        for (let i = 0; i < 10; i++, await delay(50)) {
          held = Math.max(held, socketsOf(pid));
        }
        assert.ok(held >= baseline + 20, `${path}: ${held} held at first`);
        // Refused at once (kept 1 s for the client to close), unanswered
        // for 1.5 s, or idle for 1 s, pinged, idle for 1 s more.
        const left = await heldAfter(pid, baseline, 8000);
        for (const connection of connections) {
          try {
            connection.close();
          } catch { /* closed */ }
        }
        assert.equal(
          left,
          baseline,
          `${path}: ${left - baseline} of 30 sockets still held after 8 s`,
        );
      }
    } finally {
      await stop(started);
    }
  },
});

/** Writes all of `data` (a write may take part of it). */
async function writeAll(
  connection: Deno.Conn,
  data: Uint8Array,
): Promise<void> {
  for (let offset = 0; offset < data.byteLength;) {
    offset += await connection.write(data.subarray(offset));
  }
}

/** A masked ping frame with a 125-byte payload (the longest allowed). */
function pings(count: number): Uint8Array {
  const frame = new Uint8Array(2 + 4 + 125);
  frame[0] = 0x89; // FIN + ping
  frame[1] = 0x80 | 125; // masked, 125 bytes (mask 0: payload as is)
  const all = new Uint8Array(frame.byteLength * count);
  for (let i = 0; i < count; i++) all.set(frame, i * frame.byteLength);
  return all;
}

for (const runtime of ["node", "deno", "bun"]) {
  Deno.test({
    name:
      `${runtime}: 300,000 pings whose pongs are never read do not grow the server's memory past its send-buffer bound`,
    ignore: !linux,
    async fn() {
      const started = await server(runtime);
      if (started === undefined) return;
      const pid = started.child.pid;
      const connection = await Deno.connect({
        hostname: "127.0.0.1",
        port: started.port,
      });
      try {
        await connection.write(upgradeRequest(started.port, "/ws"));
        const head = new Uint8Array(1024);
        const read = await connection.read(head);
        assert.match(
          new TextDecoder().decode(head.subarray(0, read ?? 0)),
          /^HTTP\/1\.1 101/,
        );
        await delay(300);
        const before = rssOf(pid);
        // 300,000 pings (37.5 MiB) in batches; the client never reads.
        // A server that stops reading blocks the writes: that bounds it
        // too, so a write blocked for 3 s ends the flood.
        const batch = pings(10_000);
        let sent = 0;
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          for (; sent < 300_000; sent += 10_000) {
            const blocked = new Promise<"blocked">((resolve) =>
              timer = setTimeout(() => resolve("blocked"), 3000)
            );
            if (
              await Promise.race([writeAll(connection, batch), blocked]) ===
                "blocked"
            ) {
              break;
            }
            clearTimeout(timer);
          }
        } catch {
          // The server dropped the connection (Deno does).
        } finally {
          clearTimeout(timer);
        }
        await delay(1000);
        const after = rssOf(pid);
        console.log(
          `${runtime}: RSS ${before.toFixed(0)} -> ${
            after.toFixed(0)
          } MiB after ${sent} pings`,
        );
        assert.ok(
          after - before < 24,
          `RSS grew ${(after - before).toFixed(0)} MiB for ${sent} pings`,
        );
      } finally {
        try {
          connection.close();
        } catch { /* closed */ }
        await stop(started);
      }
    },
  });
}
