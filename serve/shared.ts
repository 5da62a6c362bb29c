/**
 * What serve()'s runtime adapters share, and the contract with the
 * modules whose responses outlive a request (event streams, WebSockets):
 * those register the Response in a process-wide map found through
 * `Symbol.for`, so a second copy of the package in one process (two
 * versions, a bundle) still meets the same map.
 *
 * @module
 */

/**
 * The address a server listens on.
 *
 * @example
 * ```ts
 * import type { NetAddr } from "@fetchkit/toolkit/serve";
 *
 * const addr: NetAddr = { hostname: "127.0.0.1", port: 8000, transport: "tcp" };
 * ```
 */
export interface NetAddr {
  /** The IP address, as `"127.0.0.1"` or `"::1"`. */
  readonly hostname: string;
  /** The port. */
  readonly port: number;
  /** Always `"tcp"`. */
  readonly transport: "tcp";
}

/** A request handler, as `Deno.serve` takes it. */
export type Handler = (
  request: Request,
  info: never,
) => Response | Promise<Response>;

/** A response that stays open; `close()` ends it for a shutdown. */
export interface Closeable {
  readonly kind: "closeable";
  close(): void;
  readonly done: Promise<unknown>;
}

/** What a server does with a socket it opened for a WebSocket. */
export interface RawSocket {
  /** Sends; `true` when the data may have waited (check bufferedAmount). */
  send(data: string | ArrayBuffer | ArrayBufferView): boolean;
  close(code?: number, reason?: string): void;
  readonly bufferedAmount: number;
  readonly readyState: number;
  readonly protocol: string;
}

/** Where a server adapter delivers a WebSocket's events. */
export interface SocketSinks {
  message(data: string | ArrayBuffer, event?: { data: unknown }): void;
  close(code: number, reason: string): void;
  error(error: unknown): void;
  drain(): void;
}

/** A `101` answered by `upgradeWebSocket()` on Bun or Node. */
export interface PendingUpgrade {
  readonly kind: "upgrade";
  /** The subprotocol chosen, or `""`. */
  readonly protocol: string;
  /** Longest message accepted, in bytes. */
  readonly maxMessageBytes: number;
  /**
   * Most bytes that may wait unsent (the app's messages and the server's
   * own pongs alike); past it the socket closes with 1008.
   */
  readonly maxBufferedBytes: number;
  /** More response headers for the handshake. */
  readonly headers: Headers;
  /** Called when the handshake is done. */
  open(socket: RawSocket): SocketSinks;
}

/** Entries of the registry. */
export type Registered = Closeable | PendingUpgrade;

const RESPONSES = Symbol.for("fetchkit.serve.responses");
const OPEN_SOCKETS = Symbol.for("fetchkit.websocket.open");
const BUN_SERVERS = Symbol.for("fetchkit.serve.bunServers");

type Global = typeof globalThis & {
  [RESPONSES]?: WeakMap<Response, Registered> & { used?: boolean };
  [OPEN_SOCKETS]?: { count: number };
  [BUN_SERVERS]?: Set<unknown>;
};

/**
 * Responses that stay open, or that switch protocols. `used` is `false`
 * until the first is registered: until then `serve()` looks none up (a
 * `WeakMap` look-up a request). A registry another copy of this module
 * made has no `used`, and is always looked in.
 */
export function registry(): WeakMap<Response, Registered> & {
  used?: boolean;
} {
  return (globalThis as Global)[RESPONSES] ??= newRegistry();
}

function newRegistry(): WeakMap<Response, Registered> & { used: boolean } {
  const table = Object.assign(new WeakMap<Response, Registered>(), {
    used: false,
  });
  const set = table.set;
  table.set = (response, entry) => {
    table.used = true;
    return set.call(table, response, entry);
  };
  return table;
}

/**
 * The WebSockets of `upgradeWebSocket()` open in this process, from the
 * handshake to the close (read by the metrics' `http_open_websockets`).
 */
export function openWebSockets(): { count: number } {
  return (globalThis as Global)[OPEN_SOCKETS] ??= { count: 0 };
}

/** The Bun servers `serve()` runs, for `server.upgrade()`. */
export function bunServers(): Set<unknown> {
  return (globalThis as Global)[BUN_SERVERS] ??= new Set();
}

