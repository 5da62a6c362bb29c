// The board under `ulimit -n 1024`, as one server with the default stream
// bounds (20 per address, 500 in all): 950 event streams from 38 loopback
// addresses (127.0.0.2 to 127.0.0.39, 25 each) get 500 streams and 450
// answers of 503 with Retry-After; the server keeps answering pages and
// posts, and a post reaches the open streams. Then 700 idle connections
// exhaust its descriptors (EMFILE): it stays up, and answers again once
// they close.

import assert from "node:assert/strict";
import net from "node:net";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const ADDRESSES = 38;
const STREAMS = 950;

interface Stream {
  socket: net.Socket;
  status: number;
  text: string;
}

/** Opens GET /events from `localAddress`; resolves once the status came. */
function openStream(port: number, localAddress: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress });
    const stream: Stream = { socket, status: 0, text: "" };
    socket.setEncoding("utf8");
    socket.on("connect", () =>
      socket.write(
        "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
      ));
    socket.on("data", (chunk: string) => {
      stream.text += chunk;
      if (stream.status === 0) {
        const status = /^HTTP\/1\.1 (\d{3})/.exec(stream.text)?.[1];
        if (status === undefined) return;
        stream.status = Number(status);
        if (stream.status !== 200) {
          // Refused: read the answer, then hang up as a client would.
          setTimeout(() => socket.destroy(), 50);
        }
        resolve(stream);
      }
    });
    socket.on("error", (error) => {
      if (stream.status === 0) reject(error);
    });
  });
}

async function get(port: number, path = "/"): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(5000),
  });
  await response.body?.cancel();
  return response.status;
}

Deno.test({
  name:
    "live under ulimit -n 1024: 950 streams from 38 addresses get 500 streams and 450 503s; EMFILE does not end the server",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = new Deno.Command("bash", {
      args: [
        "-c",
        `ulimit -n 1024 && exec "${Deno.execPath()}" run --allow-all "${MAIN}"`,
      ],
      env: { PORT: "0" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = server.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    let first = "";
    while (!first.includes("\n")) {
      const { value, done } = await stdout.read();
      if (done) break;
      first += value;
    }
    // Keep reading: a full pipe would block the server.
    const drain = (async () => {
      while (!(await stdout.read()).done) { /* log lines */ }
    })();
    let stderr = "";
    const errors = (async () => {
      for await (
        const chunk of server.stderr.pipeThrough(new TextDecoderStream())
      ) {
        stderr += chunk;
      }
    })();
    const port = Number(/listening (\d+)/.exec(first)?.[1]);
    assert.ok(port > 0, `no port in ${first}`);
    const streams: Stream[] = [];
    const idle: net.Socket[] = [];
    try {
      for (let i = 0; i < STREAMS; i += 50) {
        const batch = [];
        for (let j = i; j < Math.min(i + 50, STREAMS); j++) {
          batch.push(openStream(port, `127.0.0.${2 + (j % ADDRESSES)}`));
        }
        streams.push(...await Promise.all(batch));
      }
      const accepted = streams.filter((s) => s.status === 200);
      const refused = streams.filter((s) => s.status === 503);
      console.log(
        `${accepted.length} streams accepted, ${refused.length} refused with 503`,
      );
      assert.equal(accepted.length, 500);
      assert.equal(refused.length, 450);
      assert.match(refused[0].text, /Retry-After: 5/i);
      assert.match(refused[0].text, /Too many open event streams/);

      // Still serving: a page, and a post that reaches the streams.
      assert.equal(await get(port), 200);
      const posted = await fetch(`http://127.0.0.1:${port}/messages`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "load", text: "to all 500" }),
      });
      assert.equal(posted.status, 201);
      await posted.body?.cancel();
      for (let i = 0; i < 100; i++) {
        if (accepted.every((s) => s.text.includes("to all 500"))) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(
        accepted.filter((s) => s.text.includes("to all 500")).length,
        500,
      );

      // Exhaust the descriptors with idle connections.
      for (let i = 0; i < 700; i++) {
        const socket = net.connect({ host: "127.0.0.1", port });
        socket.on("error", () => {});
        idle.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const socket of idle) socket.destroy();
      // It answers again once they are gone.
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = await get(port).catch(() => 0);
        if (status !== 200) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      assert.equal(status, 200, stderr);
      assert.match(stderr, /Too many open files|stopped accepting/i);
      const alive = await Promise.race([
        server.status.then(() => false),
        new Promise((resolve) => setTimeout(() => resolve(true), 100)),
      ]);
      assert.ok(alive, "the server process is still running");
    } finally {
      for (const stream of streams) stream.socket.destroy();
      for (const socket of idle) socket.destroy();
      server.kill("SIGTERM");
      await server.status;
      await drain.catch(() => {});
      await errors.catch(() => {});
    }
  },
});
