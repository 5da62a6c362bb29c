/**
 * WebSockets on Deno, Bun and Node: `upgradeWebSocket(context, handlers)`
 * in a route answers the upgrade, and the handlers get the socket's
 * events.
 *
 * - Deno: `Deno.upgradeWebSocket`. Bun and Node: through the server of
 *   `serve()` from `@fetchkit/toolkit/serve` (Bun's `server.upgrade`, the
 *   `ws` package on Node), so serve the app with `serve()` there.
 * - Cross-site WebSocket hijacking: a browser sends its page's `Origin`
 *   and the cookies of the target site. An `Origin` whose host is not the
 *   request's own is refused with `403` unless `allowedOrigins` lets it
 *   in. A request without `Origin` (not from a browser) is let in.
 * - DNS rebinding: a page on a name its owner points at your address
 *   sends its own name as both `Host` and `Origin`, which the check above
 *   lets in. `allowedHosts: ["localhost", "app.example.com"]` refuses any
 *   other `Host` with `403`; set it on servers a browser can reach on
 *   `localhost` or a private address (development servers, devices, admin
 *   tools), and wherever you know the names you are served on.
 * - An `Upgrade: websocket` request without `Connection: Upgrade` gets a
 *   plain `400` naming the header, on every runtime (never a `101` that
 *   leaves the connection speaking HTTP).
 * - Messages longer than `maxMessageBytes` (1 MiB) close the socket with
 *   1009. On Node, `ws` stops reading at the limit; Deno and Bun hand over
 *   a whole message first (Deno takes up to 64 MiB, Bun up to 64 MiB as
 *   `serve()` sets it), and it is then refused.
 * - Backpressure: when a client reads slower than the app sends, unsent
 *   data waits in the server's buffer; past `maxBufferedBytes` (4 MiB)
 *   the socket is closed with 1008, so a slow reader cannot grow memory
 *   without bound. `ws.bufferedAmount` lets an app slow down before that.
 * - A `serve()` shutdown closes the sockets with 1001.
 *
 * @example An echo endpoint
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { serve } from "@fetchkit/toolkit/serve";
 * import { upgradeWebSocket } from "@fetchkit/toolkit/websocket";
 *
 * const router = createRouter();
 * router.get("/echo", (context) =>
 *   upgradeWebSocket(context, {
 *     onMessage(event, ws) {
 *       ws.send(event.data);
 *     },
 *   }));
 *
 * const server = serve(router.fetch, { hostname: "127.0.0.1", port: 0 });
 * const client = new WebSocket(`ws://127.0.0.1:${server.addr.port}/echo`);
 * await new Promise((resolve) => client.onopen = resolve);
 * client.send("hello");
 * const reply = await new Promise<MessageEvent>((resolve) => client.onmessage = resolve);
 * console.log(reply.data); // "hello"
 * client.close();
 * await server.shutdown();
 * ```
 *
 * @module
 */

import {
  bunServers,
  openWebSockets,
  type PendingUpgrade,
  type RawSocket,
  registry,
  type SocketSinks,
} from "../serve/shared.ts";

/**
 * The socket, as the handlers see it.
 *
 * @example
 * ```ts
 * import type { WebSocketConnection } from "@fetchkit/toolkit/websocket";
 *
 * function greet(ws: WebSocketConnection): void {
 *   if (ws.readyState === 1) ws.send(JSON.stringify({ hello: ws.protocol }));
 * }
 * ```
 */
export interface WebSocketConnection {
  /**
   * Sends a text (string) or binary message. Ignored once the socket is
   * closing. Closes the socket with 1008 when more than
   * `maxBufferedBytes` would wait unsent.
   */
  send(data: string | ArrayBuffer | ArrayBufferView): void;
  /** Closes the socket: `code` 1000 unless given, `reason` at most 123 bytes. */
  close(code?: number, reason?: string): void;
  /** The subprotocol chosen, or `""`. */
  readonly protocol: string;
  /** 0 connecting, 1 open, 2 closing, 3 closed (as `WebSocket.readyState`). */
  readonly readyState: number;
  /** Bytes sent but not yet written to the network. */
  readonly bufferedAmount: number;
  /** The URL of the upgrade request. */
  readonly url: string;
}

