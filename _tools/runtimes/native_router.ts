/**
 * The router as the "native routes" run on Bun sees it (see README.md):
 * `@fetchkit/toolkit/fetch-router` is mapped to this file when the
 * router's test files are bundled for that run, so every router a test
 * creates is the real one, but its `fetch` sends the request over
 * loopback HTTP to `serve(realFetch)`, where Bun's native router
 * (`Bun.serve({ routes })`, fed by the router's own hook) matches what it
 * can and the router's matcher the rest.
 *
 * What the transport adds or changes is undone, so a test sees what an
 * in-process `router.fetch` gives:
 * - request headers the client adds (`Accept`, `Connection`,
 *   `User-Agent`, `Content-Length`, `Host`): the server side deletes
 *   every header the test's request did not have;
 * - the connection info (`context.remoteAddr`): the server passes the
 *   `info` the test passed (a plain object, sent as JSON), or none;
 * - response headers the server adds (`Date`, `Content-Length`, Bun's
 *   `Content-Type` of a string body): the client keeps only the headers
 *   the handler's response had;
 * - the URL: the test's host goes in `Host`, so the server's
 *   `request.url` is the test's (an `https:` URL arrives as `http:`; no
 *   test of the router depends on the scheme).
 *
 * @module
 */
import {
  createRouter as createRealRouter,
  type Router,
  type RouterOptions,
} from "../../router/mod.ts";
import { serve, type Server } from "../../serve/mod.ts";
import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import { afterAll, afterEach } from "./harness.ts";

export * from "../../router/mod.ts";

const BUN_ROUTES = Symbol.for("fetchkit.serve.bunRoutes");
/** Request header: the names of the test request's headers, JSON. */
const REQUEST_NAMES = "x-fetchkit-native-names";
/** Request header: the `info` the test passed, JSON. */
const REQUEST_INFO = "x-fetchkit-native-info";
/** Response header: the names of the handler's response headers, JSON. */
const RESPONSE_NAMES = "x-fetchkit-native-answer";

type Handler = (request: Request, info?: unknown) => unknown;

/** Requests Bun's native router matched, and all requests served. */
export const nativeCounts: { native: number; all: number } = {
  native: 0,
  all: 0,
};

/** Running servers, each with what forgets it in its router. */
const servers = new Map<Server, () => void>();

/** Stops every server (after each test, so none piles up). */
export async function stopServers(): Promise<void> {
  const all = [...servers];
  servers.clear();
  await Promise.all(all.map(([server, forget]) => {
    forget();
    return server.shutdown();
  }));
}
afterEach(stopServers);
// The line runtimes_test.ts reads: proof that Bun's router answered.
afterAll(() => {
  console.log(`fetchkit-native ${JSON.stringify(nativeCounts)}`);
});

/**
 * The server side of one request: the test's headers and info restored
 * before the router sees it, the response's header names sent along.
 */
function serverSide(inner: Handler, native: boolean): Handler {
  return (request, _info) => {
    nativeCounts.all++;
    if (native) nativeCounts.native++;
    const headers = request.headers;
    const names = headers.get(REQUEST_NAMES);
    const sent = headers.get(REQUEST_INFO);
    if (names !== null) {
      const keep = new Set(JSON.parse(names) as string[]);
      for (const name of [...headers.keys()]) {
        if (!keep.has(name)) headers.delete(name);
      }
    }
    const info = sent === null ? undefined : JSON.parse(sent);
    const result = inner(request, info);
    return result instanceof Promise
      ? result.then(withNames)
      : withNames(result as Response);
  };
}

function withNames(response: Response): Response {
  try {
    response.headers.set(
      RESPONSE_NAMES,
      JSON.stringify([...response.headers.keys()]),
    );
  } catch {
    // Immutable headers (Response.redirect()): the client keeps what came.
  }
  return response;
}

/** The hook's routes, each function counted and wrapped as above. */
function wrapRoutes(routes: Record<string, unknown>): Record<string, unknown> {
  const wrapped: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(routes)) {
    if (typeof value === "function") {
      wrapped[path] = serverSide(value as Handler, true);
    } else if (typeof value === "object" && value !== null) {
      const methods: Record<string, unknown> = {};
      for (const [method, one] of Object.entries(value)) {
        methods[method] = typeof one === "function"
          ? serverSide(one as Handler, true)
          : one;
      }
      wrapped[path] = methods;
    } else wrapped[path] = value;
  }
  return wrapped;
}

