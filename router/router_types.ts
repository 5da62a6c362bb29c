/**
 * The router's public types: actions, controllers, options, the route
 * methods, scopes and the router itself. One file that `router.ts` and
 * its private parts (`_registration.ts`, `_sections.ts`) all read, so
 * imports run one way: the parts never import `router.ts`.
 *
 * @module
 */

import type { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { ParamsOf } from "../routes/params.ts";
import type { RouteInput, RouteSchemas } from "../routes/schemas.ts";
import type { JoinPattern } from "../routes/join.ts";
import type { InputOptions, InvalidHandler } from "./_validate.ts";
import type { RequestContext } from "./context.ts";
import type { ServeInfo, TrustProxyOptions } from "./remote_addr.ts";
import type { Handler, Middleware } from "./types.ts";

/**
 * An action of a controller: a handler, or a handler with its own
 * middleware and `onInvalid` answer. For a route with schemas `S`, the
 * handler's `context.input` is typed from their outputs.
 */
export type Action<P extends string = string, S = RouteSchemas> =
  | Handler<ParamsOf<P>, RouteInput<S, P>>
  | {
    /** Runs before the handler (and before validation). */
    middleware?: Middleware<ParamsOf<P>>[];
    /** Answers the request once its input is valid. */
    handler: Handler<ParamsOf<P>, RouteInput<S, P>>;
    /** Answers input the route's schemas refused (default: JSON 400/422). */
    onInvalid?: InvalidHandler;
  };

/**
 * The pattern a route gets below a mount prefix (`""` outside any mount).
 *
 * @example
 * ```ts
 * import type { Mounted } from "@fetchkit/toolkit/fetch-router";
 *
 * const pattern: Mounted<"/orgs/:orgId", "/teams/:teamId"> = "/orgs/:orgId/teams/:teamId";
 * ```
 */
export type Mounted<Prefix extends string, P extends string> = Prefix extends ""
  ? P
  : JoinPattern<Prefix, P>;

/**
 * The actions for a route map: one per route, keyed by route name; a
 * nested group takes a nested controller, or is left out and mapped by a
 * separate `router.map()` call. Inside `router.mount(prefix, ...)`,
 * `Prefix` adds the prefix's parameters to every action's `params`.
 */
export type Actions<R extends RouteMap, Prefix extends string = ""> =
  & {
    [K in keyof R as R[K] extends Route ? K : never]: R[K] extends
      Route<string, infer P, infer S> ? Action<Mounted<Prefix, P>, S>
      : never;
  }
  & {
    [K in keyof R as R[K] extends Route ? never : K]?: R[K] extends RouteMap
      ? Controller<R[K], Prefix>
      : never;
  };

/**
 * Handlers for a route map, with middleware that runs around all of them.
 *
 * @example
 * ```ts
 * import { createRouter, type Controller } from "@fetchkit/toolkit/fetch-router";
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const posts = resources("posts", { only: ["index", "show"] });
 * const controller: Controller<typeof posts> = {
 *   actions: {
 *     index: () => Response.json([]),
 *     show: ({ params }) => Response.json({ id: params.id }),
 *   },
 * };
 * createRouter().map(posts, controller);
 * ```
 */
export interface Controller<
  R extends RouteMap = RouteMap,
  Prefix extends string = "",
> {
  /** Runs around every action of this controller, nested ones included. */
  middleware?: Middleware[];
  /** Handlers by route name. */
  actions: Actions<R, Prefix>;
}

/** Options of {@linkcode createRouter}. */
export interface RouterOptions {
  /**
   * Runs on every request, before routing (so also for 404s); it may
   * change `context.method`, as `methodOverride()` does.
   */
  middleware?: Middleware[];
  /** Answers requests no route matches. Default: `404 Not Found`. */
  defaultHandler?: Handler;
  /**
   * Turns an error thrown by middleware or a handler into a response.
   * Default: a thrown `HttpError` is answered with its status, headers
   * and message (see `HttpError`; a hidden 5xx message is logged); any
   * other error is logged with `console.error` and answered
   * `500 Internal Server Error`, never with the error's text. `onError`
   * receives every error, `HttpError`s included (`error.toResponse(request)`
   * builds the default answer for one).
   */
  onError?: (
    error: unknown,
    context: RequestContext,
  ) => Response | Promise<Response>;
  /**
   * Proxies of your own whose word on the client's address is taken:
   * with it, `context.remoteAddr` is the client that a listed proxy names
   * in `X-Forwarded-For` (or `Forwarded`), not the proxy. Without it, it
   * is the connection's peer, and those headers are ignored.
   *
   * Spoofing: any client can send `X-Forwarded-For`. Only hops added by a
   * listed proxy are believed (read right to left, stopping at the first
   * address that is not a proxy), so list exactly your proxies, and only
   * when every connection to the app passes through them; name the header
   * they write, since the other one comes from the client unchecked.
   */
  trustProxy?: TrustProxyOptions;
  /**
   * Answers input that a route's schemas refused, for every route without
   * its own `onInvalid`. Default: JSON `{ error, fieldErrors, formErrors }`
   * with `400` (params, query) or `422` (body).
   */
  onInvalid?: InvalidHandler;
  /**
   * Limits for bodies read to validate a route's `body` schema: `json`
   * (`parseJson` options, default 1 MiB) and `form` (`parseFormData`
   * options; a form that `formData()` middleware parsed is used as it is).
   */
  input?: InputOptions;
}

/**
 * Adds a route for one method: a pattern or `Route`, middleware, then the
 * handler. Below a mount, the pattern is joined to the mount's prefix and
 * `params` holds the prefix's parameters too.
 */
export type RouteAdder<Prefix extends string = ""> = <
  P extends string,
  S extends RouteSchemas = RouteSchemas,
>(
  route: P | Route<string, P, S>,
  ...chain: [
    ...Middleware<ParamsOf<Mounted<Prefix, P>>>[],
    Handler<ParamsOf<Mounted<Prefix, P>>, RouteInput<S, Mounted<Prefix, P>>>,
  ]
) => void;

/**
 * The ways to add routes, shared by a {@linkcode Router} and a
 * {@linkcode RouterScope}, so a function can add its routes to either.
 *
 * @example
 * ```ts
 * import { createRouter, type RouteMethods } from "@fetchkit/toolkit/fetch-router";
 *
 * function addHealth(routes: RouteMethods<string>): void {
 *   routes.get("/health", () => new Response("ok"));
 * }
 * const router = createRouter();
 * addHealth(router);
 * router.mount("/admin", (admin) => addHealth(admin));
 * ```
 */
export interface RouteMethods<Prefix extends string = ""> {
  /** Maps a route map to a controller, or one route to a handler. */
  map: {
    <R extends RouteMap>(
      routes: R,
      controller: NoInfer<Controller<R, Prefix>>,
    ): void;
    <P extends string, S extends RouteSchemas>(
      route: Route<string, P, S>,
      action: NoInfer<Action<Mounted<Prefix, P>, S>>,
    ): void;
  };
  /** Adds a `GET` route (it serves `HEAD` too). */
  readonly get: RouteAdder<Prefix>;
  /** Adds a `POST` route. */
  readonly post: RouteAdder<Prefix>;
  /** Adds a `PUT` route. */
  readonly put: RouteAdder<Prefix>;
  /** Adds a `PATCH` route. */
  readonly patch: RouteAdder<Prefix>;
  /** Adds a `DELETE` route. */
  readonly delete: RouteAdder<Prefix>;
  /** Adds a `HEAD` route (without one, `GET` routes answer `HEAD`). */
  readonly head: RouteAdder<Prefix>;
  /** Adds an `OPTIONS` route. */
  readonly options: RouteAdder<Prefix>;
  /** Adds a route for every method. */
  readonly any: RouteAdder<Prefix>;
  /**
   * Adds a section of routes below `prefix`: `define` receives a
   * {@linkcode RouterScope} whose patterns are joined below the prefix and
   * whose middleware (`scope.use()`) runs around its routes only. See
   * {@linkcode createRouter} for an example.
   */
  mount<Sub extends string>(
    prefix: Sub,
    define: (scope: RouterScope<Mounted<Prefix, Sub>>) => void,
  ): void;
}

/**
 * The router of one `router.mount(prefix, (scope) => ...)` section: the
 * same methods as the router, its patterns joined below `prefix`, and
 * `use()` for middleware that runs around this section's routes (after the
 * router's middleware, before a controller's and a route's own).
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 *
 * const router = createRouter();
 * router.mount("/orgs/:orgId", (org) => {
 *   org.use(({ headers }) => {
 *     if (!headers.has("Authorization")) return new Response(null, { status: 401 });
 *   });
 *   org.get("/members/:memberId", ({ params }) =>
 *     Response.json({ org: params.orgId, member: params.memberId })
 *   );
 * });
 * ```
 */
export interface RouterScope<Prefix extends string = string>
  extends RouteMethods<Prefix> {
  /** The prefix joined with every enclosing mount's, as in patterns. */
  readonly prefix: string;
  /**
   * Adds middleware around every route of this section (nested mounts
   * included). Call it before adding routes: a later call throws a
   * `TypeError`, so no route silently runs without it.
   */
  use(...middleware: Middleware<ParamsOf<Prefix>>[]): void;
}

/**
 * A router: add routes, then serve with `Deno.serve(router.fetch)`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 *
 * const router = createRouter();
 * router.get("/hello/:name", ({ params }) => new Response(`Hello, ${params.name}`));
 * const response = await router.fetch(new Request("http://localhost/hello/Ada"));
 * await response.text(); // "Hello, Ada"
 * ```
 */
export interface Router extends RouteMethods<""> {
  /**
   * Answers a request: with the `Response` itself when every step answered
   * synchronously, else with a promise of it (the type of `Deno.serve`'s
   * handler, as Hono's `app.fetch`), so `await router.fetch(request)`
   * always gives a `Response`. Bound to the router, so it can be passed
   * around. `info` is what `Deno.serve` passes (Bun's server or an
   * adapter's `{ remoteAddr }` fit too): it gives `context.remoteAddr`.
   */
  readonly fetch: (
    request: Request,
    info?: ServeInfo,
  ) => Response | Promise<Response>;
}
