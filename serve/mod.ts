/**
 * One `serve(handler)` for Deno, Bun and Node, with a graceful shutdown.
 *
 * - Deno: `Deno.serve`. Bun: `Bun.serve`. Node: `@hono/node-server` (loaded
 *   only on Node), and `ws` for WebSockets.
 * - The handler gets the client address on every runtime: its second
 *   argument has `remoteAddr` (`{ hostname, port, transport }`), which is
 *   what `router.fetch` reads for `context.remoteAddr`.
 * - `SIGTERM` or `SIGINT` (or `shutdown()`, or `options.signal`): the
 *   process is draining at once (`isDraining()`, readiness of
 *   `@fetchkit/toolkit/health` answers 503); the listener keeps serving
 *   for `drainMs` (default 0), so a load balancer that checks readiness
 *   stops sending first; then the server stops accepting connections, lets in-flight requests finish
 *   within `shutdownTimeoutMs` (10 s), ends open event streams
 *   (`createEventStreamResponse`) and closes WebSockets (`upgradeWebSocket`)
 *   with code 1001, waits for work handed over by `waitUntil()` (from
 *   `@fetchkit/toolkit/wait-until`) within the same `shutdownTimeoutMs`
 *   (logging what it cut off), then resolves `finished`. A second signal exits the
 *   process at once (code 130 for SIGINT, 143 for SIGTERM). After a
 *   signal, the process ends by itself when nothing is left to run; one
 *   still running a second after `finished` (a timer, a client left open,
 *   a request past the timeout) exits, with code 0, or 1 when requests
 *   were cut.
 * - Slow clients (slowloris): on Node, a request's headers must arrive
 *   within 10 s and the whole request within 120 s, and an idle keep-alive
 *   connection closes after 5 s (`node` option). A request that asks for
 *   an upgrade leaves node:http's timeouts, so `serve()` gives it its own:
 *   the handler must answer it within `headersTimeout`; a refused one is
 *   answered with `Connection: close` and cut if the client has not
 *   closed within `keepAliveTimeout`; an open WebSocket that receives
 *   nothing for `webSocketIdleTimeout` (120 s) is pinged, and cut when
 *   nothing comes for as long again. Pongs count against the socket's
 *   send-buffer bound (`maxBufferedBytes` of `upgradeWebSocket()`), so a
 *   ping flood from a peer that never reads closes the socket with 1008. Bun cuts a connection
 *   whose headers have not all arrived after about 10 s (12 s measured;
 *   not settable), and one idle for `idleTimeoutSeconds` (30 s; Bun's own
 *   default is 10), which includes a request whose handler sends nothing
 *   for that long. Deno's server has no header or idle timeout that can be
 *   set: on Deno, put a reverse proxy that has one in front (nginx
 *   `client_header_timeout`).
 * - Descriptor exhaustion (`EMFILE`, too many open connections for
 *   `ulimit -n`): the process stays up. On Deno the listener dies; it is
 *   opened again after 100 ms, then with a doubling pause (up to 1 s) while
 *   descriptors are short, and one line is logged per episode. Node's
 *   and Bun's event loops close connections they have no descriptor for
 *   and keep listening (an accept error Node reports is logged).
 *
 * @example Serve a router, and clean up after a shutdown
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { serve } from "@fetchkit/toolkit/serve";
 *
 * const router = createRouter();
 * router.get("/", ({ remoteAddr }) => new Response(`Hello ${remoteAddr?.hostname}`));
 *
 * const server = serve(router.fetch, { hostname: "127.0.0.1", port: 0 });
 * const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
 * console.log(await response.text()); // "Hello 127.0.0.1"
 *
 * await server.shutdown(); // what SIGTERM does
 * await server.finished;
 * ```
 *
 * @module
 */

import { listenBun } from "./_bun.ts";
import { beginDrain, endDrain, isDraining, onDrain } from "./draining.ts";
import { listenDeno } from "./_deno.ts";
import {
  type Closeable,
  type Listening,
  type NetAddr,
  PortInUseError,
  type RawSocket,
  registry,
  workRegistry,
  type WorkTracker,
} from "./shared.ts";

export { isDraining, onDrain, PortInUseError };
export type { NetAddr };

