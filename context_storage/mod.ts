/**
 * The current request's context from anywhere below the handler: a
 * repository function, a logger, a helper deep in the call stack, without
 * passing `context` down by hand.
 *
 * `contextStorage()` runs the rest of the chain inside an
 * `AsyncLocalStorage` (from `node:async_hooks`, which Deno, Node, Bun and
 * Workers with `nodejs_compat` provide); `getRequestContext()` reads it.
 * Each request has its own store, so concurrent requests never see each
 * other's context, across `await`s, timers and promise chains.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { contextStorage, getRequestContext } from "@fetchkit/toolkit/context-storage";
 *
 * const Tenant = createContextKey("public");
 *
 * // A repository function: no context parameter.
 * function listPosts(): string[] {
 *   const tenant = getRequestContext().get(Tenant);
 *   return [`${tenant}: hello`];
 * }
 *
 * const router = createRouter({ middleware: [contextStorage()] });
 * router.get("/posts", ({ set }) => {
 *   set(Tenant, "acme");
 *   return Response.json(listPosts());
 * });
 * const response = await router.fetch(new Request("http://localhost/posts"));
 * await response.json(); // ["acme: hello"]
 * ```
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestContext } from "../router/context.ts";
import type { Middleware } from "../router/types.ts";

// One storage for the process: every contextStorage() shares it, so a
// library's getRequestContext() finds the context whichever router set it.
const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Creates middleware that makes the request's context readable with
 * {@linkcode getRequestContext} for the rest of the chain (later middleware,
 * the handler, and everything they call). Put it early in the router's
 * `middleware`: only what runs inside it sees the context.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { contextStorage } from "@fetchkit/toolkit/context-storage";
 *
 * const router = createRouter({ middleware: [contextStorage()] });
 * ```
 *
 * @returns The middleware.
 */
export function contextStorage(): Middleware {
  return (context, next) => storage.run(context, next);
}

/**
 * The context of the request being handled, from anywhere inside
 * {@linkcode contextStorage}'s middleware (across `await`s, timers and
 * promise chains).
 *
 * @example
 * ```ts
 * import { getRequestContext } from "@fetchkit/toolkit/context-storage";
 *
 * function currentPath(): string {
 *   return getRequestContext().url.pathname;
 * }
 * ```
 *
 * @returns The current request's context.
 * @throws {Error} Outside a request (at start-up, in a timer set outside a
 * request, or without `contextStorage()` in the router's middleware).
 */
export function getRequestContext(): RequestContext {
  const context = storage.getStore();
  if (context === undefined) {
    throw new Error(
      "getRequestContext() was called outside a request: add contextStorage() " +
        "to the router's middleware, and call it only while a request is handled " +
        "(in middleware or a handler, or in what they call)",
    );
  }
  return context;
}

/**
 * The context of the request being handled, or `undefined` outside a
 * request: for code that also runs outside requests (a logger, a job).
 *
 * @example
 * ```ts
 * import { findRequestContext } from "@fetchkit/toolkit/context-storage";
 *
 * function log(message: string): void {
 *   const path = findRequestContext()?.url.pathname ?? "-";
 *   console.log(`${path} ${message}`);
 * }
 * ```
 *
 * @returns The current request's context, or `undefined`.
 */
export function findRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