/**
 * The events of a socket. `onMessage` gets text as a string and binary
 * as an `ArrayBuffer` in `event.data`; `onClose` gets `code`, `reason` and `wasClean`.
 *
 * @example
 * ```ts
 * import type { WebSocketHandlers } from "@fetchkit/toolkit/websocket";
 *
 * const handlers: WebSocketHandlers = {
 *   onOpen: (_event, ws) => ws.send("welcome"),
 *   onMessage: (event, ws) => ws.send(event.data),
 *   onClose: (event) => console.log("closed", event.code),
 * };
 * ```
 */
export interface WebSocketHandlers {
  /** The socket is open. */
  onOpen?(event: Event, ws: WebSocketConnection): void;
  /** A message arrived: `event.data` is a string or an `ArrayBuffer`. */
  onMessage?(event: WebSocketMessageEvent, ws: WebSocketConnection): void;
  /** The socket closed. */
  onClose?(event: WebSocketCloseEvent, ws: WebSocketConnection): void;
  /** The socket failed; `onClose` follows. */
  onError?(event: Event, ws: WebSocketConnection): void;
}

/**
 * What `onMessage` receives: Deno's `MessageEvent` on Deno, an object
 * with the same `type` and `data` on Bun and Node.
 *
 * @example
 * ```ts
 * import type { WebSocketMessageEvent } from "@fetchkit/toolkit/websocket";
 *
 * const text = (event: WebSocketMessageEvent) =>
 *   typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data);
 * ```
 */
export interface WebSocketMessageEvent {
  /** `"message"`. */
  readonly type: string;
  /** A text message as a string, a binary one as an `ArrayBuffer`. */
  readonly data: string | ArrayBuffer;
}

/**
 * What `onClose` receives (a `CloseEvent` where the runtime has one).
 *
 * @example
 * ```ts
 * import type { WebSocketCloseEvent } from "@fetchkit/toolkit/websocket";
 *
 * const describe = (event: WebSocketCloseEvent) => `${event.code} ${event.reason}`;
 * ```
 */
export interface WebSocketCloseEvent extends Event {
  /** The close code: 1000 normal, 1001 going away, 1009 too big, ... */
  readonly code: number;
  /** The reason the peer gave. */
  readonly reason: string;
  /** Whether the closing handshake completed. */
  readonly wasClean: boolean;
}

/**
 * Options of {@linkcode upgradeWebSocket}.
 *
 * @example
 * ```ts
 * import type { UpgradeWebSocketOptions } from "@fetchkit/toolkit/websocket";
 *
 * const options: UpgradeWebSocketOptions = {
 *   protocols: ["chat.v2", "chat.v1"],
 *   allowedOrigins: ["https://app.example.com"],
 *   maxMessageBytes: 64 * 1024,
 * };
 * ```
 */
export interface UpgradeWebSocketOptions {
  /**
   * The subprotocols this endpoint speaks, preferred first. The first of
   * them the client offers (`Sec-WebSocket-Protocol`) is chosen; a client
   * that offers only others is refused with `400`.
   */
  protocols?: readonly string[];
  /**
   * Origins let in besides the request's own host: full origins such as
   * `"https://app.example.com"`, `"*"` for any, or a function.
   */
  allowedOrigins?: readonly string[] | ((origin: string) => boolean);
  /**
   * The host names this endpoint answers to (`"localhost"`,
   * `"app.example.com"`, `"app.example.com:8443"`; an entry without a port
   * matches any port). When set, an upgrade whose `Host` is not listed is
   * refused with `403` (the `Origin` check still applies). Set it for anything reachable from a browser on a host name you
   * know, above all a server on `localhost` or a private network: the
   * `Origin` check alone compares the `Origin` with the request's own
   * `Host`, and a DNS-rebinding page (`evil.example` made to resolve to
   * `127.0.0.1`) sends `Host: evil.example` with its own matching
   * `Origin`, so it passes unless the host is checked.
   */
  allowedHosts?: readonly string[];
  /**
   * Longest message accepted, in bytes; a longer one closes the socket
   * with 1009.
   *
   * @default {1048576}
   */
  maxMessageBytes?: number;
  /**
   * Most bytes that may wait unsent for a slow reader; past it the socket
   * closes with 1008.
   *
   * @default {4194304}
   */
  maxBufferedBytes?: number;
  /** More headers for the `101` response. */
  headers?: HeadersInit;
  /** Receives an error thrown by a handler. Default `console.error`. */
  onHandlerError?: (error: unknown) => void;
}

