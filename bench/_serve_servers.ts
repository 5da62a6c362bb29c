/**
 * The servers the serve() and WebSocket benchmarks start, on Deno, Node
 * and Bun (bundled for the latter two): `bare` is the runtime's own
 * server (`Deno.serve`, `Bun.serve`, `@hono/node-server` with `ws`), `serve`
 * is `serve()` with `upgradeWebSocket()`. Both answer `/` with a short
 * text, echo WebSocket messages on `/ws`, and report their RSS on `/mem`.
 * Arguments: kind, port. Prints "ready" when listening.
 *
 * @module
 */
import { serve as honoServe } from "@hono/node-server";
import { serve } from "@fetchkit/toolkit/serve";
import { upgradeWebSocket } from "@fetchkit/toolkit/websocket";

const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);
const [kind, portText] = args;
const port = Number(portText);
const hostname = "127.0.0.1";

function rss(): Response {
  // Collect first (--expose-gc on Deno and Node, Bun.gc on Bun), so RSS
  // counts what is held, not garbage an idle heap has not collected yet.
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
  const memory = (globalThis as unknown as {
    process: { memoryUsage(): { rss: number } };
  }).process.memoryUsage();
  return new Response(JSON.stringify({ rss: memory.rss }));
}

const isWs = (request: Request) => request.url.endsWith("/ws");
const isBlast = (request: Request) => request.url.endsWith("/blast");
const CHUNK = new Uint8Array(64 * 1024);

/**
 * Sends 16 MiB in 64 KiB messages (new ones, not one buffer sent again) to a client that does not read, while
 * the socket stays open: what a slow reader costs the server.
 */
async function blast(
  socket: { send(data: Uint8Array): unknown; readonly readyState: number },
): Promise<void> {
  for (let i = 0; i < 256 && socket.readyState === 1; i++) {
    socket.send(CHUNK.slice()); // a new message each time, as an app sends
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
const isMem = (request: Request) => request.url.endsWith("/mem");

interface BunLike {
  serve(options: Record<string, unknown>): unknown;
}
const bun = (globalThis as { Bun?: BunLike }).Bun;
const deno = (globalThis as {
  Deno?: {
    serve(
      options: Record<string, unknown>,
      handler: (request: Request) => Response,
    ): unknown;
    upgradeWebSocket(
      request: Request,
    ): { socket: WebSocket; response: Response };
  };
}).Deno;

if (kind === "serve") {
  serve((request) => {
    if (isBlast(request)) {
      return upgradeWebSocket(request, { onOpen: (_event, ws) => blast(ws) });
    }
    if (isWs(request)) {
      return upgradeWebSocket(request, {
        onMessage: (event, ws) => ws.send(event.data),
      });
    }
    if (isMem(request)) return rss();
    return new Response("Hello, World!");
  }, { hostname, port, handleSignals: false });
} else if (deno !== undefined) {
  deno.serve({ hostname, port, onListen() {} }, (request) => {
    if (isBlast(request)) {
      const { socket, response } = deno.upgradeWebSocket(request);
      socket.onopen = () => blast(socket);
      return response;
    }
    if (isWs(request)) {
      const { socket, response } = deno.upgradeWebSocket(request);
      socket.onmessage = (event) => socket.send(event.data);
      return response;
    }
    if (isMem(request)) return rss();
    return new Response("Hello, World!");
  });
} else if (bun !== undefined) {
  bun.serve({
    hostname,
    port,
    fetch(
      request: Request,
      server: { upgrade(request: Request, options?: unknown): boolean },
    ) {
      if (isWs(request) || isBlast(request)) {
        const data = { blast: isBlast(request) };
        return server.upgrade(request, { data })
          ? undefined
          : new Response(null, { status: 400 });
      }
      if (isMem(request)) return rss();
      return new Response("Hello, World!");
    },
    websocket: {
      open(
        ws: {
          data: { blast: boolean };
          send(data: Uint8Array): unknown;
          readyState: number;
        },
      ) {
        if (ws.data.blast) blast(ws);
      },
      message(ws: { send(data: unknown): void }, message: unknown) {
        ws.send(message);
      },
    },
  });
} else {
  const { WebSocketServer } = await import("ws");
  const server = honoServe({
    hostname,
    port,
    // The same checks as the other servers' handlers, which see /ws too.
    fetch: (request: Request) =>
      isBlast(request) || isWs(request)
        ? new Response(null, { status: 426 })
        : isMem(request)
        ? rss()
        : new Response("Hello, World!"),
  });
  const wss = new WebSocketServer({ server: server as never });
  interface Peer {
    on(
      event: "message",
      listener: (data: unknown, binary: boolean) => void,
    ): void;
    send(data: unknown, options?: { binary: boolean }): void;
    readonly readyState: number;
  }
  wss.on("connection", (ws: Peer, request: { url?: string }) => {
    if (request.url?.endsWith("/blast")) blast(ws);
    // Text as a string, as Deno's and Bun's APIs (and upgradeWebSocket())
    // hand it to the app.
    ws.on(
      "message",
      (data, binary) =>
        ws.send(binary ? data : (data as { toString(): string }).toString()),
    );
  });
}
// The listener is bound when serve()/Deno.serve/Bun.serve return; Node's
// after a tick.
setTimeout(() => console.log("ready"), 50);
