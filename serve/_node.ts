/**
 * serve() on Node: @hono/node-server for requests (measured the fastest
 * well-kept adapter here; see _tools/runtimes/README.md), with a listener
 * of our own for plain requests that gives the handler the adapter's own
 * Request and writes its Response as it would (_node_listener.ts), `ws`
 * for WebSockets, and timeouts against clients that send slowly
 * (slowloris). Loaded only on Node, by serve/mod.ts.
 *
 * A small body (at most 64 KiB declared) that came with its headers is
 * read before the handler runs and handed to the adapter as `rawBody` and
 * to `formData()` as bytes: a short form is then parsed and answered
 * without waiting for a read (bench/runtimes/, "urlencoded POST": 79k
 * instructions a request against 107k through the adapter's own read). A
 * body that has not all arrived by then is left to the handler's read,
 * with `formData()`'s timeouts, as before.
 *
 * @module
 */

import { getRequestListener } from "@hono/node-server";
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  ServerResponse,
  STATUS_CODES,
} from "node:http";
import { Buffer } from "node:buffer";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { noteArrivedBody } from "../form_data/whole_body.ts";
import { plainTargetPath } from "./_target_path.ts";
import { NodeRequestHeaders } from "./_request_headers.ts";
import {
  fastListener,
  type GetRequestListener,
  OWN_HEAD,
} from "./_node_listener.ts";
import {
  type AdapterHooks,
  describe,
  type Listening,
  type NetAddr,
  type PendingUpgrade,
  PortInUseError,
  type RawSocket,
  registry,
} from "./shared.ts";

/** Timeouts of the `node:http` server, in ms. */
export interface NodeTimeouts {
  /** Time to receive a request's headers. */
  headersTimeout: number;
  /** Time to receive a whole request (headers and body). */
  requestTimeout: number;
  /** Time an idle keep-alive connection stays open. */
  keepAliveTimeout: number;
  /**
   * Time a WebSocket may receive nothing before it is pinged, and then
   * before it is cut when no pong (nor anything else) came.
   */
  webSocketIdleTimeout: number;
}

interface WsSocket {
  readonly protocol: string;
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: unknown): void;
  ping(data?: unknown): void;
  pong(data?: unknown): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: "ping" | "pong", listener: (data: Buffer) => void): void;
  on(
    event: "message",
    listener: (data: Buffer, binary: boolean) => void,
  ): void;
  on(
    event: "close",
    listener: (code: number, reason: Uint8Array) => void,
  ): void;
  on(event: "error", listener: (error: unknown) => void): void;
}

interface WsServer {
  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Uint8Array,
    callback: (socket: WsSocket) => void,
  ): void;
  on(
    event: "headers",
    listener: (headers: string[], request: IncomingMessage) => void,
  ): void;
}

/** What staged headers are written onto (the router's `applyTo` target). */
interface HeaderTarget {
  set(name: string, value: string): void;
  append(name: string, value: string): void;
}

/** Writes a request's staged headers onto a target (see `StagingResponse`). */
type WriteStaged = (to: HeaderTarget, staged: unknown) => void;

/** The router's hook: called once, it lets `info` take the staged headers. */
const NODE_FETCH = Symbol.for("fetchkit.serve.nodeFetch");
/** The method of `info` that takes them (the router's `StagedSink`). */
const STAGED_SINK = Symbol.for("fetchkit.serve.stagedSink");
/** The method of `info` that gives the path to route (the router's). */
const ROUTE_PATH = Symbol.for("fetchkit.serve.routePath");
/** The method of `info` that gives `context.headers` (the router's). */
const REQUEST_HEADERS = Symbol.for("fetchkit.serve.requestHeaders");
const STAGED_WRITE: unique symbol = Symbol("fetchkit.stagedWrite");
const STAGED: unique symbol = Symbol("fetchkit.staged");

/**
 * A `node:http` response that writes the router's staged headers into its
 * head: a header staged with `context.responseHeaders` and set on the
 * built `Response` made `@hono/node-server` turn the Response's headers
 * into an undici `Headers` and walk it (about 18,000 instructions a
 * request); here they join the plain header record the adapter writes
 * anyway. Each replaces the header of its name, whatever its case;
 * staged `Set-Cookie` values are added to the response's own (a value
 * the response has already is not sent twice: a handler may have given
 * `context.responseHeaders` as its Response's headers).
 */