interface ProcessLike {
  on(signal: string, listener: () => void): void;
  off(signal: string, listener: () => void): void;
  exit(code: number): never;
}

interface DenoSignals {
  addSignalListener(signal: string, listener: () => void): void;
  removeSignalListener(signal: string, listener: () => void): void;
  exit(code: number): never;
  serve?: unknown;
}

const deno = (globalThis as { Deno?: DenoSignals }).Deno;
const runtime: "deno" | "bun" | "node" = typeof deno?.serve === "function"
  ? "deno"
  : typeof (globalThis as { Bun?: { serve?: unknown } }).Bun?.serve ===
      "function"
  ? "bun"
  : "node";
// Only Node loads the Node adapter (and @hono/node-server and ws with it).
const node = runtime === "node" ? await import("./_node.ts") : undefined;

/**
 * The handler: `router.fetch`, or any function of a request (and the
 * connection info) to a response.
 *
 * @example
 * ```ts
 * import type { ServeHandler } from "@fetchkit/toolkit/serve";
 *
 * const handler: ServeHandler = (_request, info) =>
 *   new Response(info.remoteAddr?.hostname ?? "unknown");
 * ```
 */
export type ServeHandler = (
  request: Request,
  info: ServeHandlerInfo,
) => Response | Promise<Response>;

/**
 * The second argument `serve()` gives the handler, on every runtime.
 *
 * @example
 * ```ts
 * import type { ServeHandlerInfo } from "@fetchkit/toolkit/serve";
 *
 * function client(info: ServeHandlerInfo): string {
 *   return info.remoteAddr ? `${info.remoteAddr.hostname}:${info.remoteAddr.port}` : "-";
 * }
 * ```
 */
export interface ServeHandlerInfo {
  /** The client (the connection's peer); absent on a Unix socket. */
  readonly remoteAddr?: NetAddr | {
    readonly hostname: string;
    readonly port: number;
    readonly transport: string;
  };
}

/**
 * Options of {@linkcode serve}.
 *
 * @example
 * ```ts
 * import type { ServeOptions } from "@fetchkit/toolkit/serve";
 *
 * const options: ServeOptions = { hostname: "127.0.0.1", port: 8000, shutdownTimeoutMs: 5000 };
 * ```
 */
export interface ServeOptions {
  /** The port; `0` picks a free one. Default: the runtime's (Deno 8000, Bun and Node 3000). */
  port?: number;
  /** The address to listen on. Default: the runtime's (all interfaces). */
  hostname?: string;
  /** Starts the shutdown when aborted, as `shutdown()` does. */
  signal?: AbortSignal;
  /** Told the address once the server listens. Default: nothing is printed. */
  onListen?: (addr: NetAddr) => void;
  /**
   * How long in-flight requests may take to finish after a shutdown
   * begins; then their connections are cut (on Node and Bun; Deno cannot
   * cut them). After a signal, a process still running 1 s after
   * `finished` exits: with code 0 when every request finished in time,
   * else 1.
   *
   * @default {10000}
   */
  shutdownTimeoutMs?: number;
  /**
   * How long the listener keeps serving after a shutdown begins, while
   * readiness (`isDraining()`, `@fetchkit/toolkit/health`) already
   * answers 503: a load balancer checking readiness every `n` ms needs
   * somewhat more than `n` times its fall count to stop sending. Event
   * streams and WebSockets stay open until it ends. `shutdownTimeoutMs`
   * counts from its end. A second signal still exits at once.
   *
   * @default {0}
   */
  drainMs?: number;
  /**
   * Shut down on `SIGTERM` and `SIGINT`. A second signal exits at once.
   *
   * @default {true}
   */
  handleSignals?: boolean;
  /** Where failures of the listener are logged. Default `console.error`. */
  log?: (line: string) => void;
  /**
   * Node only: timeouts against clients that send slowly, in ms.
   *
   * @default {{ headersTimeout: 10000, requestTimeout: 120000, keepAliveTimeout: 5000, webSocketIdleTimeout: 120000 }}
   */
  node?: {
    headersTimeout?: number;
    requestTimeout?: number;
    keepAliveTimeout?: number;
    /**
     * A WebSocket that receives nothing for this long is pinged, and cut
     * when nothing (no pong) comes in the same time again.
     */
    webSocketIdleTimeout?: number;
  };
  /**
   * Bun only: seconds after which an idle connection is closed (at most
   * 255), a request whose handler has sent nothing for that long
   * included. Longer than an event stream's 15 s heartbeat.
   *
   * @default {30}
   */
  idleTimeoutSeconds?: number;
}

