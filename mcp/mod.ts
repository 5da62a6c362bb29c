/**
 * Model Context Protocol endpoints: {@linkcode mcpHandler} mounts a server
 * made with the official SDK (`@modelcontextprotocol/sdk`, its McpServer
 * or Server) on a route, through the SDK's Web-standard Streamable HTTP
 * transport, with the toolkit's parts around it:
 *
 * - **Origin check** (DNS rebinding): a request with an `Origin` header is
 *   refused with `403` unless the origin is listed in `allowedOrigins`.
 *   MCP clients that are programs send no `Origin`; a web page that a
 *   rebound name points at the server always does.
 * - **Authentication**: `auth` takes `bearerAuth()` or `jwt()`. Refused
 *   requests get their `401` with `resource_metadata="…"` added to the
 *   `WWW-Authenticate` challenge (RFC 9728), pointing at the protected
 *   resource metadata that `handler.metadata` serves, where MCP clients
 *   discover the authorization server. The accepted token reaches tools
 *   as `extra.authInfo` (`token`, `clientId`, `scopes` from a JWT's
 *   `scope`, `expiresAt` from its `exp`).
 * - **Sessions**: each `initialize` starts a session with a random id
 *   (`Mcp-Session-Id`) and, when `server` is a function, a server of its
 *   own; an unknown id is `404` (the client starts over), `DELETE` ends
 *   one, and a session idle for `sessionIdleMs` (30 minutes) is closed. At
 *   most `maxSessions` (1,000) at once, then `503` with `Retry-After`;
 *   initializes still being read count, so a burst of them cannot open
 *   more. A session belongs to the identity that opened it: with `auth`,
 *   the verified JWT's subject (`iss` and `sub`), or the token itself for
 *   `bearerAuth()` and JWTs without `sub`; any other caller gets `404` for
 *   its id, as for an unknown one, and cannot use or end it. One client
 *   (that identity, or without `auth` the client's address) holds at most
 *   `maxSessionsPerClient` (100) at once, so one caller cannot take every
 *   session from the others.
 * - **Event streams**: answers that stream (`text/event-stream`: progress
 *   notifications, the `GET` stream of server messages) pass through
 *   `streamLimit()` (its defaults, or `streams`), and are registered with
 *   `serve()`, whose graceful shutdown ends them instead of waiting for
 *   them.
 *
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
 * import { mcpHandler } from "@fetchkit/toolkit/mcp";
 * // @ts-types="@modelcontextprotocol/sdk/server/mcp"
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import * as z from "zod";
 *
 * function makeServer(): McpServer {
 *   const server = new McpServer({ name: "notes", version: "1.0.0" });
 *   server.registerTool("add", {
 *     inputSchema: { a: z.number(), b: z.number() },
 *   }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
 *   return server;
 * }
 *
 * const mcp = mcpHandler(makeServer, {
 *   auth: bearerAuth({ token: "a-long-random-token-from-your-secrets" }),
 *   resourceMetadata: { authorizationServers: ["https://auth.example"] },
 * });
 * const router = createRouter();
 * router.any("/mcp", mcp);
 * router.get("/.well-known/oauth-protected-resource/mcp", mcp.metadata);
 * // serve(router.fetch) from @fetchkit/toolkit/serve
 * ```
 *
 * Without `auth`, anyone who reaches the route may call every tool: bind
 * to `127.0.0.1` for a local server, or put `auth` in front.
 *
 * @module
 */
// The SDK's wildcard export maps `x.js` to `x.js.d.ts` for types, which
// does not exist; its types are found without the extension.
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types";
import type { RequestContext } from "../router/context.ts";
import type { Handler, Middleware } from "../router/types.ts";
import { BearerToken } from "../bearer_auth/mod.ts";
import { JwtPayload } from "../jwt/mod.ts";
import {
  type StreamLimit,
  streamLimit,
  type StreamLimitOptions,
} from "../stream_limit/mod.ts";
import { type Closeable, registry } from "../serve/shared.ts";
import { NativeResponse } from "../response/native.ts";
import { unrefTimer } from "../runtime/timer.ts";

/**
 * What {@linkcode mcpHandler} connects: the SDK's `McpServer` or `Server`
 * (anything with `connect(transport)` and `close()`).
 */
