/**
 * serve() on Bun: Bun.serve, with the WebSocket handlers upgradeWebSocket()
 * needs, and Bun's idle timeout.
 *
 * @module
 */

import {
  type AdapterHooks,
  bunServers,
  type Listening,
  type NetAddr,
  type PendingUpgrade,
  PortInUseError,
  type RawSocket,
  type SocketSinks,
} from "./shared.ts";

/** Bun reads messages up to this size; upgradeWebSocket() applies its own limit. */
export const BUN_MAX_PAYLOAD = 64 * 1024 * 1024;

interface SocketData {
  upgrade: PendingUpgrade;
  sinks?: SocketSinks;
  raw?: RawSocket;
}

interface BunSocket {
  data: SocketData;
  readonly readyState: number;
  send(data: string | ArrayBuffer | ArrayBufferView): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount?(): number;
}

interface BunServer {
  readonly hostname: string;
  readonly port: number;
  requestIP(request: Request): { address: string; port: number } | null;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}

interface BunNamespace {
  serve(options: Record<string, unknown>): BunServer;
}

const BUN_ROUTES = Symbol.for("fetchkit.serve.bunRoutes");
/**
 * Set to `true` on the routes a `BUN_ROUTES` hook gives when its functions
 * find the client with `info.requestIP(request)` (as the router does):
 * they then get Bun's server itself as the info (it has `requestIP` and no
 * `remoteAddr`) instead of an info made per request.
 */
const SERVER_INFO = Symbol.for("fetchkit.serve.bunServerInfo");
/**
 * Set to `true` on the routes a `BUN_ROUTES` hook gives when its functions
 * pass each promised answer through the `track` the hook was called with
 * (as the router does): their promises go to Bun as they are, without a
 * `then` (a promise and a turn a request) to track the answer after.
 */
const TRACKED = Symbol.for("fetchkit.serve.bunTracked");

/** The second argument on Bun: the client address, read when asked. */
class BunInfo {
  #server: BunServer;
  #request: Request;
  constructor(server: BunServer, request: Request) {
    this.#server = server;
    this.#request = request;
  }
  get remoteAddr(): NetAddr | undefined {
    const ip = this.#server.requestIP(this.#request);
    return ip === null
      ? undefined
      : { hostname: ip.address, port: ip.port, transport: "tcp" };
  }
  requestIP(request: Request): { address: string; port: number } | null {
    return this.#server.requestIP(request);
  }
  /** Bun's server, for what only Bun has. */
  get server(): BunServer {
    return this.#server;
  }
}

function rawOf(socket: BunSocket, protocol: string): RawSocket {
  return {
    // -1: queued behind a slow reader (Bun calls drain when it empties).
    send: (data) => socket.send(data) === -1,
    close: (code, reason) => socket.close(code, reason),
    get bufferedAmount() {
      return socket.getBufferedAmount?.() ?? 0;
    },
    get readyState() {
      return socket.readyState;
    },
    protocol,
  };
}

function toArrayBuffer(data: string | Uint8Array): string | ArrayBuffer {
  if (typeof data === "string") return data;
  return data.buffer.slice(
    data.byteOffset,
    data.byteOffset + data.byteLength,
  ) as ArrayBuffer;
}

type Inner = (request: Request, info: unknown) => Response | Promise<Response>;

/**
 * The hook's routes for Bun: a function (alone or under a method) is
 * called as the handler is, `(request, info)`, and tracked as it is; a
 * static `Response` stays as it is.
 */
function adaptRoutes(
  given: Record<string, unknown>,
  hooks: AdapterHooks,
): Record<string, unknown> {
  // Routes that read the client from `requestIP(request)` (the router's)
  // take Bun's server itself as their info, as Bun calls them: no object
  // and no call of ours per request.
  const serverInfo = (given as Record<symbol, unknown>)[SERVER_INFO] === true;
  const wrap = (given as Record<symbol, unknown>)[TRACKED] === true
    ? hooks.wrapTracked
    : hooks.wrap;
  const adapt = (inner: Inner) => {
    const tracked = wrap(inner);
    return serverInfo
      ? tracked
      : (request: Request, server: BunServer) =>
        tracked(request, new BunInfo(server, request));
  };
  const routes: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(given)) {
    if (typeof value === "function") routes[path] = adapt(value as Inner);
    else if (
      typeof value === "object" && value !== null &&
      !(value instanceof Response)
    ) {
      const methods: Record<string, unknown> = {};
      for (const [method, one] of Object.entries(value)) {
        methods[method] = typeof one === "function" ? adapt(one as Inner) : one;
      }
      routes[path] = methods;
    } else routes[path] = value;
  }
  return routes;
}

export function listenBun(
  hostname: string | undefined,
  port: number | undefined,
  hooks: AdapterHooks,
  options: { idleTimeoutSeconds: number; original: unknown },
): Listening {
  const bun = (globalThis as unknown as { Bun: BunNamespace }).Bun;
  const { handler, sockets } = hooks;
  const serveOptions: Record<string, unknown> = {
    hostname,
    port,
    idleTimeout: options.idleTimeoutSeconds,
    fetch(request: Request, server: BunServer) {
      return handler(request, new BunInfo(server, request));
    },
    websocket: {
      maxPayloadLength: BUN_MAX_PAYLOAD,
      // upgradeWebSocket() closes a socket whose reader falls behind.
      closeOnBackpressureLimit: false,
      open(socket: BunSocket) {
        const data = socket.data;
        const raw = rawOf(socket, data.upgrade.protocol);
        data.raw = raw;
        sockets.add(raw);
        data.sinks = data.upgrade.open(raw);
        // Not needed once open: let its headers and options go.
        data.upgrade = undefined as unknown as PendingUpgrade;
      },
      message(socket: BunSocket, message: string | Uint8Array) {
        socket.data.sinks?.message(toArrayBuffer(message));
      },
      close(socket: BunSocket, code: number, reason: string) {
        if (socket.data.raw) sockets.delete(socket.data.raw);
        socket.data.sinks?.close(code, reason ?? "");
      },
      drain(socket: BunSocket) {
        socket.data.sinks?.drain();
      },
    },
  };
  const routes = (options.original as Record<symbol, unknown>)?.[BUN_ROUTES];
  if (typeof routes === "function") {
    serveOptions.routes = adaptRoutes(
      routes(hooks.track) as Record<string, unknown>,
      hooks,
    );
  }
  let server: BunServer;
  try {
    server = bun.serve(serveOptions);
  } catch (error) {
    if ((error as { code?: string })?.code === "EADDRINUSE") {
      throw new PortInUseError(port ?? 3000, hostname ?? "0.0.0.0", {
        cause: error,
      });
    }
    throw error;
  }
  bunServers().add(server);
  return {
    addr: { hostname: server.hostname, port: server.port, transport: "tcp" },
    async drain() {
      await server.stop(false);
      bunServers().delete(server);
    },
    force() {
      bunServers().delete(server);
      void Promise.resolve(server.stop(true)).catch(() => {});
    },
  };
}
