// The board's WebSocket endpoint on a real server (serve(), memory pub/sub).
// Portable: runs on Deno and Bun, and on Node from 22 (Node 20 has no
// WebSocket client).
import assert from "node:assert/strict";
import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { serve } from "@fetchkit/toolkit/serve";
import { createLiveApp, TOPIC } from "./app.ts";

function opened(url: string) {
  const socket = new WebSocket(url);
  const messages: { type: string; [key: string]: unknown }[] = [];
  socket.onmessage = (event) => messages.push(JSON.parse(event.data));
  const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
  const open = new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("refused"));
  });
  async function next(type: string) {
    for (let i = 0; i < 200; i++) {
      const at = messages.findIndex((m) => m.type === type);
      if (at >= 0) return messages.splice(at, 1)[0];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no ${type} message`);
  }
  return { socket, open, closed, next };
}

Deno.test({
  name:
    "live websocket: posts and messages, errors that say why, the bounds, 1009 past 4 KiB, cross-site refused",
  ignore: typeof WebSocket === "undefined",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pubsub = createMemoryPubSub();
    const app = createLiveApp({
      pubsub,
      serverName: "A",
      log: () => {},
      streams: { perAddress: 2 },
      postsPerMinute: 3,
    });
    const server = serve(app.fetch, { hostname: "127.0.0.1", port: 0 });
    const base = `ws://127.0.0.1:${server.addr.port}/ws`;
    try {
      const one = opened(base);
      await one.open;
      assert.equal(app.streams.open(), 1);
      // First, where it starts: the store's start on an empty topic.
      assert.equal((await one.next("position")).id, "0");

      one.socket.send(JSON.stringify({ name: "ada", text: "hello" }));
      const posted = await one.next("posted");
      const message = await one.next("message");
      assert.equal(message.id, posted.id);
      assert.deepEqual(
        (message.message as { text: string; server: string }).text,
        "hello",
      );

      one.socket.send("not json");
      assert.match(
        String((await one.next("error")).error),
        /Send a JSON object with name and text/,
      );
      one.socket.send(JSON.stringify({ name: " ", text: "x" }));
      assert.equal((await one.next("error")).error, "Fill in name.");
      // Every message counts against the budget, as every POST does:
      // the malformed two as well.
      one.socket.send(JSON.stringify({ name: "ada", text: "4" }));
      assert.match(
        String((await one.next("error")).error),
        /^At most 3 posts a minute; try again in \d+ s\.$/,
      );

      // A second socket resumes after the first message.
      await pubsub.publish(TOPIC, {
        name: "ada",
        text: "2",
        server: "A",
        at: Date.now(),
      });
      const two = opened(`${base}?since=${posted.id}`);
      await two.open;
      assert.equal((await two.next("message")).id !== posted.id, true);
      // The third from one address is over the bound: refused (503).
      const three = opened(base);
      await assert.rejects(three.open);
      await three.closed;
      const refused = await fetch(
        `http://127.0.0.1:${server.addr.port}/ws`,
        { headers: { Upgrade: "websocket", Connection: "Upgrade" } },
      );
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("Retry-After"), "5");
      await refused.body?.cancel();

      // Past 4 KiB: closed with 1009.
      two.socket.send("x".repeat(5000));
      assert.equal((await two.closed).code, 1009);

      // Another site's page may not open it (with room under the bounds).
      for (let i = 0; i < 50 && app.streams.open() > 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(app.streams.open(), 1);
      const evil = await fetch(`http://127.0.0.1:${server.addr.port}/ws`, {
        headers: {
          Upgrade: "websocket",
          Connection: "Upgrade",
          Origin: "http://evil.example",
          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
          "Sec-WebSocket-Version": "13",
        },
      });
      assert.equal(evil.status, 403);
      await evil.body?.cancel();

      one.socket.close();
      await one.closed;
      for (let i = 0; i < 50 && app.streams.open() > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(app.streams.open(), 0);
    } finally {
      await server.shutdown();
      await pubsub.close();
    }
  },
});
