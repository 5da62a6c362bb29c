// The posting budget (POSTS_PER_MINUTE per address) holds across HTTP
// and WebSocket posts, reconnects and servers sharing a store; a chunked
// POST /messages is cut at 4 KiB by the toolkit's bounded reader. Real
// servers (serve()) on loopback. Deno-only (raw sockets).
import assert from "node:assert/strict";
import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { createMemoryRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { serve } from "@fetchkit/toolkit/serve";
import { createLiveApp } from "./app.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes all of `data` (a write may take part of it). */
async function writeAll(
  connection: Deno.Conn,
  data: Uint8Array,
): Promise<void> {
  for (let offset = 0; offset < data.byteLength;) {
    offset += await connection.write(data.subarray(offset));
  }
}

/** Opens a socket, sends one post, and returns the answer's type and error. */
async function postOverSocket(
  port: number,
  text: string,
): Promise<{ type: string; error?: string }> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const answers: { type: string; error?: string }[] = [];
  socket.onmessage = (event) => answers.push(JSON.parse(event.data));
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error("refused"));
  });
  socket.send(JSON.stringify({ name: "mallory", text }));
  for (let i = 0; i < 200; i++) {
    const answer = answers.find((a) =>
      a.type === "posted" || a.type === "error"
    );
    if (answer) {
      const closed = new Promise((resolve) => socket.onclose = resolve);
      socket.close();
      await closed;
      return answer;
    }
    await delay(10);
  }
  throw new Error("no answer");
}

function httpPost(port: number, text: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/messages`, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body: new URLSearchParams({ name: "mallory", text }),
  });
}

Deno.test({
  name:
    "live: WebSocket posts count against the HTTP budget per address, across reconnects and two servers on one store",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pubsub = createMemoryPubSub();
    const postLimits = createMemoryRateLimitStore();
    const apps = ["A", "B"].map((serverName) =>
      createLiveApp({
        pubsub,
        serverName,
        log: () => {},
        postsPerMinute: 5,
        postLimits,
      })
    );
    const servers = apps.map((app) =>
      serve(app.fetch, { hostname: "127.0.0.1", port: 0, handleSignals: false })
    );
    const [a, b] = servers.map((server) => server.addr.port) as [
      number,
      number,
    ];
    try {
      // 3 over HTTP on A, then 2 over two sockets on B: the budget is spent.
      for (let i = 0; i < 3; i++) {
        const response = await httpPost(a, `http ${i}`);
        assert.equal(response.status, 201);
        await response.body?.cancel();
      }
      assert.equal((await postOverSocket(b, "ws 1")).type, "posted");
      assert.equal((await postOverSocket(b, "ws 2")).type, "posted");
      // Over it, whatever the way in: new sockets on either server, HTTP.
      for (const port of [a, b, b, a]) {
        const refused = await postOverSocket(port, "one more");
        assert.equal(refused.type, "error");
        assert.match(
          refused.error!,
          /^At most 5 posts a minute; try again in \d+ s\.$/,
        );
      }
      const over = await httpPost(b, "and over HTTP");
      assert.equal(over.status, 429);
      assert.ok(Number(over.headers.get("Retry-After")) > 0);
      await over.body?.cancel();
    } finally {
      await Promise.all(servers.map((server) => server.shutdown()));
      await pubsub.close();
    }
  },
});

Deno.test({
  name:
    "live: two concurrent 64 MiB chunked posts are cut at 4 KiB (413) before their bodies are read",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pubsub = createMemoryPubSub();
    const app = createLiveApp({ pubsub, serverName: "A", log: () => {} });
    const server = serve(app.fetch, {
      hostname: "127.0.0.1",
      port: 0,
      handleSignals: false,
    });
    const rssBefore = Deno.memoryUsage().rss;
    async function chunkedPost(): Promise<{ head: string; sent: number }> {
      const connection = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.addr.port,
      });
      const encoder = new TextEncoder();
      await connection.write(encoder.encode(
        "POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
          "Content-Type: application/x-www-form-urlencoded\r\n" +
          "Accept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      ));
      let head = "";
      const answered = (async () => {
        const buffer = new Uint8Array(4096);
        const read = await connection.read(buffer).catch(() => null);
        head = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
      })();
      const chunk = encoder.encode(
        `10000\r\n${"a".repeat(0x10000)}\r\n`,
      );
      let sent = 0;
      try {
        // 64 MiB in 64 KiB chunks, until the answer comes.
        while (sent < 64 * 1024 * 1024 && head === "") {
          const wrote = await Promise.race([
            writeAll(connection, chunk).then(() => true),
            answered.then(() => false),
          ]);
          if (!wrote) break;
          sent += 0x10000;
        }
      } catch {
        // Reset by the server once it answered.
      }
      await Promise.race([answered, delay(5000)]);
      connection.close();
      return { head, sent };
    }
    try {
      const results = await Promise.all([chunkedPost(), chunkedPost()]);
      const grown = (Deno.memoryUsage().rss - rssBefore) / 1024 / 1024;
      console.log(
        `sent before the 413: ${
          results.map(({ sent }) => (sent / 1024 / 1024).toFixed(1)).join(
            " and ",
          )
        } MiB; RSS +${grown.toFixed(0)} MiB`,
      );
      for (const { head, sent } of results) {
        assert.match(head, /^HTTP\/1\.1 413 /);
        assert.match(head, /4096 bytes/);
        assert.ok(
          sent < 16 * 1024 * 1024,
          `${sent / 1024 / 1024} MiB sent before the 413`,
        );
      }
      assert.ok(grown < 48, `RSS grew ${grown.toFixed(0)} MiB`);
    } finally {
      await server.shutdown();
      await pubsub.close();
    }
  },
});
