/**
 * A live board: anyone posts a short message, and every open page sees it
 * at once, whichever server it is connected to. Messages travel through
 * `@fetchkit/toolkit/pubsub` (Redis Streams or Deno KV between servers,
 * memory for one), and reach pages over server-sent events. A page that
 * loses its connection reconnects with `Last-Event-ID` and gets what it
 * missed.
 *
 * It also shows the production middleware together: request ids, a log
 * line with the client address, security headers with a nonce-based
 * Content-Security-Policy, cross-site request refusal, a rate limit on
 * posting, and bounds on open streams (per address, in total, and a
 * lifetime).
 *
 * @module
 */

import {
  createRouter,
  type Middleware,
  type Router,
  type TrustProxyOptions,
} from "@fetchkit/toolkit/fetch-router";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { requestId } from "@fetchkit/toolkit/request-id-middleware";
import { csrf } from "@fetchkit/toolkit/csrf-middleware";
import {
  CspNonce,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { bodyLimit } from "@fetchkit/toolkit/body-limit-middleware";
import type { PubSub } from "@fetchkit/toolkit/pubsub";
import {
  type StreamLimit,
  streamLimit,
  type StreamLimitOptions,
} from "@fetchkit/toolkit/stream-limit-middleware";
import { upgradeWebSocket } from "@fetchkit/toolkit/websocket";
import { renderErrorPage, renderPage } from "./page.ts";

/** The topic every message goes to. */
export const TOPIC = "board";
/** Longest name, in characters. */
export const MAX_NAME = 40;
/** Longest message, in characters. */
export const MAX_TEXT = 500;
/** Largest body of a post, in bytes. */
const MAX_BODY = 4096;

/** A message on the board. */
export interface Message {
  name: string;
  text: string;
  /** The server that took the post. */
  server: string;
  /** When, in ms since the epoch. */
  at: number;
}

/** Options of {@linkcode createLiveApp}. */
export interface LiveAppOptions {
  /** Where messages are published; share one store between servers. */
  pubsub: PubSub;
  /**
   * This server's name, shown on the page and in each message (a
   * function when it is known only once the server listens).
   */
  serverName?: string | (() => string);
  /** Where log lines go. Default `console.log`. */
  log?: (line: string) => void;
  /** Bounds on open event streams. */
  streams?: StreamLimitOptions;
  /**
   * Posts per address per minute, over HTTP and WebSockets together.
   * Default 30.
   */
  postsPerMinute?: number;
  /**
   * Where posts are counted; share one store between servers (Redis or
   * Deno KV), so the budget holds whichever server an address posts to.
   * Default: a memory store of this server's own.
   */
  postLimits?: RateLimitStore;
  /** The proxies in front, for the client address (see `createRouter`). */
  trustProxy?: TrustProxyOptions;
  /** Middleware before the app's own (metrics, in examples/deploy). */
  middleware?: Middleware[];
}

/** The app: its router, and its stream bounds (for tests). */
export interface LiveApp {
  /** Serve with `serve(app.fetch)`. */
  fetch: Router["fetch"];
  /** The stream bounds, with the count of open streams. */
  streams: StreamLimit;
}

/**
 * Reads a post body: a small urlencoded form or JSON object. `bodyLimit()`
 * in front of it has cut the read at `MAX_BODY` (413), whatever the body
 * declared or however it came (chunked).
 */
async function readPost(request: Request): Promise<Record<string, unknown>> {
  const body = await request.text();
  const type = request.headers.get("Content-Type") ?? "";
  if (type.startsWith("application/json")) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      throw new HttpError(400, "The body is not valid JSON.");
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new HttpError(400, "Send a JSON object with name and text.");
    }
    return value as Record<string, unknown>;
  }
  if (type.startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(body));
  }
  throw new HttpError(
    415,
    "Send application/x-www-form-urlencoded or application/json.",
  );
}

function field(
  post: Record<string, unknown>,
  name: string,
  max: number,
): string {
  const value = post[name];
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") throw new HttpError(422, `Fill in ${name}.`);
  if (text.length > max) {
    throw new HttpError(422, `${name} is at most ${max} characters.`);
  }
  return text;
}

/** A browser's navigation, not a script's `fetch()` or a client's call. */
function prefersHtml(request: Request): boolean {
  return (request.headers.get("Accept") ?? "").includes("text/html");
}

/** An HTML answer for a browser, with the status and any headers. */
function errorPage(
  nonce: string | undefined,
  status: number,
  title: string,
  options: { message: string; headers?: Headers },
): Response {
  const headers = new Headers(options.headers);
  headers.delete("Content-Type");
  headers.delete("Content-Length");
  return createHtmlResponse(
    renderErrorPage({ nonce: nonce ?? "", title, message: options.message }),
    { status, headers },
  );
}

