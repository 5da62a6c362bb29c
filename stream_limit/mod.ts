/**
 * Bounds on long-lived responses such as server-sent event streams: how
 * many one client address may hold open, how many the server holds in
 * all, and how long one may last. Each open stream holds a connection
 * (a file descriptor) and memory until the client leaves; without a
 * bound, a few hundred streams from a handful of addresses exhaust
 * `ulimit -n` and stop the server from accepting anyone.
 *
 * @example Cap the event streams of a route
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
 * import { streamLimit } from "@fetchkit/toolkit/stream-limit-middleware";
 *
 * const limit = streamLimit({ perAddress: 1, total: 500 });
 * const router = createRouter();
 * router.get("/events", limit, () =>
 *   createEventStreamResponse(async function* () {
 *     yield { data: "hello" };
 *     await new Promise((resolve) => setTimeout(resolve, 50));
 *   }()));
 *
 * const info = { remoteAddr: { hostname: "192.0.2.1", port: 1, transport: "tcp" } };
 * const first = await router.fetch(new Request("http://localhost/events"), info);
 * const second = await router.fetch(new Request("http://localhost/events"), info);
 * console.log(first.status, second.status); // 200 503
 * console.log(second.headers.get("Retry-After")); // "5"
 * await first.body?.cancel();
 * console.log(limit.open()); // 0
 * ```
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import type { Middleware } from "../router/types.ts";
import { HttpError } from "../http_error/mod.ts";
import { NativeResponse } from "../response/native.ts";

/** Options of {@linkcode streamLimit}. */
export interface StreamLimitOptions {
  /**
   * Streams one key (client address) may hold open at once. Default 20:
   * a household or office behind one address with a few tabs each.
   */
  perAddress?: number;
  /**
   * Streams open at once in this process. Default 500. Keep it well below
   * the process's descriptor limit (`ulimit -n`, often 1024) minus what
   * the app needs besides (database connections, files, ordinary
   * requests).
   */
  total?: number;
  /**
   * Longest life of one stream, in ms; `0` for none. Default 300,000
   * (5 minutes), varied by ±10% so that streams opened together do not
   * end together. Then the stream closes and the browser's `EventSource`
   * reconnects (sending `Last-Event-ID`), so a client that holds a stream
   * forever still passes the limits again from time to time. It waits
   * the `retry` a stream sent, or about 3 s: give
   * `createEventStreamResponse()` a `retry` option. Other event streams
   * get `retry: <retryMs>` before they close.
   */
  maxLifetimeMs?: number;
  /**
   * The reconnection delay sent at the end of the life of an event stream
   * not made by `createEventStreamResponse()`, in ms. Default 1,000.
   */
  retryMs?: number;
  /** `Retry-After` of a refused stream, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /**
   * What `perAddress` counts under. Default: the client address
   * (`context.remoteAddr.hostname`; an IPv6 client by its `/64`, which
   * one subscriber usually holds whole). `undefined`: counted only in
   * `total`.
   */
  key?: (context: RequestContext) => string | undefined;
}

/** The middleware, and what it counts. */
export interface StreamLimit extends Middleware {
  /**
   * Counts one long-lived connection that is not an event stream (a
   * WebSocket, say) under the same bounds: throws the `503` `HttpError`
   * when they are reached, else returns the function that releases it
   * (call it once, when the connection closes). No lifetime applies.
   */
  hold(context: RequestContext): () => void;
  /** Streams open now. */
  open(): number;
  /** Streams open now under `key`. */
  openFor(key: string): number;
}

// `serve()` (./serve) ends the streams it finds in this registry when it
// shuts down; a wrapped stream is registered under its new response too.
const SERVE_REGISTRY = Symbol.for("fetchkit.serve.responses");
/** How createEventStreamResponse() registers its responses there. */
interface Closeable {
  kind: "closeable";
  close(): void;
  done: Promise<unknown>;
}
const encoder = new TextEncoder();

function checkCount(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (
    !Number.isSafeInteger(value) || value < (name === "maxLifetimeMs" ? 0 : 1)
  ) {
    throw new TypeError(
      `streamLimit(): ${name} must be a whole number >= ${
        name === "maxLifetimeMs" ? 0 : 1
      }, got ${value}`,
    );
  }
  return value;
}