/**
 * A running server.
 *
 * @example
 * ```ts
 * import { serve, type Server } from "@fetchkit/toolkit/serve";
 *
 * const server: Server = serve(() => new Response("ok"), { hostname: "127.0.0.1", port: 0 });
 * console.log(server.addr.port);
 * await server.shutdown();
 * ```
 */
export interface Server {
  /** Where the server listens. */
  readonly addr: NetAddr;
  /** Resolves when the server has shut down. */
  readonly finished: Promise<void>;
  /** Starts the graceful shutdown (if it has not begun); resolves as `finished`. */
  shutdown(): Promise<void>;
}

const SIGNALS = ["SIGTERM", "SIGINT"] as const;
const EXIT_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

// One process-wide listener per signal for every running server, so a
// second signal (not a second server's listener) is what exits at once.
const running = new Set<(fromSignal: boolean) => void>();
let signalled = false;
const listeners = new Map<string, () => void>();

function exit(code: number): never {
  if (runtime === "deno") return deno!.exit(code);
  return (globalThis as unknown as { process: ProcessLike }).process.exit(code);
}

/** After a signal: how long `finished` handlers get to clean up. */
const EXIT_GRACE_MS = 1000;

/**
 * A signal asked the process to end. It ends by itself once nothing is
 * left to run; if something still runs a second later (a handler's
 * timer, a request Deno cannot cut, a client left open), it exits. The
 * timer does not keep the process alive.
 */
function exitSoon(code: number): void {
  const timer = setTimeout(() => exit(code), EXIT_GRACE_MS);
  if (runtime === "deno") {
    (deno as unknown as { unrefTimer(id: number): void }).unrefTimer(
      timer as unknown as number,
    );
  } else (timer as unknown as { unref?(): void }).unref?.();
}

function watchSignals(): void {
  if (listeners.size > 0) return;
  for (const signal of SIGNALS) {
    const listener = () => {
      if (signalled) exit(EXIT_CODES[signal]!);
      signalled = true;
      for (const stop of [...running]) stop(true);
    };
    try {
      if (runtime === "deno") deno!.addSignalListener(signal, listener);
      else {
        (globalThis as unknown as { process: ProcessLike }).process.on(
          signal,
          listener,
        );
      }
      listeners.set(signal, listener);
    } catch {
      // Windows has no SIGTERM listener on Deno.
    }
  }
}

function unwatchSignals(): void {
  if (running.size > 0) return;
  for (const [signal, listener] of listeners) {
    if (runtime === "deno") deno!.removeSignalListener(signal, listener);
    else {
      (globalThis as unknown as { process: ProcessLike }).process.off(
        signal,
        listener,
      );
    }
  }
  listeners.clear();
  signalled = false;
}

function checkOptions(options: ServeOptions): void {
  const { port, shutdownTimeoutMs, idleTimeoutSeconds, drainMs } = options;
  if (
    drainMs !== undefined &&
    !(typeof drainMs === "number" && drainMs >= 0 && Number.isFinite(drainMs))
  ) {
    throw new TypeError(
      `serve(): drainMs must be a number of ms >= 0, got ${drainMs}`,
    );
  }
  if (
    port !== undefined &&
    !(Number.isInteger(port) && port >= 0 && port <= 65535)
  ) {
    throw new TypeError(
      `serve(): port must be a whole number from 0 to 65535, got ${port}`,
    );
  }
  if (
    shutdownTimeoutMs !== undefined &&
    !(shutdownTimeoutMs >= 0 && Number.isFinite(shutdownTimeoutMs))
  ) {
    throw new TypeError(
      `serve(): shutdownTimeoutMs must be a number of ms >= 0, got ${shutdownTimeoutMs}`,
    );
  }
  if (
    idleTimeoutSeconds !== undefined &&
    !(Number.isInteger(idleTimeoutSeconds) && idleTimeoutSeconds >= 0 &&
      idleTimeoutSeconds <= 255)
  ) {
    throw new TypeError(
      `serve(): idleTimeoutSeconds must be a whole number from 0 to 255 (Bun's limit), got ${idleTimeoutSeconds}`,
    );
  }
}

