/**
 * serve()'s own `node:http` request listener for the plain requests:
 * GET and HEAD, and a request whose small body arrived with its headers
 * (`rawBody`), with an origin-form target and a `Host` that
 * `@hono/node-server` itself takes as they are (its own tests, repeated
 * here without regular expressions). Such a request gets the adapter's
 * own lazy `Request` (its prototype: `url`, `headers`, `signal`, the body
 * and its stream, `clone()`, `new Request(request)` behave exactly as
 * through the adapter), built without the adapter's three regular
 * expressions, and a `Response` of the adapter's (a status, a string,
 * bytes or no body; no headers, a plain record or a `Headers`) is written
 * here as the adapter writes it. Anything else (a stream or Blob body,
 * headers given as a list of pairs, a thrown or rejected handler, a value
 * that is no Response) is handed to the adapter's listener, which answers
 * it exactly as before; every other request goes to the adapter whole.
 *
 * The request's `signal` watches the connection from its first read: a
 * client that went away before the answer was written aborts it then or
 * later, as through the adapter, without a `close` listener for requests
 * whose handler never reads it.
 *
 * When the adapter's parts cannot be found (another version of it), there
 * is no fast listener and every request goes through the adapter.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { Buffer } from "node:buffer";
import { plainPathEnd } from "./_target_path.ts";

type Listener = (
  incoming: IncomingMessage,
  outgoing: ServerResponse,
) => unknown;

/** The adapter's `getRequestListener`, as serve() calls it. */
export type GetRequestListener = (
  fetch: (
    request: Request,
    env: { incoming: unknown; outgoing: unknown },
  ) => unknown,
  options: { hostname?: string; autoCleanupIncoming?: boolean },
) => Listener;

/** The adapter's private parts this listener builds requests with. */
interface AdapterParts {
  /** The prototype of the adapter's lazy requests (with `signal` wrapped). */
  proto: object;
  incoming: symbol;
  method: symbol;
  url: symbol;
  abort: symbol;
  /** The adapter's Response keeps `[status, body, headers]` under it. */
  cache: symbol;
}

const WATCHED: unique symbol = Symbol("fetchkit.watched");
const OUTGOING: unique symbol = Symbol("fetchkit.outgoing");

function symbolNamed(
  symbols: symbol[],
  description: string,
): symbol | undefined {
  return symbols.find((symbol) => symbol.description === description);
}

/**
 * Finds the adapter's request prototype and keys by serving it one
 * request of a stand-in connection (no socket is touched), and the
 * Response's cache key on a Response of its own (the adapter has then
 * made its classes the global `Request` and `Response`).
 */
function findParts(get: GetRequestListener): AdapterParts | undefined {
  let captured: Request | undefined;
  const listener = get((request) => {
    captured = request;
    return new Response(null);
  }, { hostname: "localhost", autoCleanupIncoming: false });
  const incoming = {
    method: "GET",
    url: "/",
    headers: { host: "localhost" },
    rawHeaders: ["Host", "localhost"],
    socket: {},
  };
  const outgoing = { writeHead() {}, end() {}, on() {}, once() {} };
  try {
    const done = listener(
      incoming as unknown as IncomingMessage,
      outgoing as unknown as ServerResponse,
    ) as Promise<void> | undefined;
    done?.catch?.(() => {});
  } catch {
    return undefined;
  }
  if (captured === undefined) return undefined;
  const own = Object.getOwnPropertySymbols(captured);
  const base = Object.getPrototypeOf(captured) as object;
  const keys = {
    incoming: symbolNamed(own, "incomingKey"),
    method: symbolNamed(own, "methodKey"),
    url: symbolNamed(own, "urlKey"),
    abort: symbolNamed(Object.getOwnPropertySymbols(base), "abortRequest"),
    cache: symbolNamed(
      Object.getOwnPropertySymbols(new Response("")),
      "cache",
    ),
  };
  const signal = Object.getOwnPropertyDescriptor(base, "signal")?.get;
  if (
    keys.incoming === undefined || keys.method === undefined ||
    keys.url === undefined || keys.abort === undefined ||
    keys.cache === undefined || signal === undefined ||
    (captured as { url: string }).url !== "http://localhost/"
  ) return undefined;
  const abort = keys.abort;
  const proto = Object.create(base, {
    signal: {
      get(this: Record<symbol, unknown>) {
        if (this[WATCHED] === undefined) watch(this, abort);
        return signal.call(this);
      },
      configurable: true,
    },
  });
  return { proto, ...keys } as AdapterParts;
}