/** A response as it came over the socket. */
interface Answer {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array>;
}

/**
 * One request with `node:http`, which sends the path as it is (Bun's
 * `fetch` turns a leading `//` into `/`) and adds only `Connection`.
 */
function send(
  port: number,
  request: Request,
  target: { path: string; headers: Record<string, string | string[]> },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      hostname: "127.0.0.1",
      port,
      method: request.method,
      path: target.path,
      headers: target.headers,
      signal: request.signal,
    }, (incoming) => {
      const headers = new Headers();
      const raw = incoming.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        headers.append(raw[i]!, raw[i + 1]!);
      }
      const body = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
      resolve({ status: incoming.statusCode!, headers, body });
    });
    outgoing.on("error", reject);
    if (request.body === null) {
      outgoing.end();
      return;
    }
    (async () => {
      for await (const chunk of request.body!) outgoing.write(chunk);
      outgoing.end();
    })().catch((error) => outgoing.destroy(error));
  });
}

/** A response built from the one that came over the socket. */
function clientSide(request: Request, answer: Answer): Response {
  const names = answer.headers.get(RESPONSE_NAMES);
  const keep = names === null ? undefined : new Set(JSON.parse(names));
  const headers = new Headers();
  for (const [name, value] of answer.headers) {
    if (name === RESPONSE_NAMES) continue;
    // Without the names (immutable headers) only Date is known to be added.
    if (keep === undefined ? name === "date" : !keep.has(name)) continue;
    if (name === "set-cookie") continue;
    headers.set(name, value);
  }
  if (keep === undefined || keep.has("set-cookie")) {
    for (const cookie of answer.headers.getSetCookie()) {
      headers.append("set-cookie", cookie);
    }
  }
  const nullBody = request.method === "HEAD" ||
    [101, 204, 205, 304].includes(answer.status);
  if (nullBody) void answer.body.cancel();
  return new Response(nullBody ? null : answer.body, {
    status: answer.status,
    headers,
  });
}

/**
 * `createRouter` of `@fetchkit/toolkit/fetch-router`, whose `fetch` goes
 * over loopback HTTP through `serve()` with Bun's native routes.
 */
export function createRouter(options?: RouterOptions): Router {
  const router = createRealRouter(options);
  const realFetch = router.fetch as Handler;
  let server: Server | undefined;
  let stale = false;

  function start(): Server {
    const handler = serverSide(realFetch, false);
    Object.defineProperty(handler, BUN_ROUTES, {
      value: () =>
        wrapRoutes(
          (realFetch as unknown as Record<
            symbol,
            () => Record<string, unknown>
          >)[BUN_ROUTES]!(),
        ),
    });
    const started = serve(handler as (request: Request) => Response, {
      hostname: "127.0.0.1",
      port: 0,
      handleSignals: false,
      shutdownTimeoutMs: 1000,
    });
    servers.set(started, () => {
      server = undefined;
    });
    return started;
  }

  async function fetch(request: Request, info?: unknown): Promise<Response> {
    // Routes added since the server started: Bun's routes are a snapshot
    // (later routes go to the fallback), so a new server takes them all.
    if (stale && server !== undefined) {
      const old = server;
      server = undefined;
      servers.delete(old);
      await old.shutdown();
    }
    stale = false;
    server ??= start();
    const url = new URL(request.url);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of request.headers) headers[name] = value;
    headers[REQUEST_NAMES] = JSON.stringify([...request.headers.keys()]);
    if (info !== undefined) headers[REQUEST_INFO] = JSON.stringify(info);
    headers.host = url.host;
    const answer = await send(server.addr.port, request, {
      path: url.pathname + url.search,
      headers,
    });
    return clientSide(request, answer);
  }

  const wrapped: Record<string | symbol, unknown> = { fetch };
  for (const [name, value] of Object.entries(router)) {
    if (name === "fetch" || typeof value !== "function") continue;
    wrapped[name] = (...args: unknown[]) => {
      stale = true;
      return (value as (...args: unknown[]) => unknown)(...args);
    };
  }
  return wrapped as unknown as Router;
}