class StagingResponse extends ServerResponse {
  [STAGED_WRITE]: WriteStaged | undefined = undefined;
  [STAGED]: unknown = undefined;

  override writeHead(
    status: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeaders[string][],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeaders[string][],
  ): this {
    const write = this[STAGED_WRITE];
    if (write === undefined) {
      // deno-lint-ignore no-explicit-any
      return super.writeHead(status, reason as any, headers as any);
    }
    const staged = this[STAGED];
    this[STAGED_WRITE] = undefined;
    this[STAGED] = undefined;
    collect(write, staged);
    if (typeof reason === "string") {
      return super.writeHead(status, reason, mergeStaged(this, headers));
    }
    return super.writeHead(status, mergeStaged(this, reason));
  }

  /**
   * `writeHead` of a record made for this head alone (_node_listener.ts):
   * the staged headers go straight into it, without the copy `writeHead`
   * makes of a record it is given.
   */
  [OWN_HEAD](status: number, record: OutgoingHttpHeaders): void {
    const write = this[STAGED_WRITE];
    if (write !== undefined) {
      const staged = this[STAGED];
      this[STAGED_WRITE] = undefined;
      this[STAGED] = undefined;
      // Collected once: the merge reads what stagedInto() collected.
      if (!stagedInto(record, collect(write, staged))) {
        record = mergeStaged(this, record);
      }
    }
    super.writeHead(status, record);
  }
}

/**
 * The staged headers of one head, as the router writes them (lowercased
 * names, each once; cookies by append). One object for every head: a
 * head is written synchronously, and `count` and `cookies` are reset
 * before each (the arrays keep their room, so a head allocates none).
 */
const collected = {
  names: [] as string[],
  values: [] as string[],
  count: 0,
  cookies: [] as string[],
  set(name: string, value: string): void {
    this.names[this.count] = name;
    this.values[this.count++] = value;
  },
  append(_name: string, value: string): void {
    this.cookies.push(value);
  },
};

/** `collected`, reset and holding the staged headers of one head. */
function collect(write: WriteStaged, staged: unknown): typeof collected {
  collected.count = 0;
  collected.cookies.length = 0;
  write(collected, staged);
  return collected;
}

/**
 * Adds the `collect`ed staged headers to `record` (made for one head
 * alone) when none of its names is staged and no cookie is: the usual
 * case, where the record holds only what the listener set
 * (`Content-Type`, `Content-Length`, a Response's own headers). False,
 * with `record` unchanged, otherwise: then `mergeStaged` merges them.
 */
function stagedInto(
  record: OutgoingHttpHeaders,
  { names, values, count, cookies }: typeof collected,
): boolean {
  if (cookies.length > 0) return false;
  for (const name in record) {
    if (isStaged(name, names, count)) return false;
  }
  for (let i = 0; i < count; i++) record[names[i]!] = values[i];
  return true;
}

/** Whether `name` (any case) is one of the first `count` staged names. */
function isStaged(name: string, names: string[], count: number): boolean {
  let lower: string | undefined;
  for (let i = 0; i < count; i++) {
    const staged = names[i]!;
    if (staged.length !== name.length) continue;
    if ((lower ??= name.toLowerCase()) === staged) return true;
  }
  return false;
}

/** Whether `name` is `Set-Cookie`, in any case. */
function isSetCookie(name: string): boolean {
  return name.length === 10 && name.toLowerCase() === "set-cookie";
}

/**
 * A copy of the adapter's header record (never its own object: it may be
 * the app's Response init, shared by many responses) with the staged
 * headers `collect`ed last in it.
 */
function mergeStaged(
  response: ServerResponse,
  given: OutgoingHttpHeaders | OutgoingHttpHeaders[string][] | undefined,
): OutgoingHttpHeaders {
  const { names, values, count, cookies } = collected;
  const record: OutgoingHttpHeaders = {};
  let own: OutgoingHttpHeaders[string];
  if (Array.isArray(given)) {
    // Raw [name, value, ...] pairs (not what the adapter writes).
    for (let i = 0; i + 1 < given.length; i += 2) {
      const name = String(given[i]);
      const value = given[i + 1] as string;
      if (isSetCookie(name)) own = [...toList(own), ...toList(value)];
      else if (!isStaged(name, names, count)) record[name] = value;
    }
  } else if (given !== undefined && given !== null) {
    for (const name in given) {
      if (isSetCookie(name)) own = given[name];
      else if (!isStaged(name, names, count)) record[name] = given[name];
    }
  }
  for (let i = 0; i < count; i++) record[names[i]!] = values[i];
  if (cookies.length > 0) {
    // writeHead's record replaces what setHeader() set: keep those too.
    const base = toList(own ?? response.getHeader("set-cookie"));
    for (const cookie of cookies) {
      if (!base.includes(cookie)) base.push(cookie);
    }
    cookies.length = 0;
    record["set-cookie"] = base;
  } else if (own !== undefined) record["set-cookie"] = own as string[];
  return record;
}