export interface McpServerLike {
  /**
   * Connects the server to a transport (the SDK's `connect`, which takes
   * its `Transport`; typed loosely here so this type does not carry the
   * SDK's whole message model).
   */
  connect(transport: object): Promise<void>;
  /** Closes the server and its transport. */
  close(): Promise<void>;
}

/** RFC 9728 protected resource metadata, as {@linkcode McpHandler.metadata} serves it. */
export interface ResourceMetadataOptions {
  /** Issuer URLs of the authorization servers that issue tokens for this resource. */
  authorizationServers: readonly string[];
  /** The scopes this resource understands, if you list them. */
  scopesSupported?: readonly string[];
  /** A name for people (`resource_name`). */
  resourceName?: string;
  /**
   * The resource's URL, such as `https://mcp.example/mcp`. Default: the
   * request's origin and the MCP route's path (behind a proxy that
   * rewrites the host, give it).
   */
  resource?: string;
}

/** Options of {@linkcode mcpHandler}. */
export interface McpHandlerOptions {
  /**
   * Authentication in front: `bearerAuth(...)` or `jwt(...)` (any
   * middleware that answers `401` with a `Bearer` challenge). Default
   * none.
   */
  auth?: Middleware;
  /**
   * The protected resource metadata to serve and to point `401`s at.
   * Required with `auth`, so clients can find where to get a token.
   */
  resourceMetadata?: ResourceMetadataOptions;
  /**
   * Origins (`https://app.example`) whose browser requests are accepted.
   * Default none: a request with any `Origin` header is refused with `403`.
   */
  allowedOrigins?: readonly string[];
  /** Sessions open at once; more get `503`. Default 1,000. */
  maxSessions?: number;
  /**
   * Sessions one client holds at once (one identity with `auth`, else one
   * address); more get `503` until it ends one. Default 100.
   */
  maxSessionsPerClient?: number;
  /** A session with no request for this long (ms) is closed. Default 1,800,000 (30 minutes). */
  sessionIdleMs?: number;
  /** The bounds on event streams: a `streamLimit()` or its options. Default `streamLimit()`. */
  streams?: StreamLimit | StreamLimitOptions;
  /**
   * Answer `POST`s with JSON instead of an event stream when the server
   * has nothing to stream (the SDK's `enableJsonResponse`). Default false.
   */
  jsonResponse?: boolean;
}

/** The handler {@linkcode mcpHandler} returns: mount it on the MCP route. */
export interface McpHandler extends Handler {
  /**
   * Serves the protected resource metadata: mount it at
   * `/.well-known/oauth-protected-resource` followed by the MCP route's
   * path (`/.well-known/oauth-protected-resource/mcp`).
   */
  readonly metadata: Handler;
  /** Sessions open now. */
  sessions(): number;
  /** Closes every session (their servers and streams). */
  close(): Promise<void>;
}

/** A place taken in the session counts, given back once by `release()`. */
interface Reservation {
  /** Whose count it is in (the owner, or the client's address). */
  client: string;
  /** Counted in `opening` (its initialize not done yet). */
  pending: boolean;
  /** Counted in its client's count. */
  counted: boolean;
}

interface Session extends Reservation {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServerLike;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The identity that opened it (undefined without `auth`). */
  owner: string | undefined;
}

const WELL_KNOWN = "/.well-known/oauth-protected-resource";
const encoder = new TextEncoder();

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    error: { code, message },
    id: null,
  });
  return new NativeResponse(body, {
    status,
    headers: {
      "Content-Type": "application/json",
      "Content-Length": String(encoder.encode(body).byteLength),
      "Cache-Control": "no-store",
      ...headers,
    },
  });
}

function checkCount(name: string, value: number | undefined, fallback: number) {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1) {
    throw new TypeError(
      `mcpHandler(): ${name} must be a whole number of at least 1, got ${value}`,
    );
  }
  return chosen;
}

function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(
      `mcpHandler(): allowedOrigins entry "${origin}" is not a URL such as "https://app.example"`,
    );
  }
  if (url.origin === "null" || url.origin !== origin) {
    throw new TypeError(
      `mcpHandler(): allowedOrigins entry "${origin}" must be an origin (scheme, host, port; no path or trailing slash), such as "${url.origin}"`,
    );
  }
  return origin;
}