/**
 * From the first read of `signal`: aborts the request when its client
 * went away before the answer was written (now, or when it does), with
 * the adapter's reasons.
 */
function watch(request: Record<symbol, unknown>, abort: symbol): void {
  request[WATCHED] = true;
  const outgoing = request[OUTGOING] as ServerResponse | undefined;
  if (outgoing === undefined) return;
  const incoming = outgoing.req;
  const aborted = (): void => {
    const errored = incoming.errored;
    if (errored) {
      (request[abort] as (reason: string) => void)(errored.toString());
    } else if (!outgoing.writableFinished) {
      (request[abort] as (reason: string) => void)(
        "Client connection prematurely closed.",
      );
    }
  };
  const socket = incoming.socket;
  if (incoming.errored || socket === null || socket.destroyed) aborted();
  else outgoing.once("close", aborted);
}

/** Characters the adapter keeps in a target's query: 1, by char code. */
const QUERY = new Uint8Array(128);
// Its /^\/[!#$&-;=?-\[\]_a-z~]*$/ without "#" (a fragment: the URL
// parser would drop it, so such a target takes the adapter's way).
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  if (
    char === "!" || char === "$" || (code >= 38 && code <= 59) ||
    char === "=" || (code >= 63 && code <= 91) || char === "]" ||
    char === "_" || (code >= 97 && code <= 122) || char === "~"
  ) QUERY[code] = 1;
}

/**
 * Whether the adapter uses `target` as it is in `request.url`: origin
 * form, a path of plain characters with no segment starting with `.`, a
 * query of the characters it keeps, and no `/.` anywhere (its dot-segment
 * test reads the query too).
 */
export function plainTarget(target: string): boolean {
  const length = target.length;
  let i = plainPathEnd(target);
  if (i === -1) return false;
  let previous = target.charCodeAt(i - 1);
  for (; i < length; i++) {
    const code = target.charCodeAt(i);
    if (code > 127 || QUERY[code] === 0) return false;
    if (code === 46 /* . */ && previous === 47 /* / */) return false;
    previous = code;
  }
  return true;
}

/**
 * Whether the adapter takes `host` as it is: `[a-z0-9._-]+`, then
 * optionally `:` and a port of 4 or 5 digits as its test allows
 * (`[1-5]\d{3,4}` or `[6-9]\d{3}`).
 */
