/**
 * A router with middleware on the standard Fetch `Request`/`Response`.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const User = createContextKey<string>("guest");
 * const router = createRouter({
 *   middleware: [(context) => {
 *     context.set(User, context.headers.get("X-User") ?? "guest");
 *   }],
 * });
 * const posts = resources("posts", { only: ["index", "show"] });
 * router.map(posts, {
 *   actions: {
 *     index: (context) => Response.json({ user: context.get(User), posts: [] }),
 *     show: ({ params }) => Response.json({ id: params.id }),
 *   },
 * });
 * // Deno.serve(router.fetch);
 * ```
 *
 * @module
 */
export { createRouter } from "./router.ts";
export type {
  Action,
  Actions,
  Controller,
  Mounted,
  RouteAdder,
  RouteMethods,
  Router,
  RouterOptions,
  RouterScope,
} from "./router_types.ts";
export type {
  InputOptions,
  InvalidHandler,
  InvalidInput,
} from "./_validate.ts";
export type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
export {
  type ContextGet,
  type ContextHas,
  type ContextSet,
  type InputBase,
  type Params,
  RequestContext,
} from "./context.ts";
export {
  type AnyContextKey,
  ContextKey,
  type ContextLookup,
  type ContextValue,
  createContextKey,
} from "./context_key.ts";
export type { Handler, Middleware, Next } from "./types.ts";
export type {
  RemoteAddr,
  ServeInfo,
  TrustProxyOptions,
} from "./remote_addr.ts";
export { HttpError, type HttpErrorOptions } from "../http_error/mod.ts";