/**
 * Who the verified caller is, for binding sessions: the JWT's issuer and
 * subject, else the token itself; `undefined` without authentication.
 */
function identityOf(context: RequestContext): string | undefined {
  const payload = context.get(JwtPayload) as
    | Record<string, unknown>
    | undefined;
  if (payload !== undefined && typeof payload.sub === "string") {
    const issuer = typeof payload.iss === "string" ? payload.iss : "";
    return `sub:${JSON.stringify([issuer, payload.sub])}`;
  }
  const bearer = context.get(BearerToken);
  if (bearer !== undefined) return `token:${bearer}`;
  if (payload !== undefined) {
    const header = context.request.headers.get("authorization") ?? "";
    return `token:${header.replace(/^bearer\s+/i, "")}`;
  }
  return undefined;
}

/** The token the auth middleware accepted, as the SDK's `AuthInfo`. */
function authInfoOf(context: RequestContext): AuthInfo | undefined {
  const payload = context.get(JwtPayload);
  const header = context.request.headers.get("authorization") ?? "";
  const token = context.get(BearerToken) ??
    (/^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, "") : "");
  if (payload === undefined && context.get(BearerToken) === undefined) {
    return undefined;
  }
  const claims = (payload ?? {}) as Record<string, unknown>;
  const scope = typeof claims.scope === "string"
    ? claims.scope.split(" ").filter((s) => s !== "")
    : Array.isArray(claims.scp)
    ? claims.scp.map(String)
    : [];
  const clientId = [claims.client_id, claims.azp, claims.sub].find((v) =>
    typeof v === "string"
  ) as string | undefined;
  return {
    token,
    clientId: clientId ?? "",
    scopes: scope,
    expiresAt: typeof claims.exp === "number" ? claims.exp : undefined,
    extra: payload === undefined ? undefined : { claims: payload },
  };
}

/**
 * Mounts an MCP server on a route; see the module docs for what it adds
 * around the SDK's transport.
 *
 * @example A local server without authentication, for one machine
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { mcpHandler } from "@fetchkit/toolkit/mcp";
 * // @ts-types="@modelcontextprotocol/sdk/server/mcp"
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 *
 * const router = createRouter();
 * router.any("/mcp", mcpHandler(() => new McpServer({ name: "local", version: "1.0.0" })));
 * // serve(router.fetch, { hostname: "127.0.0.1", port: 3000 })
 * ```
 *
 * @param server A function that makes a server for each session (an
 * `McpServer` or `Server` of the SDK), or one server, which then serves
 * one session at a time (a second client gets `503` until the first ends).
 * @param options Authentication, its metadata, origins, session and stream limits.
 * @returns The handler, with `metadata` to mount beside it.
 * @throws {TypeError} When an option is malformed, or `auth` is given
 * without `resourceMetadata`.
 */
