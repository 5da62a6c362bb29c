/**
 * Work after the response: `waitUntil(context, promise)` keeps a piece of
 * work (an email, an audit write, a cache refresh) running after the
 * answer has gone out, on every runtime, without making the client wait
 * for it.
 *
 * - Deno, Node and Bun, served by `serve()` from
 *   `@fetchkit/toolkit/serve`: the server keeps track of the work, and its
 *   graceful shutdown (`SIGTERM`, `SIGINT`, `shutdown()`) waits for it
 *   after the requests in flight, within the same `shutdownTimeoutMs`
 *   (10 s); work still running then is cut off and logged, by request id,
 *   method and path.
 * - Cloudflare Workers: wrap the handler with
 *   {@linkcode withExecutionContext} (`export default { fetch:
 *   withExecutionContext(router.fetch) }`): the promise goes to the
 *   execution context's `waitUntil()`, which keeps the Worker alive for it.
 * - Anywhere else (`router.fetch` called directly, a test): the work runs
 *   as any promise does; nothing waits for it.
 *
 * A rejected promise is logged (with the request id from `requestId()`
 * when there is one, else `X-Request-Id` when `requestId()` would accept
 * it: 1 to 255 characters of `A-Z a-z 0-9 . _ : -`; else a number), and
 * the method and path, never left as an unhandled rejection that would
 * end the process. The log is `serve()`'s `log` option (`console.error`
 * by default).
 *
 * The work is kept by the server (or Workers execution context) that took
 * the request, also behind middleware that hands the chain a copy of the
 * request (`bodyLimit()`, `methodOverride()`, `idempotency()`), and with
 * several `serve()` servers in one process.
 *
 * The answer's time to first byte does not include the work (measured in
 * BENCHMARKS.md, "waitUntil"): do not `await` the promise in the handler.
 *
 * @example Send a mail after answering
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { waitUntil } from "@fetchkit/toolkit/wait-until";
 *
 * async function sendWelcomeMail(address: string): Promise<void> {
 *   await new Promise((resolve) => setTimeout(resolve, 10)); // the mail server
 *   console.log(`mailed ${address}`);
 * }
 *
 * const router = createRouter();
 * router.post("/signup", (context) => {
 *   waitUntil(context, sendWelcomeMail("ada@example.com"));
 *   return new Response("Welcome!", { status: 201 });
 * });
 *
 * const response = await router.fetch(new Request("http://localhost/signup", { method: "POST" }));
 * console.log(response.status); // 201, before the mail is sent
 * ```
 *
 * @module
 */

import { workRegistry, type WorkTracker } from "../serve/shared.ts";
import { isSafeRequestId, RequestId } from "../request_id/mod.ts";

/**
 * Where the request is found: a `RequestContext` (anything with
 * `request`, and `get` for the request id), or the `Request` itself.
 *
 * @example
 * ```ts
 * import type { WaitUntilSource } from "@fetchkit/toolkit/wait-until";
 *
 * const source: WaitUntilSource = new Request("http://localhost/signup");
 * ```
 */
export type WaitUntilSource =
  | {
    readonly request: Request;
    /** The context's `get`, for the id `requestId()` gave the request. */
    get?: (key: never) => unknown;
  }
  | Request;

/**
 * A Cloudflare Workers execution context: what the third argument of a
 * Worker's `fetch` has.
 *
 * @example
 * ```ts
 * import type { ExecutionContextLike } from "@fetchkit/toolkit/wait-until";
 *
 * const context: ExecutionContextLike = { waitUntil: (_promise) => {} };
 * ```
 */
export interface ExecutionContextLike {
  /** Keeps the Worker running until `promise` settles. */
  waitUntil(promise: Promise<unknown>): void;
}

/** The ids of pieces of work with no request id, counted per process. */
let unnamed = 0;