/**
 * Where the upgrade request is read from: a `RequestContext` (anything
 * with `request`), or the `Request` itself.
 *
 * @example
 * ```ts
 * import type { UpgradeSource } from "@fetchkit/toolkit/websocket";
 *
 * const source: UpgradeSource = new Request("http://localhost/ws");
 * ```
 */
export type UpgradeSource = { readonly request: Request } | Request;

const MiB = 1024 * 1024;
const OPEN = 1;
const encoder = new TextEncoder();

interface DenoUpgrade {
  upgradeWebSocket(
    request: Request,
    options?: { protocol?: string },
  ): { socket: WebSocket; response: Response };
}

function detectRuntime(): "deno" | "bun" | "node" {
  if (
    typeof (globalThis as { Deno?: Partial<DenoUpgrade> }).Deno
      ?.upgradeWebSocket === "function"
  ) return "deno";
  if ((globalThis as { Bun?: unknown }).Bun !== undefined) return "bun";
  return "node";
}

function refuse(
  status: number,
  message: string,
  headers?: HeadersInit,
): Response {
  const response = new Response(message + "\n", { status, headers });
  response.headers.set("Content-Type", "text/plain; charset=utf-8");
  return response;
}

function checkSize(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `upgradeWebSocket(): ${name} must be a whole number of bytes >= 1, got ${value}`,
    );
  }
  return value;
}

/** The host of a request URL; undefined when it cannot be parsed (Bun, a bad Host). */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** Lower-cased entries of `allowedHosts`; throws on a URL or a path. */
function checkHosts(
  hosts: readonly string[] | undefined,
): readonly string[] | undefined {
  if (hosts === undefined) return undefined;
  return hosts.map((host) => {
    if (typeof host !== "string" || !/^[^\s/?#@]+$/.test(host)) {
      throw new TypeError(
        `upgradeWebSocket(): allowedHosts entries are host names with an optional port ("localhost", "app.example.com:8443"), got ${
          JSON.stringify(host)
        }`,
      );
    }
    return host.toLowerCase();
  });
}

/**
 * Whether a Host (`name` or `name:port`) is in the list: an entry with a
 * port matches that port only, one without matches any port.
 */
function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const lower = host.toLowerCase();
  if (allowed.includes(lower)) return true;
  // "[::1]:8000" -> "[::1]"; "example.com:8000" -> "example.com".
  const name = lower.replace(/:\d+$/, "");
  return allowed.includes(name);
}

/** Whether `origin` may open a socket to `request`. */
function originAllowed(
  origin: string,
  request: Request,
  allowed: UpgradeWebSocketOptions["allowedOrigins"],
): boolean {
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false; // "null" (a sandboxed frame, a file) and garbage
  }
  // The Host was checked against allowedHosts already: an Origin equal
  // to it is this site's.
  if (host === hostOf(request.url)) return true;
  if (typeof allowed === "function") return allowed(origin) === true;
  return allowed !== undefined &&
    (allowed.includes("*") || allowed.includes(origin));
}

function byteLength(
  data: string | ArrayBuffer | ArrayBufferView,
  limit: number,
): number {
  if (typeof data !== "string") return data.byteLength;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: count only when it matters.
  return data.length * 3 <= limit
    ? data.length
    : encoder.encode(data).byteLength;
}

function closeEvent(
  code: number,
  reason: string,
  wasClean: boolean,
): WebSocketCloseEvent {
  const Close = (globalThis as { CloseEvent?: typeof CloseEvent }).CloseEvent;
  if (Close !== undefined) {
    return new Close("close", { code, reason, wasClean });
  }
  return Object.assign(new Event("close"), { code, reason, wasClean });
}