export function mcpHandler(
  server: McpServerLike | (() => McpServerLike | Promise<McpServerLike>),
  options: McpHandlerOptions = {},
): McpHandler {
  const factory = typeof server === "function" ? server : undefined;
  const single = typeof server === "function" ? undefined : server;
  if (
    factory === undefined &&
    (single === null || typeof single !== "object" ||
      typeof single.connect !== "function")
  ) {
    throw new TypeError(
      "mcpHandler(server): give an McpServer (or Server) of @modelcontextprotocol/sdk, or a function that makes one per session",
    );
  }
  const auth = options.auth;
  const metadataOptions = options.resourceMetadata;
  if (auth !== undefined && metadataOptions === undefined) {
    throw new TypeError(
      "mcpHandler(): auth needs resourceMetadata ({ authorizationServers }), which MCP clients read to find where to get a token",
    );
  }
  if (
    metadataOptions !== undefined &&
    (!Array.isArray(metadataOptions.authorizationServers) ||
      metadataOptions.authorizationServers.length === 0)
  ) {
    throw new TypeError(
      "mcpHandler(): resourceMetadata.authorizationServers must list at least one issuer URL",
    );
  }
  const allowed = new Set((options.allowedOrigins ?? []).map(checkOrigin));
  const maxSessions = checkCount("maxSessions", options.maxSessions, 1000);
  const maxPerClient = checkCount(
    "maxSessionsPerClient",
    options.maxSessionsPerClient,
    100,
  );
  const idleMs = checkCount(
    "sessionIdleMs",
    options.sessionIdleMs,
    30 * 60_000,
  );
  const limit = typeof options.streams === "function"
    ? options.streams
    : streamLimit(options.streams);
  const sessions = new Map<string, Session>();
  let singleInUse = false;
  // Initializes admitted but not done: counted against maxSessions, since
  // the session joins `sessions` only once its body was read.
  let opening = 0;
  const perClient = new Map<string, number>();

  /** Takes a session out of the counts (once). */
  function release(session: Reservation): void {
    if (session.pending) {
      session.pending = false;
      opening--;
    }
    if (session.counted) {
      session.counted = false;
      const left = (perClient.get(session.client) ?? 1) - 1;
      if (left <= 0) perClient.delete(session.client);
      else perClient.set(session.client, left);
    }
  }

  /** The metadata URL for the MCP route at `url`. */
  function metadataUrl(url: URL): string {
    const path = url.pathname === "/" ? "" : url.pathname;
    return `${url.origin}${WELL_KNOWN}${path}`;
  }

  async function newServer(): Promise<McpServerLike | undefined> {
    if (factory !== undefined) return await factory();
    if (singleInUse) return undefined;
    singleInUse = true;
    return single;
  }

  function touch(id: string, session: Session): void {
    if (session.timer !== undefined) clearTimeout(session.timer);
    session.timer = setTimeout(() => {
      void session.transport.close();
    }, idleMs);
    unrefTimer(session.timer);
    sessions.set(id, session);
  }

  function forget(id: string | undefined, session: Session): void {
    if (session.timer !== undefined) clearTimeout(session.timer);
    if (id !== undefined && sessions.get(id) === session) sessions.delete(id);
    release(session);
    if (session.server === single) singleInUse = false;
    void session.server.close().catch(() => {});
  }

  /** A new session's transport and server, or a refusal. */
  async function open(
    owner: string | undefined,
    client: string,
  ): Promise<Session | Response> {
    // Checked and counted before any await: concurrent initializes see
    // each other.
    if (sessions.size + opening >= maxSessions) {
      return jsonRpcError(
        503,
        -32000,
        `Too many MCP sessions open on this server (limit ${maxSessions}); try again later`,
        { "Retry-After": "5" },
      );
    }
    const held = perClient.get(client) ?? 0;
    if (held >= maxPerClient) {
      return jsonRpcError(
        503,
        -32000,
        `Too many MCP sessions for this client (limit ${maxPerClient}); end one (DELETE) or try again later`,
        { "Retry-After": "5" },
      );
    }
    opening++;
    perClient.set(client, held + 1);
    const reservation: Reservation = { client, pending: true, counted: true };
    let made: McpServerLike | undefined;
    try {
      made = await newServer();
    } catch (error) {
      release(reservation);
      throw error;
    }
    if (made === undefined) {
      release(reservation);
      return jsonRpcError(
        503,
        -32000,
        "This MCP server serves one session at a time and one is open; try again later",
        { "Retry-After": "5" },
      );
    }
    const session: Session = {
      ...reservation,
      server: made,
      timer: undefined,
      owner,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: options.jsonResponse ?? false,
        onsessioninitialized: (id: string) => {
          if (session.pending) {
            session.pending = false;
            opening--;
          }
          touch(id, session);
        },
      }),
    };
    session.transport.onclose = () =>
      forget(session.transport.sessionId, session);
    try {
      await made.connect(session.transport);
    } catch (error) {
      release(session);
      if (made === single) singleInUse = false;
      throw error;
    }
    return session;
  }

  /** The MCP exchange itself, once the origin and the token passed. */
  async function exchange(context: RequestContext): Promise<Response> {
    const request = context.request;
    const id = request.headers.get("mcp-session-id");
    const authInfo = authInfoOf(context);
    const owner = identityOf(context);
    if (id !== null) {
      const session = sessions.get(id);
      // Another identity's session is as unknown as one that never was.
      if (session === undefined || session.owner !== owner) {
        return jsonRpcError(
          404,
          -32001,
          "Session not found: it ended or never existed; initialize a new one",
        );
      }
      touch(id, session);
      return await session.transport.handleRequest(request, { authInfo });
    }
    if (request.method !== "POST") {
      return jsonRpcError(
        400,
        -32000,
        `${request.method} needs an Mcp-Session-Id header; start a session with an initialize POST`,
      );
    }
    const client = owner ??
      `address:${context.remoteAddr?.hostname ?? "unknown"}`;
    const opened = await open(owner, client);
    if (opened instanceof Response) return opened;
    let response: Response;
    try {
      response = await opened.transport.handleRequest(request, {
        authInfo,
      });
    } finally {
      // Not an initialize (the transport refused it), or it failed:
      // nothing to keep.
      if (opened.transport.sessionId === undefined) {
        release(opened);
        await opened.transport.close();
      } else if (opened.pending) {
        opened.pending = false;
        opening--;
      }
    }
    return response;
  }

  /** Registers an event stream with serve() so a shutdown ends it. */
  function closeable(response: Response): Response {
    const type = response.headers.get("content-type") ?? "";
    if (response.body === null || !type.startsWith("text/event-stream")) {
      return response;
    }
    const reader = response.body.getReader();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => finish = resolve);
    let ended = false;
    let control!: ReadableStreamDefaultController<Uint8Array>;
    const end = () => {
      if (ended) return;
      ended = true;
      finish();
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        control = controller;
      },
      async pull(controller) {
        try {
          const step = await reader.read();
          if (step.done) {
            end();
            controller.close();
          } else controller.enqueue(step.value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      cancel(reason) {
        end();
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    const wrapped = new NativeResponse(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    const entry: Closeable = {
      kind: "closeable",
      done,
      close() {
        if (ended) return;
        end();
        try {
          control.close();
        } catch {
          // already closed
        }
        reader.cancel().catch(() => {});
      },
    };
    registry().set(wrapped, entry);
    return wrapped;
  }

  async function handle(context: RequestContext): Promise<Response> {
    // DNS rebinding: a browser page on another origin (a rebound name
    // included) always sends Origin; programs send none.
    const origin = context.request.headers.get("origin");
    if (origin !== null && !allowed.has(origin)) {
      return jsonRpcError(
        403,
        -32000,
        `Origin ${
          JSON.stringify(origin)
        } is not allowed to use this MCP server`,
      );
    }
    const run = () =>
      limit(context, async () => closeable(await exchange(context))) as Promise<
        Response
      >;
    if (auth === undefined) return await run();
    const response = await auth(context, run);
    if (response === undefined) return await run();
    const challenge = response.headers.get("www-authenticate");
    if (response.status !== 401 || challenge === null) return response;
    // RFC 9728 5.1: where the client finds the authorization server.
    const url = metadataOptions?.resource !== undefined
      ? metadataUrl(new URL(metadataOptions.resource))
      : metadataUrl(context.url);
    const headers = new Headers(response.headers);
    headers.set(
      "WWW-Authenticate",
      `${challenge}, resource_metadata="${url}"`,
    );
    return new NativeResponse(response.body, {
      status: 401,
      statusText: response.statusText,
      headers,
    });
  }

  function metadata(context: RequestContext): Response {
    const path = context.url.pathname.startsWith(WELL_KNOWN)
      ? context.url.pathname.slice(WELL_KNOWN.length)
      : "";
    const resource = metadataOptions?.resource ??
      `${context.url.origin}${path}`;
    if (metadataOptions === undefined) {
      return jsonRpcError(404, -32000, "No protected resource metadata");
    }
    return Response.json({
      resource,
      authorization_servers: metadataOptions.authorizationServers,
      ...(metadataOptions.scopesSupported === undefined
        ? {}
        : { scopes_supported: metadataOptions.scopesSupported }),
      bearer_methods_supported: ["header"],
      ...(metadataOptions.resourceName === undefined
        ? {}
        : { resource_name: metadataOptions.resourceName }),
    }, {
      headers: {
        // Clients in browsers read it cross-origin; it holds nothing secret.
        "Access-Control-Allow-Origin": "*",
        "Cache-Control": "public, max-age=3600",
      },
    });
  }

  return Object.assign(handle, {
    metadata,
    sessions: () => sessions.size,
    async close() {
      await Promise.all(
        [...sessions.values()].map((s) => s.transport.close()),
      );
    },
  });
}