function labelOf(source: WaitUntilSource, request: Request): string {
  let id: string | undefined;
  if (!(source instanceof Request) && typeof source.get === "function") {
    try {
      const value = (source.get as (key: unknown) => unknown)(RequestId);
      if (typeof value === "string") id = value;
    } catch {
      // A context without the key.
    }
  }
  // A client's own id only under requestId()'s rule: 1 to 255 characters
  // of A-Z a-z 0-9 . _ : - (never quotes, spaces or forged log text).
  const incoming = request.headers.get("x-request-id");
  if (id === undefined && incoming !== null && isSafeRequestId(incoming)) {
    id = incoming;
  }
  let path = request.url;
  try {
    path = new URL(request.url).pathname;
  } catch {
    // Keep the URL as it is.
  }
  return `${
    id === undefined ? `#${++unnamed}` : `request ${id}`
  } (${request.method} ${path})`;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    return error.stack ?? `${error.name}: ${error.message}`;
  }
  return String(error);
}

/** The first time work on Workers finds no execution context, say so. */
let warnedWorkers = false;

function onWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator
    ?.userAgent === "Cloudflare-Workers";
}

/**
 * Keeps `promise` running after the response is sent. On Deno, Node and
 * Bun under `serve()`, its graceful shutdown waits for it (within
 * `shutdownTimeoutMs`); on Workers (through
 * {@linkcode withExecutionContext}) it goes to the execution context's
 * `waitUntil()`. A rejection is logged with the request id, never
 * unhandled.
 *
 * @example Refresh a cache entry after answering from it
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { waitUntil } from "@fetchkit/toolkit/wait-until";
 *
 * const cached = new Map<string, string>([["price", "10"]]);
 * async function refresh(key: string): Promise<void> {
 *   cached.set(key, "11");
 * }
 *
 * const router = createRouter();
 * router.get("/price", (context) => {
 *   waitUntil(context, refresh("price"));
 *   return new Response(cached.get("price"));
 * });
 * console.log(await (await router.fetch(new Request("http://localhost/price"))).text()); // "10"
 * ```
 *
 * @param context The request context (or the `Request`) the work belongs to.
 * @param promise The work, already started.
 * @throws {TypeError} When `promise` is not a promise (a thenable).
 */
export function waitUntil(
  context: WaitUntilSource,
  promise: PromiseLike<unknown>,
): void {
  if (
    promise === null || typeof promise !== "object" &&
      typeof promise !== "function" ||
    typeof (promise as { then?: unknown }).then !== "function"
  ) {
    throw new TypeError(
      `waitUntil(): pass the work as a promise (call the async function), got ${
        promise === null ? "null" : typeof promise
      }`,
    );
  }
  const request = context instanceof Request ? context : context.request;
  const registry = workRegistry();
  const tracker: WorkTracker | undefined = registry.byRequest.get(request) ??
    registry.servers.at(-1);
  const label = labelOf(context, request);
  const log = tracker?.log ?? console.error;
  // Never rejects: a failure is logged, not left unhandled.
  const work = Promise.resolve(promise).then(undefined, (error) => {
    log(`waitUntil: work for ${label} failed: ${describe(error)}`);
  });
  if (tracker !== undefined) tracker.add(work, label);
  else if (onWorkers() && !warnedWorkers) {
    warnedWorkers = true;
    console.warn(
      "waitUntil(): no execution context for this request; wrap the Worker's fetch with withExecutionContext() from @fetchkit/toolkit/wait-until, or the work may be cut off after the response",
    );
  }
}

/**
 * Wraps a Worker's `fetch(request, env, ctx)` so that
 * {@linkcode waitUntil} hands work to `ctx.waitUntil()`. The wrapped
 * handler is called with `(request, env)`, as `router.fetch` is.
 *
 * @example A Cloudflare Worker
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { waitUntil, withExecutionContext } from "@fetchkit/toolkit/wait-until";
 *
 * const router = createRouter();
 * router.post("/events", (context) => {
 *   waitUntil(context, Promise.resolve("stored"));
 *   return new Response(null, { status: 202 });
 * });
 *
 * // The Worker's module ends with `export default worker`.
 * const worker = { fetch: withExecutionContext(router.fetch) };
 * console.log(typeof worker.fetch); // "function"
 * ```
 *
 * @param fetch The handler, such as `router.fetch`.
 * @returns A Worker's `fetch`.
 */
export function withExecutionContext<E>(
  fetch: (request: Request, env: E) => Response | Promise<Response>,
): (
  request: Request,
  env: E,
  ctx?: ExecutionContextLike,
) => Response | Promise<Response> {
  return (request, env, ctx) => {
    if (ctx !== undefined && typeof ctx.waitUntil === "function") {
      workRegistry().byRequest.set(request, {
        add: (work) => ctx.waitUntil(work),
        log: console.error,
      });
    }
    return fetch(request, env);
  };
}