/**
 * Serves `handler` on the runtime's HTTP server, already listening when
 * it returns, and shuts down gracefully on `SIGTERM`/`SIGINT`. See the
 * module documentation for what each runtime does.
 *
 * On Bun, a handler with a function under
 * `Symbol.for("fetchkit.serve.bunRoutes")` has its result passed as
 * `Bun.serve`'s `routes` (an internal hook for the router): its functions
 * (also those under a method) are called as the handler is, with the
 * request and the connection info, and their responses are tracked for
 * the shutdown as the handler's are. Routes marked with
 * `Symbol.for("fetchkit.serve.bunServerInfo")` set to `true` (the
 * router's) get Bun's server itself as that info: it has
 * `requestIP(request)` and no `remoteAddr` (no info made per request).
 * The hook is called with a function that tracks one answer; routes
 * marked with `Symbol.for("fetchkit.serve.bunTracked")` set to `true`
 * pass each promised answer through it before the promise settles, and
 * their promises go to Bun as they are (no `then` of `serve()`'s).
 *
 * On Node, a handler with a function under
 * `Symbol.for("fetchkit.serve.nodeFetch")` (the router's `fetch`) has that
 * function called once, and then gets an `info` that also takes the
 * request's staged response headers: `serve()` writes them into the
 * response head itself, beside the headers of the `Response` (each
 * replacing the header of its name; staged `Set-Cookie` values added),
 * instead of the router setting them on the built `Response`, which made
 * the adapter build and walk a `Headers` for it.
 *
 * @example Graceful shutdown with an abort signal
 * ```ts
 * import { serve } from "@fetchkit/toolkit/serve";
 *
 * const stop = new AbortController();
 * const server = serve(() => new Response("ok"), {
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   signal: stop.signal,
 *   onListen: ({ hostname, port }) => console.log(`Listening on http://${hostname}:${port}/`),
 * });
 * stop.abort();
 * await server.finished;
 * ```
 *
 * @param handler `router.fetch`, or a function of a request and its connection info.
 * @param options Address, shutdown and timeout settings.
 * @returns The server: `addr`, `finished` and `shutdown()`.
 * @throws {PortInUseError} When the port is taken.
 * @throws {TypeError} When an option is out of range.
 */
