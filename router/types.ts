import type { InputBase, Params, RequestContext } from "./context.ts";

/**
 * Calls the rest of the chain (later middleware, then the handler) and
 * resolves to its response. Calling it twice throws.
 */
export type Next = () => Promise<Response>;

/**
 * Turns a request into a response.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 *
 * const hello: Handler<{ name: string }> = ({ params }) =>
 *   new Response(`Hello, ${params.name}`);
 * ```
 */
export type Handler<P extends Params = Params, I = InputBase> = (
  context: RequestContext<P, I>,
) => Response | Promise<Response>;

/**
 * Runs around a handler. It returns a response of its own, or the one from
 * `next()`. Returning nothing continues the chain: the response is then the
 * one `next()` gives (called for you if you did not).
 *
 * @example Time every request
 * ```ts
 * import type { Middleware } from "@fetchkit/toolkit/fetch-router";
 *
 * const timing: Middleware = async (_context, next) => {
 *   const start = performance.now();
 *   const response = await next();
 *   response.headers.set("Server-Timing", `app;dur=${performance.now() - start}`);
 *   return response;
 * };
 * ```
 */
export type Middleware<P extends Params = Params> = (
  context: RequestContext<P>,
  next: Next,
) => Response | void | Promise<Response | void>;