function toList(value: OutgoingHttpHeaders[string]): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...value] : [String(value)];
}

/** The second argument on Node: the `node:http` request, and the client. */
class NodeInfo {
  readonly incoming: IncomingMessage;
  /** Absent for an upgrade (answered on the raw socket). */
  readonly outgoing: ServerResponse | undefined;
  constructor(incoming: IncomingMessage, outgoing?: ServerResponse) {
    this.incoming = incoming;
    this.outgoing = outgoing;
  }

  get remoteAddr(): NetAddr | undefined {
    let hostname = this.incoming.socket?.remoteAddress;
    if (hostname === undefined) return undefined;
    // A dual-stack socket names IPv4 clients as ::ffff:a.b.c.d.
    if (hostname.startsWith("::ffff:") && hostname.includes(".")) {
      hostname = hostname.slice(7);
    }
    return {
      hostname,
      port: this.incoming.socket.remotePort ?? 0,
      transport: "tcp",
    };
  }
}

/**
 * The info given to a router's own `fetch`: it also takes the staged
 * headers for the head (see StagingResponse).
 */
class StagingInfo extends NodeInfo {
  #request: Request;
  #headers: NodeRequestHeaders | undefined = undefined;
  constructor(
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    request: Request,
  ) {
    super(incoming, outgoing);
    this.#request = request;
  }

  /** `context.headers`, read from node:http's record (_request_headers.ts). */
  [REQUEST_HEADERS](): Headers {
    return (this.#headers ??= new NodeRequestHeaders(
      this.incoming,
      this.#request,
    )) as unknown as Headers;
  }

  [STAGED_SINK](write: WriteStaged, staged: unknown): void {
    const outgoing = this.outgoing as StagingResponse;
    outgoing[STAGED_WRITE] = write;
    outgoing[STAGED] = staged;
  }

  /**
   * The path to route, from the request target as sent, when the
   * adapter's `request.url` keeps it unchanged (see _target_path.ts).
   */
  [ROUTE_PATH](): string | undefined {
    return plainTargetPath(this.incoming.url);
  }
}

const QUIET_MS = 60_000;

function ignore(): void {}
const decoder = new TextDecoder();

/** The request of an upgrade, as a Fetch `Request`. */
function requestOf(incoming: IncomingMessage, hostname: string): Request {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const host = incoming.headers.host ?? hostname;
  const url = new URL(incoming.url ?? "/", `http://${host}`);
  return new Request(url, { method: incoming.method, headers });
}

/**
 * Ends a socket that left node:http for an upgrade and that no WebSocket
 * took: the answer goes out with `Connection: close`, and a client that
 * does not close its side within `graceMs` is cut (node:http's timeouts
 * no longer watch it).
 */
function endUpgrade(
  socket: Duplex,
  data: string | Uint8Array,
  graceMs: number,
): void {
  socket.end(data);
  const timer = setTimeout(() => socket.destroy(), graceMs);
  (timer as { unref?(): void }).unref?.();
  socket.once("close", () => clearTimeout(timer));
}

/** Answers an upgrade request the handler refused, on the raw socket. */
async function refuse(
  socket: Duplex,
  response: Response,
  graceMs: number,
): Promise<void> {
  // An error page, not a stream: at most 64 KiB of it.
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    while (reader !== undefined && size < 65536) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, 65536 - size));
      size += chunks.at(-1)!.byteLength;
    }
  } catch {
    // A failing body: send what came.
  } finally {
    reader?.cancel().catch(() => {});
  }
  const body = Buffer.concat(chunks);
  let head = `HTTP/1.1 ${response.status} ${
    STATUS_CODES[response.status] ?? ""
  }\r\n`;
  for (const [name, value] of response.headers) {
    if (
      name === "content-length" || name === "connection" ||
      name === "transfer-encoding"
    ) continue;
    head += `${name}: ${value}\r\n`;
  }
  head += `Content-Length: ${body.byteLength}\r\nConnection: close\r\n\r\n`;
  endUpgrade(
    socket,
    Buffer.concat([Buffer.from(head, "latin1"), body]),
    graceMs,
  );
}

