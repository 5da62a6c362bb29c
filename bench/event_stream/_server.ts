// Benchmark helper: an event-stream server for bench/event_stream/load.ts. Each
// stream gets an event every EVENT_MS and a heartbeat after HEARTBEAT_MS
// of silence; /stats gives the open sources and this process's RSS.
// Usage: _server.ts <heartbeatMs> <eventMs>; prints "listening <port>".
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";

const heartbeatMs = Number(Deno.args[0] ?? 5000);
const eventMs = Number(Deno.args[1] ?? 10_000);
let open = 0;
let opened = 0;

async function* events(signal: AbortSignal) {
  open++;
  opened++;
  try {
    for (let n = 1; !signal.aborted; n++) {
      yield { id: n, data: `event ${n}` };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, eventMs);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    }
  } finally {
    open--;
  }
}

const router = createRouter();
router.get(
  "/events",
  () => createEventStreamResponse((signal) => events(signal), { heartbeatMs }),
);
// With --v8-flags=--expose-gc, a collection first: live heap, not garbage.
router.get("/stats", () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = Deno.memoryUsage();
  return Response.json({ open, opened, rss, heapUsed });
});
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);