/** The client address, an IPv6 one by its first four groups (its /64). */
function addressKey(context: RequestContext): string | undefined {
  const hostname = context.remoteAddr?.hostname;
  if (hostname === undefined || !hostname.includes(":")) return hostname;
  if (hostname.includes(".")) return hostname; // IPv4-mapped
  const [head, tail = ""] = hostname.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = hostname.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase()).join(":")}::/64`;
}

/**
 * Creates middleware that bounds open streams: a request past `perAddress`
 * streams of its address or `total` streams in all is refused with `503`
 * and `Retry-After` (a message naming the limit), and every stream ends
 * after `maxLifetimeMs`. A response counts while its body is open: from
 * the request until the body ends, the client leaves, or the lifetime
 * ends; a response that is not `text/event-stream` is let through
 * uncounted once the handler returns.
 *
 * An `EventSource` does not reconnect after a `503` (only after a stream
 * that ends): a page should listen for `error` with `readyState ===
 * EventSource.CLOSED` and open a new one after a pause.
 *
 * @param options The limits, the lifetime, and the key.
 * @returns The middleware, with `open()` and `openFor(key)`.
 * @throws {TypeError} When an option is malformed.
 */
export function streamLimit(options: StreamLimitOptions = {}): StreamLimit {
  const perAddress = checkCount("perAddress", options.perAddress, 20);
  const total = checkCount("total", options.total, 500);
  const maxLifetimeMs = checkCount(
    "maxLifetimeMs",
    options.maxLifetimeMs,
    300_000,
  );
  const retryMs = checkCount("retryMs", options.retryMs, 1000);
  const retryAfter = String(
    checkCount("retryAfterSeconds", options.retryAfterSeconds, 5),
  );
  const keyOf = options.key ?? addressKey;
  const byKey = new Map<string, number>();
  let open = 0;

  function refuse(message: string): never {
    throw new HttpError(503, message, {
      expose: true,
      headers: { "Retry-After": retryAfter, "Cache-Control": "no-store" },
    });
  }

  /** Counts one connection under `context`'s key, or refuses it. */
  function hold(context: RequestContext): () => void {
    const key = keyOf(context);
    if (open >= total) {
      refuse(
        `Too many open event streams on this server (limit ${total}); try again later.`,
      );
    }
    const mine = key === undefined ? 0 : byKey.get(key) ?? 0;
    if (key !== undefined && mine >= perAddress) {
      refuse(
        `Too many open event streams from your address (limit ${perAddress}); close some or try again later.`,
      );
    }
    open++;
    if (key !== undefined) byKey.set(key, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      open--;
      if (key === undefined) return;
      const left = (byKey.get(key) ?? 1) - 1;
      if (left === 0) byKey.delete(key);
      else byKey.set(key, left);
    };
  }

  const middleware = async (
    context: RequestContext,
    next: () => Promise<Response>,
  ): Promise<Response> => {
    // Counted before the handler runs, so concurrent opens cannot overshoot.
    const release = hold(context);
    let response: Response;
    try {
      response = await next();
    } catch (error) {
      release();
      throw error;
    }
    const type = response.headers.get("Content-Type") ?? "";
    if (response.body === null || !type.startsWith("text/event-stream")) {
      release();
      return response;
    }
    return track(response, release);
  };

  /** The response, counted until its body ends. */
  function track(response: Response, release: () => void): Response {
    const registry = (globalThis as {
      [SERVE_REGISTRY]?: WeakMap<Response, unknown>;
    })[SERVE_REGISTRY];
    const entry = registry?.get(response) as Closeable | undefined;
    if (entry?.kind === "closeable" && entry.done instanceof Promise) {
      // createEventStreamResponse() says when it ends and can be ended:
      // no second stream around its body (half this middleware's cost per
      // event, bench/pubsub/fanout_cpu.ts).
      let timer: ReturnType<typeof setTimeout> | undefined;
      if (maxLifetimeMs > 0) {
        timer = setTimeout(
          () => entry.close(),
          maxLifetimeMs * (0.9 + 0.2 * Math.random()),
        );
      }
      entry.done.then(() => {
        clearTimeout(timer);
        release();
      });
      return response;
    }
    return wrap(response, release, registry);
  }

  /** A body of our own around the response's, released when it ends. */
  function wrap(
    response: Response,
    release: () => void,
    registry: WeakMap<Response, unknown> | undefined,
  ): Response {
    const reader = response.body!.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const end = () => {
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      release();
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (maxLifetimeMs === 0) return;
        const life = maxLifetimeMs * (0.9 + 0.2 * Math.random());
        timer = setTimeout(() => {
          if (done) return;
          end();
          try {
            // A blank line first ends any event the source was writing.
            controller.enqueue(encoder.encode(`\n\nretry: ${retryMs}\n\n`));
            controller.close();
          } catch {
            // the client left meanwhile
          }
          reader.cancel().catch(() => {});
        }, life);
      },
      async pull(controller) {
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch (error) {
          if (!done) {
            end();
            controller.error(error);
          }
          return;
        }
        if (done) return;
        if (step.done) {
          end();
          controller.close();
        } else {
          controller.enqueue(step.value);
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
    const entry = registry?.get(response);
    if (entry !== undefined) registry!.set(wrapped, entry);
    return wrapped;
  }

  return Object.assign(middleware, {
    hold,
    open: () => open,
    openFor: (key: string) => byKey.get(key) ?? 0,
  });
}