/** The hooks every adapter calls back. */
export interface AdapterHooks {
  /** The handler, wrapped to track long-lived responses. */
  handler(request: Request, info: unknown): Response | Promise<Response>;
  /** Wraps another handler the same way (Bun's native routes). */
  wrap(
    inner: (request: Request, info: unknown) => Response | Promise<Response>,
  ): (request: Request, info: unknown) => Response | Promise<Response>;
  /** Tracks one answer as `wrap` does: long-lived responses, Bun upgrades. */
  track(response: Response): Response;
  /**
   * Wraps a handler that passes each promised answer through `track`
   * itself before the promise settles (the router's Bun routes): an answer
   * given at once is tracked here, a promise goes to the server as it is,
   * without a `then` (a promise and a turn a request) of its own.
   */
  wrapTracked(
    inner: (request: Request, info: unknown) => Response | Promise<Response>,
  ): (request: Request, info: unknown) => Response | Promise<Response>;
  /** Socket bookkeeping for a shutdown. */
  sockets: Set<RawSocket>;
  /** Told when a listener fails (descriptor exhaustion). */
  log(line: string): void;
  /** Told when listening failed after `serve()` returned (Node, a name to look up). */
  fatal(error: unknown): void;
}

/** A running listener, as an adapter gives it. */
export interface Listening {
  readonly addr: NetAddr;
  /** Set when the address is known only later (Node, a name to look up). */
  readonly ready?: Promise<void>;
  /** Stops accepting; resolves when in-flight requests are done. */
  drain(): Promise<void>;
  /** Cuts whatever is left. */
  force(): void;
}

/**
 * Thrown by `serve()` when the port is taken; the message names it.
 *
 * @example
 * ```ts
 * import { PortInUseError, serve } from "@fetchkit/toolkit/serve";
 *
 * const first = serve(() => new Response("one"), { hostname: "127.0.0.1", port: 0 });
 * try {
 *   serve(() => new Response("two"), { hostname: "127.0.0.1", port: first.addr.port });
 * } catch (error) {
 *   if (!(error instanceof PortInUseError)) throw error;
 *   console.error(`${error.message}: try PORT=${error.port + 1}`);
 * }
 * await first.shutdown();
 * ```
 */
export class PortInUseError extends Error {
  /** The port asked for. */
  readonly port: number;
  /**
   * Names the port and address in the message.
   *
   * @param port The port that is taken.
   * @param hostname The address it was asked on.
   * @param options The cause: the runtime's error.
   */
  constructor(port: number, hostname: string, options?: ErrorOptions) {
    super(`Port ${port} on ${hostname} is in use`, options);
    this.name = "PortInUseError";
    this.port = port;
  }
}

export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Error: /, "");
}

/** Work a server keeps running after answers (`waitUntil()`). */
export interface WorkTracker {
  /** Takes a piece of work; `label` names it in a log line. */
  add(work: Promise<unknown>, label: string): void;
  /** Where a failed piece of work is logged. */
  log(line: string): void;
}

/** The tracker of each request, kept where copies of the request find it. */
export interface RequestTrackers {
  get(request: Request): WorkTracker | undefined;
  set(request: Request, tracker: WorkTracker): void;
}

// A `fetchkit.*` symbol on the request itself: the copies bodyLimit(),
// methodOverride() and idempotency() hand the chain keep those
// (runtime/request_copy.ts), where a WeakMap keyed on the original
// would not find them.
const TRACKER = Symbol.for("fetchkit.waitUntil.tracker");

function requestTrackers(): RequestTrackers {
  // For a request that takes no property (frozen): the original only.
  const fallback = new WeakMap<Request, WorkTracker>();
  return {
    get(request) {
      return (request as unknown as Record<symbol, WorkTracker | undefined>)[
        TRACKER
      ] ?? fallback.get(request);
    },
    set(request, tracker) {
      try {
        Object.defineProperty(request, TRACKER, {
          value: tracker,
          enumerable: true,
          configurable: true,
          writable: true,
        });
      } catch {
        fallback.set(request, tracker);
      }
    },
  };
}

/** Which server (or Workers execution context) keeps a request's work. */
export interface WorkRegistry {
  /** Set for each request when more than one server runs (or on Workers). */
  readonly byRequest: RequestTrackers;
  /** The servers running, latest last: the one a lone server's requests use. */
  readonly servers: WorkTracker[];
}

const WORK = Symbol.for("fetchkit.serve.work");

/** The process-wide registry of `waitUntil()` trackers. */
export function workRegistry(): WorkRegistry {
  const global = globalThis as typeof globalThis & {
    [WORK]?: WorkRegistry;
  };
  return global[WORK] ??= { byRequest: requestTrackers(), servers: [] };
}
