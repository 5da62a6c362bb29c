// http_open_websockets and http_open_event_streams on a real server: a
// WebSocket counts from its handshake to its close on every runtime (Deno's
// sockets are closeables; Node's and Bun's are counted through the
// handshake's open/close), and so does an event stream. Portable: serve()
// runs on Deno, Node and Bun.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createMetricsRegistry, metrics } from "@fetchkit/toolkit/metrics";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
import { serve } from "@fetchkit/toolkit/serve";
import { upgradeWebSocket } from "@fetchkit/toolkit/websocket";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await delay(10);
  assert.ok(check(), what);
}

Deno.test({
  name: "metrics: open WebSockets and event streams over a real server",
  // Node 20 has no WebSocket client.
  ignore: typeof WebSocket === "undefined",
}, async () => {
  const registry = createMetricsRegistry();
  const router = createRouter({ middleware: [metrics({ registry })] });
  router.get("/ws", (context) =>
    upgradeWebSocket(context, {
      onMessage: (event, ws) => ws.send(String(event.data)),
    }));
  let end!: () => void;
  const ended = new Promise<void>((resolve) => end = resolve);
  router.get("/events", () =>
    createEventStreamResponse(async function* () {
      yield { data: "hi" };
      await ended;
    }()));
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  // Gauges read at a scrape (the socket count is the process's).
  const gauge = (name: string) => {
    registry.metrics();
    return registry.get(name)!.get() as number;
  };
  try {
    const origin = `127.0.0.1:${server.addr.port}`;
    const socket = new WebSocket(`ws://${origin}/ws`);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    const echoed = new Promise((resolve) => socket.onmessage = resolve);
    socket.send("ping");
    await echoed;
    await until(() => gauge("http_open_websockets") === 1, "one socket open");
    // One series per gauge in the exposition, however it was reached.
    assert.deepEqual(
      registry.metrics().split("\n").filter((line) =>
        line.startsWith("http_open_websockets ")
      ),
      ["http_open_websockets 1"],
    );

    const events = await fetch(`http://${origin}/events`);
    const reader = events.body!.getReader();
    await reader.read();
    assert.equal(gauge("http_open_event_streams"), 1);

    const closed = new Promise((resolve) => socket.onclose = resolve);
    socket.close(1000);
    await closed;
    await until(
      () => gauge("http_open_websockets") === 0,
      "socket counted out",
    );

    await reader.cancel();
    end();
    await until(
      () => gauge("http_open_event_streams") === 0,
      "stream counted out",
    );
    assert.equal(
      (registry.get("http_requests_total") as {
        get(labels: Record<string, string>): number;
      }).get({ method: "GET", route: "/ws", status: "101" }),
      1,
    );
  } finally {
    await server.shutdown();
    registry.close();
  }
});