/** Builds the live board. */
export function createLiveApp(options: LiveAppOptions): LiveApp {
  const {
    pubsub,
    serverName = "server",
    log = console.log,
    postsPerMinute = 30,
  } = options;
  const streams = streamLimit(options.streams);
  const limitMessage = (retryAfterMs: number) =>
    `At most ${postsPerMinute} posts a minute; try again in ${
      Math.max(1, Math.ceil(retryAfterMs / 1000))
    } s.`;
  // One budget per address for posts over HTTP and over WebSockets.
  const postLimit = rateLimit({
    name: "posts",
    limit: postsPerMinute,
    windowMs: 60_000,
    store: options.postLimits,
    onLimit: (context, { retryAfterMs }) => {
      const message = limitMessage(retryAfterMs);
      return prefersHtml(context.request)
        ? errorPage(context.get(CspNonce), 429, "Your message was not posted", {
          message,
        })
        : new HttpError(429, message).toResponse(context.request);
    },
  });
  /** Counts a WebSocket post; throws the 429 when over the budget. */
  async function countPost(
    context: Parameters<typeof postLimit>[0],
  ): Promise<void> {
    // The limiter's "next": a counted post's stand-in answer.
    const answer = await postLimit(
      context,
      () => Promise.resolve(new Response(null, { status: 204 })),
    );
    if (answer instanceof Response && answer.status === 429) {
      await answer.body?.cancel();
      const retryAfter = Number(answer.headers.get("Retry-After") ?? 60);
      throw new HttpError(429, limitMessage(retryAfter * 1000));
    }
  }
  const nameOf = typeof serverName === "function"
    ? serverName
    : () => serverName;

  const router = createRouter({
    trustProxy: options.trustProxy,
    middleware: [
      ...options.middleware ?? [],
      // No proxy in front: the id a client sends is not trusted.
      requestId({ trustIncoming: false }),
      logger({ format: "%ip %requestId %method %path %status", log }),
      secureHeaders({
        contentSecurityPolicy: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'nonce'"],
          styleSrc: ["'nonce'"],
          connectSrc: ["'self'"],
          imgSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      }),
      csrf(),
    ],
    // Browsers get a page; API clients and scripts the plain answer.
    defaultHandler: (context) =>
      prefersHtml(context.request)
        ? errorPage(context.get(CspNonce), 404, "Page not found", {
          message: "There is nothing at this address.",
        })
        : new Response("Not Found", { status: 404 }),
    onError: (error, context) => {
      const answer = error instanceof HttpError
        ? error.toResponse(context.request)
        : undefined;
      if (!prefersHtml(context.request)) {
        if (answer) return answer;
        console.error(error);
        return new Response("Internal Server Error", { status: 500 });
      }
      if (!(error instanceof HttpError)) console.error(error);
      const status = answer?.status ?? 500;
      return errorPage(
        context.get(CspNonce),
        status,
        status >= 500
          ? "Something went wrong"
          : context.request.method === "POST"
          ? "Your message was not posted"
          : "That did not work",
        {
          message: error instanceof HttpError && error.expose
            ? error.message
            : "Please try again in a moment.",
          headers: answer?.headers,
        },
      );
    },
  });

  /**
   * A subscription after `since`, or, for a page just loaded (`recent`),
   * from the oldest message the store keeps (1,000 for an hour), so a
   * reload shows the board as it was.
   */
  function subscribeFrom(since: string | undefined, recent: boolean) {
    if (since !== undefined || !recent) {
      return pubsub.subscribe<Message>(TOPIC, { since });
    }
    // The store's start: "0", or "0-0" on Redis.
    try {
      return pubsub.subscribe<Message>(TOPIC, { since: "0" });
    } catch {
      return pubsub.subscribe<Message>(TOPIC, { since: "0-0" });
    }
  }

  router.get("/", ({ get }) =>
    createHtmlResponse(
      renderPage({
        nonce: get(CspNonce) ?? "",
        serverName: nameOf(),
        maxName: MAX_NAME,
        maxText: MAX_TEXT,
      }),
    ));

  // No icon: an empty answer rather than a 404 in the browser console.
  router.get("/favicon.ico", () => new Response(null, { status: 204 }));

  router.post(
    "/messages",
    postLimit,
    bodyLimit({
      maxBytes: MAX_BODY,
      onError: () => {
        throw new HttpError(413, `A post is at most ${MAX_BODY} bytes.`);
      },
    }),
    async ({ request }) => {
      const post = await readPost(request);
      const message: Message = {
        name: field(post, "name", MAX_NAME),
        text: field(post, "text", MAX_TEXT),
        server: nameOf(),
        at: Date.now(),
      };
      const id = await pubsub.publish(TOPIC, message);
      // A form posted without script goes back to the board.
      if ((request.headers.get("Accept") ?? "").includes("text/html")) {
        return new Response(null, { status: 303, headers: { Location: "/" } });
      }
      return Response.json({ id }, { status: 201 });
    },
  );

  router.get("/events", streams, async ({ request, url }) => {
    // A reconnecting EventSource sends the last id it saw; a page that
    // opens a new EventSource itself (after a 503) passes it as ?since=.
    const since = request.headers.get("Last-Event-ID") ??
      url.searchParams.get("since") ?? undefined;
    // A malformed id is a 400 (HttpError from subscribe()).
    const subscription = subscribeFrom(
      since === "" ? undefined : since,
      url.searchParams.has("recent"),
    );
    // Store down: 503 with Retry-After, before the stream starts.
    await subscription.ready;
    subscription.signal.addEventListener("abort", () => {
      const reason = subscription.signal.reason;
      if (reason instanceof Error && reason.name !== "AbortError") {
        log(`event stream ended: ${reason.message}`);
      }
    });
    return createEventStreamResponse((signal) => {
      signal.addEventListener("abort", () => subscription.close());
      return (async function* () {
        // Where the stream starts, as its first id: a browser that
        // reconnects before any message resumes from there.
        const start = subscription.lastId!;
        yield { id: start, event: "position", data: start };
        for await (const { id, data } of subscription) {
          yield { id, event: "message", data };
        }
      })();
    }, {
      retry: 2000,
      // A subscription dropped for falling too far behind (a client that
      // stopped reading: SlowSubscriberError) ends the stream even if the
      // client never asks for more; the browser reconnects with
      // Last-Event-ID and catches up.
      signal: subscription.signal,
      onError: (error) =>
        log(
          `event stream ended: ${
            error instanceof Error ? error.message : String(error)
          }`,
        ),
    });
  });

  // The same board over a WebSocket: {"type":"position","id"} first, then
  // messages as {"type":"message","id","message"}; posts go as
  // {"name","text"} and are
  // answered {"type":"posted","id"} or {"type":"error","error"}. A client
  // resumes with ?since=<last id>. Sockets count in the stream bounds.
  router.get("/ws", async (context) => {
    const release = streams.hold(context);
    let subscription;
    try {
      subscription = subscribeFrom(
        context.url.searchParams.get("since") || undefined,
        context.url.searchParams.has("recent"),
      );
      await subscription.ready;
    } catch (error) {
      subscription?.close();
      release();
      throw error;
    }
    const live = subscription;
    const response = upgradeWebSocket(context, {
      onOpen(_event, ws) {
        ws.send(JSON.stringify({ type: "position", id: live.lastId }));
        (async () => {
          try {
            for await (const { id, data } of live) {
              if (ws.readyState !== 1) break;
              ws.send(JSON.stringify({ type: "message", id, message: data }));
            }
          } catch (error) {
            // Too far behind, or the store failed: the client reconnects.
            log(`websocket ended: ${(error as Error).message}`);
            ws.close(1013, "Try again later");
          }
        })();
      },
      async onMessage(event, ws) {
        const reply = (body: unknown) => {
          if (ws.readyState === 1) ws.send(JSON.stringify(body));
        };
        try {
          const now = Date.now();
          // Every message counts, as every POST does (a malformed one
          // too); counted before it is read, so a refused one costs nothing.
          await countPost(context);
          let post: unknown;
          try {
            post = JSON.parse(String(event.data));
          } catch {
            throw new HttpError(400, "Send a JSON object with name and text.");
          }
          if (
            post === null || typeof post !== "object" || Array.isArray(post)
          ) {
            throw new HttpError(400, "Send a JSON object with name and text.");
          }
          const fields = post as Record<string, unknown>;
          const message: Message = {
            name: field(fields, "name", MAX_NAME),
            text: field(fields, "text", MAX_TEXT),
            server: nameOf(),
            at: now,
          };
          reply({ type: "posted", id: await pubsub.publish(TOPIC, message) });
        } catch (error) {
          reply({
            type: "error",
            error: error instanceof HttpError && error.expose
              ? error.message
              : "Could not post; try again later.",
          });
          if (!(error instanceof HttpError)) {
            log(`websocket post failed: ${error}`);
          }
        }
      },
      onClose() {
        live.close();
        release();
      },
    }, { maxMessageBytes: MAX_BODY });
    if (response.status !== 101) {
      live.close();
      release();
    }
    return response;
  });

  return { fetch: router.fetch, streams };
}