function errorEvent(error: unknown): Event {
  const ErrorCtor =
    (globalThis as { ErrorEvent?: typeof ErrorEvent }).ErrorEvent;
  if (ErrorCtor !== undefined) {
    return new ErrorCtor("error", {
      error,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  return Object.assign(new Event("error"), { error });
}

/** The socket the handlers get, over a runtime's socket. */
class Connection implements WebSocketConnection {
  readonly url: string;
  #raw: RawSocket;
  #maxBuffered: number;
  constructor(raw: RawSocket, url: string, maxBuffered: number) {
    this.#raw = raw;
    this.url = url;
    this.#maxBuffered = maxBuffered;
  }
  get protocol(): string {
    return this.#raw.protocol;
  }
  get readyState(): number {
    return this.#raw.readyState;
  }
  get bufferedAmount(): number {
    return this.#raw.bufferedAmount;
  }
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    if (this.#raw.readyState !== OPEN) return;
    if (
      this.#raw.send(data) && this.#raw.bufferedAmount > this.#maxBuffered
    ) {
      this.#raw.close(
        1008,
        `Reader too slow: over ${this.#maxBuffered} bytes unsent`,
      );
    }
  }
  close(code?: number, reason?: string): void {
    if (
      code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999) &&
      ![1001, 1008, 1009, 1011, 1013].includes(code)
    ) {
      throw new TypeError(
        `WebSocket close code must be 1000, 1001, 1008, 1009, 1011, 1013 or 3000-4999, got ${code}`,
      );
    }
    if (reason !== undefined && encoder.encode(reason).byteLength > 123) {
      throw new TypeError(
        `WebSocket close reason must be at most 123 bytes of UTF-8, got ${
          encoder.encode(reason).byteLength
        }`,
      );
    }
    if (this.#raw.readyState >= 2) return;
    this.#raw.close(code ?? 1000, reason);
  }
}

/** Wires a socket's events to the handlers, with the message limit. */
function sinksFor(
  connection: Connection,
  handlers: WebSocketHandlers,
  maxMessageBytes: number,
  raw: RawSocket,
  onHandlerError: (error: unknown) => void,
): SocketSinks {
  function call(run: () => void): void {
    try {
      run();
    } catch (error) {
      onHandlerError(error);
    }
  }
  return {
    message(data, native) {
      if (byteLength(data, maxMessageBytes) > maxMessageBytes) {
        raw.close(1009, `Message over ${maxMessageBytes} bytes`);
        return;
      }
      if (handlers.onMessage) {
        // Deno's own MessageEvent, else a plain one: constructing a
        // MessageEvent costs about 1 µs on Bun and Node, a sixth of a
        // round trip.
        const event =
          (native ?? { type: "message", data }) as WebSocketMessageEvent;
        call(() => handlers.onMessage!(event, connection));
      }
    },
    close(code, reason) {
      if (handlers.onClose) {
        const event = closeEvent(code, reason, code !== 1006);
        call(() => handlers.onClose!(event, connection));
      }
    },
    error(error) {
      if (handlers.onError) {
        const event = errorEvent(error);
        call(() => handlers.onError!(event, connection));
      }
    },
    drain() {},
  };
}

/** A 101 response: Node's Response refuses status 101, so it is told. */
function switchingProtocols(headers: Headers): Response {
  try {
    return new Response(null, { status: 101, headers });
  } catch {
    return new SwitchingProtocols(headers);
  }
}

class SwitchingProtocols extends Response {
  constructor(headers: Headers) {
    super(null, { status: 200, headers });
  }
  override get status(): number {
    return 101;
  }
  override get ok(): boolean {
    return false;
  }
}

/**
 * Answers a WebSocket upgrade request: returns the `101` response (or a
 * `4xx` that says what was wrong), and calls the handlers as the socket
 * opens, receives, fails and closes.
 *
 * Refused: a request that is not a WebSocket upgrade (`426`, or `400`
 * without `Connection: Upgrade`, without `Sec-WebSocket-Key` or with a
 * version other than 13), a `Host` not in `allowedHosts` or a cross-site
 * `Origin` (`403`), offered subprotocols none of which is in `protocols`
 * (`400`).
 *
 * @example Subprotocols, and origins of another site let in
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { upgradeWebSocket } from "@fetchkit/toolkit/websocket";
 *
 * const router = createRouter();
 * router.get("/live", (context) =>
 *   upgradeWebSocket(context, {
 *     onOpen: (_event, ws) => ws.send(`speaking ${ws.protocol}`),
 *   }, {
 *     protocols: ["live.v2", "live.v1"],
 *     allowedOrigins: ["https://dashboard.example.com"],
 *   }));
 *
 * // Not an upgrade: 426 Upgrade Required.
 * const response = await router.fetch(new Request("http://localhost/live"));
 * console.log(response.status); // 426
 * ```
 *
 * @param context The request context (or the `Request`).
 * @param handlers `onOpen`, `onMessage`, `onClose`, `onError`.
 * @param options Subprotocols, allowed origins, message and buffer limits.
 * @returns The response to return from the handler.
 * @throws {TypeError} When an option is malformed.
 * @throws {Error} On Bun or Node when the app is not served by `serve()`.
 */
export function upgradeWebSocket(
  context: UpgradeSource,
  handlers: WebSocketHandlers,
  options: UpgradeWebSocketOptions = {},
): Response {
  const request = context instanceof Request ? context : context.request;
  const maxMessageBytes = checkSize(
    "maxMessageBytes",
    options.maxMessageBytes,
    MiB,
  );
  const maxBufferedBytes = checkSize(
    "maxBufferedBytes",
    options.maxBufferedBytes,
    4 * MiB,
  );
  const allowedHosts = checkHosts(options.allowedHosts);
  const onHandlerError = options.onHandlerError ??
    ((error: unknown) => console.error("WebSocket handler failed:", error));
  const headers = request.headers;

  if (
    request.method !== "GET" ||
    headers.get("upgrade")?.toLowerCase() !== "websocket"
  ) {
    return refuse(
      426,
      "Expected a WebSocket upgrade: GET with Upgrade: websocket",
      {
        Upgrade: "websocket",
        Connection: "Upgrade",
      },
    );
  }
  const connection = headers.get("connection");
  if (
    connection === null ||
    !connection.split(",").some((token) =>
      token.trim().toLowerCase() === "upgrade"
    )
  ) {
    // A 101 here would not switch the connection (Node would answer it
    // and go on serving HTTP; a proxy that trusts the 101 tunnels past
    // itself), and Deno's own upgrade would throw.
    return refuse(
      400,
      `WebSocket upgrade needs Connection: Upgrade (got ${
        connection === null
          ? "no Connection header"
          : JSON.stringify(connection)
      })`,
    );
  }
  if (!headers.has("sec-websocket-key")) {
    return refuse(400, "WebSocket upgrade without Sec-WebSocket-Key");
  }
  if (headers.get("sec-websocket-version") !== "13") {
    return refuse(400, "WebSocket version must be 13", {
      "Sec-WebSocket-Version": "13",
    });
  }
  if (allowedHosts !== undefined) {
    const host = headers.get("host") ?? hostOf(request.url) ?? "";
    if (!hostAllowed(host, allowedHosts)) {
      return refuse(
        403,
        `WebSocket upgrade refused: Host ${
          JSON.stringify(host)
        } is not one of allowedHosts (${allowedHosts.join(", ")})`,
      );
    }
  }
  const origin = headers.get("origin");
  if (
    origin !== null &&
    !originAllowed(origin, request, options.allowedOrigins)
  ) {
    return refuse(
      403,
      `WebSocket upgrade refused: Origin ${
        JSON.stringify(origin)
      } is not this site (let it in with allowedOrigins)`,
    );
  }
  let protocol = "";
  const offered = headers.get("sec-websocket-protocol");
  if (offered !== null && options.protocols !== undefined) {
    const list = offered.split(",").map((name) => name.trim());
    protocol = options.protocols.find((name) => list.includes(name)) ?? "";
    if (protocol === "") {
      return refuse(
        400,
        `None of the offered WebSocket subprotocols (${
          list.join(", ")
        }) is spoken here; this endpoint speaks ${
          options.protocols.join(", ")
        }`,
      );
    }
  }
  const extra = new Headers(options.headers);
  if (protocol !== "") extra.set("Sec-WebSocket-Protocol", protocol);

  const runtime = detectRuntime();
  if (runtime === "deno") {
    return upgradeDeno(request, handlers, {
      protocol,
      extra,
      maxMessageBytes,
      maxBufferedBytes,
      onHandlerError,
    });
  }

  const url = request.url;
  const pending: PendingUpgrade = {
    kind: "upgrade",
    protocol,
    maxMessageBytes,
    maxBufferedBytes,
    headers: new Headers(options.headers),
    open(raw) {
      const connection = new Connection(raw, url, maxBufferedBytes);
      const sinks = countOpen(sinksFor(
        connection,
        handlers,
        maxMessageBytes,
        raw,
        onHandlerError,
      ));
      if (handlers.onOpen) {
        try {
          handlers.onOpen(new Event("open"), connection);
        } catch (error) {
          onHandlerError(error);
        }
      }
      return sinks;
    },
  };
  if (runtime === "bun") {
    let upgraded = false;
    for (const server of bunServers()) {
      const bun = server as {
        upgrade(request: Request, options: unknown): boolean;
      };
      if (
        bun.upgrade(request, { data: { upgrade: pending }, headers: extra })
      ) {
        upgraded = true;
        break;
      }
    }
    if (!upgraded) {
      throw new Error(
        "upgradeWebSocket(): on Bun, serve the app with serve() from @fetchkit/toolkit/serve, which gives Bun.serve the WebSocket handlers",
      );
    }
  }
  const response = switchingProtocols(extra);
  registry().set(response, pending);
  return response;
}

/**
 * Counts a socket open from its handshake (now) to its close, for
 * `openWebSockets()` (the metrics' `http_open_websockets`).
 */
function countOpen(sinks: SocketSinks): SocketSinks {
  const open = openWebSockets();
  open.count++;
  let closed = false;
  const close = sinks.close;
  sinks.close = (code, reason) => {
    if (!closed) {
      closed = true;
      open.count--;
    }
    close.call(sinks, code, reason);
  };
  return sinks;
}

function upgradeDeno(
  request: Request,
  handlers: WebSocketHandlers,
  settings: {
    protocol: string;
    extra: Headers;
    maxMessageBytes: number;
    maxBufferedBytes: number;
    onHandlerError: (error: unknown) => void;
  },
): Response {
  const deno = (globalThis as unknown as { Deno: DenoUpgrade }).Deno;
  const { socket, response } = deno.upgradeWebSocket(
    request,
    settings.protocol === "" ? {} : { protocol: settings.protocol },
  );
  socket.binaryType = "arraybuffer";
  for (const [name, value] of settings.extra) {
    if (name !== "sec-websocket-protocol") response.headers.set(name, value);
  }
  const raw: RawSocket = {
    send: (data) => {
      socket.send(data);
      return true;
    },
    close: (code, reason) => socket.close(code, reason),
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    get readyState() {
      return socket.readyState;
    },
    // Deno's server-side socket reports "" whatever the 101 chose.
    protocol: settings.protocol,
  };
  const connection = new Connection(
    raw,
    request.url,
    settings.maxBufferedBytes,
  );
  const sinks = sinksFor(
    connection,
    handlers,
    settings.maxMessageBytes,
    raw,
    settings.onHandlerError,
  );
  let closed!: () => void;
  const done = new Promise<void>((resolve) => closed = resolve);
  socket.onopen = () => {
    if (!handlers.onOpen) return;
    try {
      handlers.onOpen(new Event("open"), connection);
    } catch (error) {
      settings.onHandlerError(error);
    }
  };
  socket.onmessage = (event) => sinks.message(event.data, event);
  socket.onerror = (event) =>
    sinks.error((event as ErrorEvent).error ?? (event as ErrorEvent).message);
  let counted = false;
  socket.addEventListener("open", () => {
    counted = true;
    openWebSockets().count++;
  });
  socket.onclose = (event) => {
    if (counted) openWebSockets().count--;
    counted = false;
    closed();
    sinks.close(event.code, event.reason);
  };
  registry().set(response, {
    kind: "closeable",
    close: () => {
      if (socket.readyState < 2) socket.close(1001, "Server shutting down");
    },
    done,
  });
  return response;
}
