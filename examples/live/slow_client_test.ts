// A client that opens the event stream and never reads it: the server's
// socket buffers fill, the stream stops taking events, its subscription
// holds at most maxQueued (1,000) of them and is then dropped
// (SlowSubscriberError): the stream ends and its count is released,
// while a client that reads gets every event.
import assert from "node:assert/strict";
import net from "node:net";
import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { serve } from "@fetchkit/toolkit/serve";
import { createLiveApp, TOPIC } from "./app.ts";

Deno.test({
  name:
    "live: a client that never reads is dropped after 1,000 queued events; a reading client gets all 3,000",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pubsub = createMemoryPubSub();
    const lines: string[] = [];
    const app = createLiveApp({ pubsub, log: (line) => lines.push(line) });
    const server = serve(app.fetch, { hostname: "127.0.0.1", port: 0 });
    const port = server.addr.port;
    const stalled = net.connect({ host: "127.0.0.1", port });
    stalled.on("error", () => {});
    stalled.write(
      "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n",
    );
    stalled.pause(); // never reads: its receive buffer fills
    const reading = await fetch(`http://127.0.0.1:${port}/events`);
    try {
      for (let i = 0; i < 100 && app.streams.open() < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(app.streams.open(), 2);
      // 3,000 events of 16 KiB: 48 MiB, far past what socket buffers hold.
      const text = "x".repeat(16 * 1024);
      let received = 0;
      const reader = reading.body!.pipeThrough(new TextDecoderStream())
        .getReader();
      const counting = (async () => {
        let buffer = "";
        while (received < 3000) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            if (buffer.startsWith("event: message")) received++;
            buffer = buffer.slice(end + 2);
          }
        }
      })();
      for (let i = 0; i < 3000; i++) {
        await pubsub.publish(TOPIC, { name: "n", text, server: "A", at: i });
        // The reading client keeps up (it is never 500 behind); the
        // stalled one takes nothing once its buffers are full.
        for (let wait = 0; i - received > 500 && wait < 500; wait++) {
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
      await counting;
      assert.equal(received, 3000);
      for (let i = 0; i < 250 && app.streams.open() > 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(app.streams.open(), 1, "the stalled stream was dropped");
      assert.ok(
        lines.some((line) => /fell 1000 events behind/.test(line)),
        lines.join("\n"),
      );
      await reader.cancel();
    } finally {
      stalled.destroy();
      await server.shutdown();
      await pubsub.close();
    }
  },
});