export function plainHost(host: string): boolean {
  const length = host.length;
  let i = 0;
  for (; i < length; i++) {
    const code = host.charCodeAt(i);
    if (code === 58 /* : */) break;
    if (
      !((code >= 97 && code <= 122) || (code >= 48 && code <= 57) ||
        code === 46 || code === 95 || code === 45)
    ) return false;
  }
  if (i === 0) return false;
  if (i === length) return true;
  const digits = length - i - 1;
  const first = host.charCodeAt(i + 1);
  if (first >= 49 && first <= 53) {
    if (digits !== 4 && digits !== 5) return false;
  } else if (first >= 54 && first <= 57) {
    if (digits !== 4) return false;
  } else return false;
  for (let j = i + 2; j < length; j++) {
    const code = host.charCodeAt(j);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

const DEFAULT_TYPE = "text/plain; charset=UTF-8";

/**
 * The method of a `ServerResponse` that writes a head whose record the
 * caller made for it alone (`writeHead(status, record)`, with the record
 * its own to add to): serve() on Node puts the router's staged headers
 * straight into it, where `writeHead` has to copy a record it is given.
 */
export const OWN_HEAD: unique symbol = Symbol("fetchkit.ownHead");

type OwnHead = (status: number, record: Record<string, unknown>) => void;

/** Writes `record`, made here for this head alone, as the head. */
function head(
  outgoing: ServerResponse,
  status: number,
  record: Record<string, unknown>,
): void {
  const own = (outgoing as unknown as { [OWN_HEAD]?: OwnHead })[OWN_HEAD];
  if (own === undefined) {
    outgoing.writeHead(status, record as Record<string, string>);
  } else own.call(outgoing, status, record);
}

/**
 * `node:http`'s key of a response's header record (`null` until a header
 * is set with `setHeader`), found on the first response: with none set,
 * `hasHeader` of any name is false without three calls that validate and
 * lowercase their name. `null` when not found (another Node): then
 * `hasHeader` is asked.
 */
let outHeaders: symbol | null | undefined;

function noHeaderSet(outgoing: ServerResponse): boolean {
  if (outHeaders === undefined) {
    outHeaders = symbolNamed(
      Object.getOwnPropertySymbols(outgoing),
      "kOutHeaders",
    ) ?? null;
  }
  return outHeaders !== null &&
    (outgoing as unknown as Record<symbol, unknown>)[outHeaders] === null;
}

/** The adapter's way of setting Content-Length without copying the record. */
function setLength(
  outgoing: ServerResponse,
  status: number,
  length: number,
): boolean {
  const http1 = outgoing as ServerResponse & {
    _contentLength: number | null;
    _hasBody: boolean;
    useChunkedEncodingByDefault: boolean;
    _removedContLen: boolean;
  };
  if (
    http1._contentLength === null && http1._hasBody &&
    http1.useChunkedEncodingByDefault && !http1._removedContLen &&
    status >= 200 && status !== 204 && status !== 304 &&
    (noHeaderSet(outgoing) ||
      (!outgoing.hasHeader("content-length") &&
        !outgoing.hasHeader("transfer-encoding") &&
        !outgoing.hasHeader("trailer")))
  ) {
    http1._contentLength = length;
    return true;
  }
  return false;
}

/** The adapter's answer to a failing write-out. */
function failed(error: unknown, outgoing: ServerResponse): void {
  const err = error instanceof Error
    ? error
    : new Error("unknown error", { cause: error });
  if ((err as { code?: string }).code === "ERR_STREAM_PREMATURE_CLOSE") {
    console.info("The user aborted a request.");
    return;
  }
  console.error(error);
  if (!outgoing.headersSent) {
    (outgoing as unknown as { _contentLength: null })._contentLength = null;
    outgoing.writeHead(500, { "Content-Type": "text/plain" });
  }
  outgoing.end(`Error: ${err.message}`);
  outgoing.destroy(err);
}

/**
 * Writes the adapter's `[status, body, headers]` for a null, string or
 * bytes body and no headers, a plain record or a `Headers` (as its
 * `responseViaCache` does); false for anything else, which the adapter
 * then writes.
 */
function written(
  cached: [number, unknown, unknown],
  outgoing: ServerResponse,
): boolean {
  const status = cached[0];
  const body = cached[1];
  let header = cached[2] as Record<string, unknown> | undefined | null;
  let length: number;
  if (body === null) length = -1;
  else if (typeof body === "string") length = Buffer.byteLength(body);
  else if (body instanceof Uint8Array) length = body.byteLength;
  else return false;
  if (!header) {
    if (length === -1) {
      outgoing.writeHead(status);
      outgoing.end();
      return true;
    }
    if (setLength(outgoing, status, length)) {
      head(outgoing, status, { "Content-Type": DEFAULT_TYPE });
    } else {
      head(outgoing, status, {
        "Content-Type": DEFAULT_TYPE,
        "Content-Length": length,
      });
    }
    outgoing.end(body as string | Uint8Array);
    return true;
  }
  if (header instanceof Headers) {
    // As the adapter: a record of the entries, Set-Cookie as a list, the
    // default type for a body, and the body's length unless declared.
    const record = recordOf(header, length !== -1);
    if (length !== -1 && !header.has("content-length")) {
      record["Content-Length"] = length;
    }
    head(outgoing, status, record);
    if (length === -1) outgoing.end();
    else outgoing.end(body as string | Uint8Array);
    return true;
  }
  if (Array.isArray(header) || typeof header !== "object") return false;
  let hasLength = false;
  let autoLength = true;
  for (const key in header) {
    const size = key.length;
    if (size === 14 && key.toLowerCase() === "content-length") {
      hasLength = true;
      break;
    }
    if (
      (size === 17 && key.toLowerCase() === "transfer-encoding") ||
      (size === 7 && key.toLowerCase() === "trailer")
    ) autoLength = false;
  }
  if (
    !hasLength && length !== -1 &&
    (!autoLength || !setLength(outgoing, status, length))
  ) {
    header = { ...header, "Content-Length": length };
  }
  outgoing.writeHead(status, header as Record<string, string>);
  if (length === -1) outgoing.end();
  else outgoing.end(body as string | Uint8Array);
  return true;
}

/** The adapter's `buildOutgoingHttpHeaders` of a `Headers`. */
function recordOf(
  headers: Headers,
  typed: boolean,
): Record<string, string | string[] | number> {
  const record: Record<string, string | string[] | number> = {};
  if (headers.has("set-cookie")) {
    const cookies: string[] = [];
    for (const [name, value] of headers) {
      if (name === "set-cookie") cookies.push(value);
      else record[name] = value;
    }
    if (cookies.length > 0) record["set-cookie"] = cookies;
  } else for (const [name, value] of headers) record[name] = value;
  if (typed) record["content-type"] ??= DEFAULT_TYPE;
  return record;
}

/** The handler's answer, or what it threw, handed to the adapter. */
const RELAYED: unique symbol = Symbol("fetchkit.relayed");
type Relayed = IncomingMessage & { [RELAYED]?: () => unknown };

/**
 * A listener serving plain requests itself (see the module docs), or
 * `undefined` when the adapter's parts are not found. `serve` answers a
 * request as the adapter's fetch callback does, given the connection's
 * two halves instead of an `env` record; `readListener` is the adapter's listener for a
 * body read before the handler (`rawBody`) and `listener` its listener
 * for the rest.
 */
export function fastListener(
  get: GetRequestListener,
  serve: (
    request: Request,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
  ) => unknown,
  hostname: string | undefined,
):
  | ((
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    fallback: Listener,
    arrived: boolean,
  ) => void)
  | undefined {
  const parts = findParts(get);
  if (parts === undefined) return undefined;
  const { proto, cache } = parts;
  const keyIncoming = parts.incoming;
  const keyMethod = parts.method;
  const keyUrl = parts.url;
  // The adapter's lazy request, made by a constructor rather than
  // `Object.create(proto)`: V8 then sizes its instances for the fields
  // they come to hold (the adapter's, `signal`'s watch, a body noted
  // as arrived), so a fifth one is no out-of-object store a request.
  const Lazy = function (
    this: Record<symbol, unknown>,
    incoming: IncomingMessage,
    method: string,
    url: string,
    outgoing: ServerResponse,
  ): void {
    this[keyIncoming] = incoming;
    this[keyMethod] = method;
    this[keyUrl] = url;
    this[OUTGOING] = outgoing;
  } as unknown as new (
    incoming: IncomingMessage,
    method: string,
    url: string,
    outgoing: ServerResponse,
  ) => Record<symbol, unknown>;
  Lazy.prototype = proto;
  // The adapter's listener, answering with what the handler gave.
  const relay = get((_request, env) => {
    const incoming = env.incoming as Relayed;
    const produce = incoming[RELAYED]!;
    incoming[RELAYED] = undefined;
    return produce();
  }, { hostname, autoCleanupIncoming: false });

  function handOver(
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    produce: () => unknown,
  ): void {
    (incoming as Relayed)[RELAYED] = produce;
    relay(incoming, outgoing);
  }

  function write(
    response: unknown,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
  ): void {
    const cached = response === null || typeof response !== "object"
      ? undefined
      : (response as Record<symbol, [number, unknown, unknown] | undefined>)[
        cache
      ];
    if (cached !== undefined) {
      try {
        if (written(cached, outgoing)) return;
      } catch (error) {
        failed(error, outgoing);
        return;
      }
    }
    handOver(incoming, outgoing, () => response);
  }

  return (incoming, outgoing, fallback, arrived) => {
    const method = incoming.method!;
    // A body the handler would read as it comes, and TRACE or CONNECT,
    // which the adapter treats apart: its way.
    if (
      !(method === "GET" || method === "HEAD" ||
        (arrived &&
          (method === "POST" || method === "PUT" || method === "PATCH" ||
            method === "DELETE" || method === "OPTIONS")))
    ) {
      fallback(incoming, outgoing);
      return;
    }
    const host = incoming.headers.host;
    const target = incoming.url!;
    if (
      host === undefined || target === undefined || !plainHost(host) ||
      !plainTarget(target)
    ) {
      fallback(incoming, outgoing);
      return;
    }
    const request = new Lazy(
      incoming,
      method,
      target.length === 0 ? `http://${host}/` : `http://${host}${target}`,
      outgoing,
    );
    let response: unknown;
    try {
      response = serve(request as unknown as Request, incoming, outgoing);
    } catch (error) {
      handOver(incoming, outgoing, () => {
        throw error;
      });
      return;
    }
    if (
      response !== null && typeof response === "object" &&
      typeof (response as Promise<unknown>).then === "function"
    ) {
      (response as Promise<unknown>).then(
        (answer) => write(answer, incoming, outgoing),
        (error) =>
          handOver(incoming, outgoing, () => {
            throw error;
          }),
      );
      return;
    }
    write(response, incoming, outgoing);
  };
}