export function serve(
  handler: ServeHandler,
  options: ServeOptions = {},
): Server {
  if (typeof handler !== "function") {
    throw new TypeError(
      "serve(): handler must be a function of a Request, such as router.fetch",
    );
  }
  checkOptions(options);
  const {
    hostname,
    port,
    shutdownTimeoutMs = 10_000,
    drainMs = 0,
    handleSignals = true,
    log = console.error,
  } = options;
  const closeables = new Set<Closeable>();
  const sockets = new Set<RawSocket>();
  const table = registry();
  let closing = false;

  // Work handed over by waitUntil(): a shutdown waits for it.
  const pendingWork = new Map<Promise<unknown>, string>();
  const tracker: WorkTracker = {
    add(work, label) {
      pendingWork.set(work, label);
      const settled = () => pendingWork.delete(work);
      work.then(settled, settled);
    },
    log,
  };
  const works = workRegistry();
  async function workDone(): Promise<void> {
    // Work may start more work while it runs.
    while (pendingWork.size > 0) {
      await Promise.allSettled([...pendingWork.keys()]);
    }
  }

  // Responses that stay open (event streams, WebSockets on Deno) are
  // remembered, so a shutdown can end them; one WeakMap look-up a request.
  function track(response: Response): Response {
    // Nothing registered yet in this process: nothing to look up.
    if (table.used === false) return response;
    const entry = table.get(response);
    if (entry === undefined) return response;
    if (entry.kind === "closeable") {
      if (closing) entry.close();
      else {
        closeables.add(entry);
        entry.done.then(
          () => closeables.delete(entry),
          () => closeables.delete(entry),
        );
      }
      return response;
    }
    // An upgrade on Bun: the socket is Bun's now, and fetch answers nothing.
    return (runtime === "bun" ? undefined : response) as Response;
  }
  function wrap(
    inner: (request: Request, info: unknown) => Response | Promise<Response>,
  ): (request: Request, info: unknown) => Response | Promise<Response> {
    return (request, info) => {
      // With one server in the process, waitUntil() finds it without this.
      if (works.servers.length > 1) works.byRequest.set(request, tracker);
      const result = inner(request, info);
      return result instanceof Promise ? result.then(track) : track(result);
    };
  }
  function wrapTracked(
    inner: (request: Request, info: unknown) => Response | Promise<Response>,
  ): (request: Request, info: unknown) => Response | Promise<Response> {
    return (request, info) => {
      if (works.servers.length > 1) works.byRequest.set(request, tracker);
      const result = inner(request, info);
      return result instanceof Promise ? result : track(result);
    };
  }
  const wrapped = wrap(
    handler as (r: Request, i: unknown) => Response | Promise<Response>,
  );

  let resolveFinished!: () => void;
  let rejectFinished!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    resolveFinished = resolve;
    rejectFinished = reject;
  });
  let stopping: Promise<void> | undefined;

  const hooks = {
    handler: wrapped,
    wrap,
    track,
    wrapTracked,
    sockets,
    log,
    fatal(error: unknown) {
      forget();
      running.delete(stop);
      unwatchSignals();
      rejectFinished(error);
    },
  };
  const listening: Listening = runtime === "deno"
    ? listenDeno(hostname, port, hooks)
    : runtime === "bun"
    ? listenBun(hostname, port, hooks, {
      idleTimeoutSeconds: options.idleTimeoutSeconds ?? 30,
      original: handler,
    })
    : node!.listenNode(hostname, port, hooks, {
      headersTimeout: options.node?.headersTimeout ?? 10_000,
      requestTimeout: options.node?.requestTimeout ?? 120_000,
      keepAliveTimeout: options.node?.keepAliveTimeout ?? 5_000,
      webSocketIdleTimeout: options.node?.webSocketIdleTimeout ?? 120_000,
      original: handler,
    });

  function forget(): void {
    const index = works.servers.indexOf(tracker);
    if (index !== -1) works.servers.splice(index, 1);
  }

  // Listening: this server now takes its requests' work, and the process
  // serves again after an earlier server's shutdown.
  works.servers.push(tracker);
  endDrain();

  async function shutdown(fromSignal: boolean): Promise<void> {
    running.delete(stop);
    beginDrain();
    // Readiness is 503 now; the listener serves on while a load balancer
    // notices. A second signal still exits at once.
    if (drainMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, drainMs));
    }
    closing = true;
    // In-flight requests first (they may hand over more work), then the
    // work handed over by waitUntil().
    const drained = listening.drain().then(workDone);
    for (const entry of closeables) entry.close();
    for (const socket of sockets) socket.close(1001, "Server shutting down");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      drained.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), shutdownTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (late) listening.force();
    if (pendingWork.size > 0) {
      log(
        `serve(): shutdown cut off ${pendingWork.size} piece(s) of work still running after ${shutdownTimeoutMs} ms (waitUntil): ${
          [...new Set(pendingWork.values())].join(", ")
        }`,
      );
    }
    forget();
    // The last server closed: the process serves nothing, and a later
    // serve() (or a readiness check of another kind of server in this
    // process) starts from "not draining".
    if (works.servers.length === 0) endDrain();
    unwatchSignals();
    resolveFinished();
    if (fromSignal) exitSoon(late ? 1 : 0);
  }
  function stop(fromSignal: boolean): void {
    stopping ??= shutdown(fromSignal);
  }

  if (handleSignals) {
    running.add(stop);
    watchSignals();
  }
  if (options.signal !== undefined) {
    if (options.signal.aborted) stop(false);
    else {options.signal.addEventListener("abort", () => stop(false), {
        once: true,
      });}
  }
  if (options.onListen !== undefined) {
    const onListen = options.onListen;
    if (listening.ready) listening.ready.then(() => onListen(listening.addr));
    else onListen(listening.addr);
  }

  return {
    get addr() {
      return listening.addr;
    },
    finished,
    shutdown() {
      stop(false);
      return finished;
    },
  };
}