/**
 * Connects an open `ws` socket to upgradeWebSocket()'s handlers. A
 * function of its own, so the socket's listeners keep only what they use
 * (not the upgrade request, its headers and the handshake's buffers).
 */
function wire(
  ws: WsSocket,
  socket: Duplex,
  entry: PendingUpgrade,
  sockets: Set<RawSocket>,
  idleMs: number,
): void {
  const raw: RawSocket = {
    send: (data) => {
      ws.send(data);
      return true;
    },
    close: (code, reason) => ws.close(code, reason),
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    get readyState() {
      return ws.readyState;
    },
    protocol: ws.protocol,
  };
  sockets.add(raw);
  const sinks = entry.open(raw);
  ws.on(
    "message",
    (data, binary) =>
      // Node's own UTF-8 decoding is faster than TextDecoder's.
      sinks.message(
        binary
          ? data.buffer.slice(
            data.byteOffset,
            data.byteOffset + data.byteLength,
          ) as ArrayBuffer
          : data.toString("utf8"),
      ),
  );
  // ws ends a socket whose message is over its limit with 1009, then
  // reports the closed connection as 1006: say 1009 (and 1008 for a peer
  // cut below for not reading its pongs).
  let tooBig = false;
  let tooSlow = false;
  const limit = entry.maxMessageBytes;
  ws.on("close", (code, reason) => {
    sockets.delete(raw);
    sinks.close(
      tooBig ? 1009 : tooSlow ? 1008 : code,
      tooBig
        ? `Message over ${limit} bytes`
        : tooSlow
        ? `Reader too slow: over ${entry.maxBufferedBytes} bytes unsent`
        : decoder.decode(reason),
    );
  });
  ws.on("error", (error) => {
    if (
      (error as { code?: string })?.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"
    ) {
      tooBig = true;
    } else sinks.error(error);
  });
  // Pongs wait in the same buffer as the app's messages and count against
  // the same bound. While the socket's buffer is backed up, pings are
  // answered by one pong to the latest (as RFC 6455 5.5.3 allows) once it
  // drains: each queued write costs far more than its 127 bytes, which is
  // how a peer that pings and never reads grew memory without bound. The
  // pongs owed meanwhile count against the bound; past it the peer is cut
  // (a close frame would wait behind what it does not read), as Deno does.
  const maxBuffered = entry.maxBufferedBytes;
  const writable = socket as Duplex & { writableNeedDrain: boolean };
  let awaitingPong = false;
  let owed: Buffer | undefined;
  let owedBytes = 0;
  ws.on("ping", (data) => {
    awaitingPong = false;
    if (ws.readyState !== 1) return;
    owedBytes += data.byteLength + 2;
    if (ws.bufferedAmount + owedBytes > maxBuffered) {
      tooSlow = true;
      ws.terminate();
    } else if (writable.writableNeedDrain) {
      if (owed === undefined) {
        socket.once("drain", () => {
          const latest = owed!;
          owed = undefined;
          owedBytes = 0;
          if (ws.readyState === 1) ws.pong(latest);
        });
      }
      owed = Buffer.from(data);
    } else {
      owedBytes = 0;
      ws.pong(data);
    }
  });
  ws.on("pong", () => awaitingPong = false);
  ws.on("message", () => awaitingPong = false);
  // A peer that goes silent: pinged after idleMs, cut after idleMs more
  // (a browser answers pings by itself).
  if (idleMs > 0) {
    // The upgrade socket is a net.Socket.
    (socket as Duplex & { setTimeout(ms: number): void }).setTimeout(idleMs);
    socket.on("timeout", () => {
      if (awaitingPong || ws.readyState !== 1) ws.terminate();
      else {
        awaitingPong = true;
        ws.ping();
      }
    });
  }
}

/** Largest declared body read before the handler runs, when it has arrived. */
const ARRIVED_MAX = 64 * 1024;

/**
 * Whether the request declares a body small enough to be read before the
 * handler runs, when it has arrived with its headers (a form, a JSON
 * document sent in one packet).
 */
function smallBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  if (length === undefined) return false;
  const declared = Number(length);
  return declared > 0 && declared <= ARRIVED_MAX;
}

/**
 * A body whose declared bytes have all arrived (with the headers, in one
 * packet: the parser has pushed them a microtask after the 'request'
 * event, though it marks the message complete only later) is read here and
 * becomes `incoming.rawBody`, which @hono/node-server reads as the body: no
 * stream listeners and no waiting for the handler's read. Whether it was.
 */
function takeArrived(incoming: IncomingMessage): boolean {
  const length = incoming.readableLength;
  if (length !== Number(incoming.headers["content-length"])) return false;
  // Without a size, read() takes all that is buffered.
  const body = incoming.read() as Buffer | null;
  if (body === null) return false;
  (incoming as { rawBody?: Buffer }).rawBody = body;
  // And for formData(), which then parses it at once.
  (incoming as { [ARRIVED]?: Buffer })[ARRIVED] = body;
  // Flowing, so that 'end' comes once the parser finishes the message.
  incoming.resume();
  return true;
}

/** Marks a body `takeArrived` read (not a `rawBody` someone else set). */
const ARRIVED: unique symbol = Symbol("fetchkit.arrived");

export function listenNode(
  hostname: string | undefined,
  port: number | undefined,
  hooks: AdapterHooks,
  timeouts: NodeTimeouts & { original: unknown },
): Listening {
  const { handler, sockets } = hooks;
  // When the handler is a router's fetch, its Response comes here unread:
  // its staged headers can go in the head (see StagingResponse).
  const staging = (timeouts.original as Record<symbol, unknown> | undefined)
    ?.[NODE_FETCH];
  if (typeof staging === "function") staging();
  const Info = typeof staging === "function" ? StagingInfo : NodeInfo;
  const serveRequest = (
    request: Request,
    incoming: IncomingMessage & { [ARRIVED]?: Buffer },
    outgoing: ServerResponse,
  ) => {
    const arrived = incoming[ARRIVED];
    if (arrived !== undefined) noteArrivedBody(request, arrived);
    return handler(request, new Info(incoming, outgoing, request));
  };
  const fetch = (
    request: Request,
    env: { incoming: unknown; outgoing: unknown },
  ) =>
    serveRequest(
      request,
      env.incoming as IncomingMessage,
      env.outgoing as ServerResponse,
    );
  const listener = getRequestListener(fetch, { hostname });
  // For a body read whole before the handler: nothing is left for the
  // adapter to drain after the response (it would arm a timer to).
  const readListener = getRequestListener(fetch, {
    hostname,
    autoCleanupIncoming: false,
  });
  // Plain requests are served by our own listener (_node_listener.ts),
  // with the adapter's Request and its Response written as it would.
  const fast = fastListener(
    getRequestListener as unknown as GetRequestListener,
    serveRequest,
    hostname,
  );
  const { webSocketIdleTimeout: _, original: __, ...httpTimeouts } = timeouts;
  const server = createServer({
    ...httpTimeouts,
    ServerResponse: StagingResponse,
    // How often headersTimeout and requestTimeout are checked.
    connectionsCheckingInterval: 1000,
  }, (incoming, outgoing) => {
    if (smallBody(incoming)) {
      queueMicrotask(() => {
        if (!takeArrived(incoming)) listener(incoming, outgoing);
        else if (fast === undefined) readListener(incoming, outgoing);
        else fast(incoming, outgoing, readListener, true);
      });
    } else if (fast === undefined) listener(incoming, outgoing);
    else fast(incoming, outgoing, listener, false);
  });

  // One `ws` server per message limit: `ws` stops reading a message at
  // its limit (close 1009) instead of buffering it.
  const pending = new WeakMap<IncomingMessage, PendingUpgrade>();
  const wsServers = new Map<number, WsServer>();
  function wsServer(maxPayload: number): WsServer {
    let wss = wsServers.get(maxPayload);
    if (wss === undefined) {
      wss = new WebSocketServer({
        noServer: true,
        maxPayload,
        clientTracking: false,
        perMessageDeflate: false,
        // Pongs are sent by wire(), within the send-buffer bound.
        autoPong: false,
        handleProtocols: (_offered: Set<string>, request: IncomingMessage) =>
          pending.get(request)?.protocol || false,
      }) as unknown as WsServer;
      wss.on("headers", (lines, request) => {
        for (const [name, value] of pending.get(request)?.headers ?? []) {
          lines.push(`${name}: ${value}`);
        }
      });
      wsServers.set(maxPayload, wss);
    }
    return wss;
  }

  let closing = false;
  // A socket that leaves node:http for an upgrade leaves its timeouts
  // too: each path below gives it a deadline of its own.
  const grace = timeouts.keepAliveTimeout;
  server.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head) => {
    // A listener made here would keep this scope (the request, its
    // headers, the handshake buffer) for the socket's life: use one that
    // holds nothing.
    socket.on("error", ignore);
    if (closing) {
      endUpgrade(
        socket,
        "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        grace,
      );
      return;
    }
    let request: Request;
    try {
      request = requestOf(incoming, hostname ?? "localhost");
    } catch {
      endUpgrade(
        socket,
        "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        grace,
      );
      return;
    }
    // The handler must answer within headersTimeout, as the headers had to.
    const unanswered = setTimeout(
      () => socket.destroy(),
      timeouts.headersTimeout,
    );
    Promise.resolve()
      .then(() => handler(request, new NodeInfo(incoming)))
      .then((response) => {
        clearTimeout(unanswered);
        const entry = response === undefined
          ? undefined
          : registry().get(response);
        if (entry?.kind !== "upgrade") {
          return refuse(
            socket,
            response ?? new Response(null, { status: 500 }),
            grace,
          );
        }
        if (socket.destroyed) return;
        pending.set(incoming, entry);
        wsServer(entry.maxMessageBytes).handleUpgrade(
          incoming,
          socket,
          head,
          (ws) =>
            wire(ws, socket, entry, sockets, timeouts.webSocketIdleTimeout),
        );
      })
      .catch(() => {
        clearTimeout(unanswered);
        if (!socket.destroyed) {
          endUpgrade(
            socket,
            "HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
            grace,
          );
        }
      });
  });

  // Descriptor exhaustion fails an accept; the listener stays, so the
  // server answers again once descriptors are free. Log it, do not crash.
  let lastLog = -Infinity;
  let thrown = false;
  server.on("error", (error: Error & { code?: string }) => {
    if (thrown) return;
    if (!server.listening) {
      hooks.fatal(
        error.code === "EADDRINUSE"
          ? new PortInUseError(port ?? 3000, hostname ?? "::", { cause: error })
          : error,
      );
      return;
    }
    const now = Date.now();
    if (now - lastLog > QUIET_MS) {
      lastLog = now;
      hooks.log(
        `Server failed to accept a connection on port ${
          (server.address() as { port?: number } | null)?.port ?? port
        } (${describe(error)}); still listening.`,
      );
    }
  });

  const internal = server as unknown as {
    _listen2?: (
      host: string,
      port: number,
      family: number,
      backlog: number,
    ) => void;
  };
  if (
    hostname !== undefined && isIP(hostname) &&
    typeof internal._listen2 === "function"
  ) {
    // listen(port, host) binds a tick later, after a DNS lookup that an
    // address does not need; binding now gives `addr` at once.
    internal._listen2(hostname, port ?? 3000, isIP(hostname), 511);
  } else if (hostname === undefined) {
    server.listen(port ?? 3000);
  } else {
    server.listen(port ?? 3000, hostname);
  }
  const bound = server.address();
  if (bound === null && (hostname === undefined || isIP(hostname))) {
    // The error event follows on the next tick; this says it now.
    thrown = true;
    throw new PortInUseError(port ?? 3000, hostname ?? "::");
  }

  return {
    ready: bound === null
      ? new Promise<void>((resolve) => server.once("listening", resolve))
      : undefined,
    get addr(): NetAddr {
      const address = server.address();
      if (address === null || typeof address === "string") {
        return {
          hostname: hostname ?? "",
          port: port ?? 3000,
          transport: "tcp",
        };
      }
      return {
        hostname: address.address,
        port: address.port,
        transport: "tcp",
      };
    },
    drain() {
      closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => {
          clearInterval(idle);
          resolve();
        });
        // Connections that finish their request go idle: close them as
        // they do, so keep-alive clients do not hold the shutdown.
        server.closeIdleConnections();
        const idle = setInterval(() => server.closeIdleConnections(), 50);
      });
    },
    force() {
      server.closeAllConnections();
    },
  };
}
