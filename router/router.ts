/**
 * `createRouter()`: routes by method and pattern, middleware, mounts, route
 * maps, the error boundary, and `fetch`.
 *
 * @module
 */

import { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { ParamsOf } from "../routes/params.ts";
import type { RouteInput, RouteSchemas } from "../routes/schemas.ts";
import {
  type InputOptions,
  type InvalidHandler,
  validated,
} from "./_validate.ts";
import type { JoinPattern } from "../routes/join.ts";
import { joinPatterns } from "../matcher/pattern.ts";
import {
  applyStaged,
  connectContext,
  matchedRoute,
  type Params,
  RequestContext,
} from "./context.ts";
import {
  createRemoteAddrResolver,
  type ServeInfo,
  type TrustProxyOptions,
} from "./remote_addr.ts";
import {
  checkResponse,
  compose,
  enter,
  outermost,
  type Terminal,
} from "./_chain.ts";
import { headResponse } from "./_head.ts";
import { nativeRoutes, type Registered } from "./_native_routes.ts";
import { Matcher } from "../matcher/matcher.ts";
import { routePathOf } from "../url_path/url_path.ts";
import { rememberText } from "../response/body_size.ts";
import type { Handler, Middleware } from "./types.ts";
import { NativeResponse } from "../response/native.ts";
import { HttpError } from "../http_error/mod.ts";

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

const TEXT_TYPE = "text/plain; charset=utf-8";
// On Bun a Response copies a Headers given in its init for less than it
// reads an object literal (about 1,600 instructions less a 404). Bun
// only: @hono/node-server's Response on Node keeps the given Headers as
// its own, so a shared one would collect other responses' edits.
const TEXT_HEADERS: HeadersInit =
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
    ? new Headers({ "Content-Type": TEXT_TYPE })
    : { "Content-Type": TEXT_TYPE };

/** `serve()` on Bun passes this function's result as `Bun.serve`'s `routes`. */
const BUN_ROUTES = Symbol.for("fetchkit.serve.bunRoutes");

/** A route in the matcher: its composed chain and full pattern. */
interface RouteEntry {
  run: Terminal;
  pattern: string;
}

/** A route Bun matched: its method, entry and params. */
interface Prematched {
  method: string;
  value: RouteEntry;
  params: Params | undefined;
}

/**
 * The router's own plain-text answers. No `Content-Length` header:
 * `Deno.serve` adds it to a string body (an explicit one measured slower),
 * and the logger and `HEAD` answers read the remembered text instead.
 */
function text(body: string, status: number, allow?: string): Response {
  // Every header in the init: Deno 2.9 builds its native response from
  // them once; setting one afterwards would drop and rebuild it.
  const response = new NativeResponse(body, {
    status,
    headers: allow === undefined
      ? TEXT_HEADERS
      : { "Content-Type": TEXT_TYPE, "Allow": allow },
  });
  rememberText(response, body);
  return response;
}

/**
 * Creates a router.
 *
 * Matching, left to right segment by segment: more static text wins
 * (`/posts/new` over `/posts/:id`, `/p*` over `/:id`), then a parameter
 * beats a wildcard, past the first wildcard too; only a full tie goes to
 * the route added first. Trailing slashes are strict.
 * No route gives `404 Not Found`; a path served only for other methods
 * gives `405` with an `Allow` header (`OPTIONS` gets `204` with it);
 * `GET` routes answer `HEAD` without a body (with the `Content-Length` the
 * body would have had, when it is at hand); a thrown `HttpError` gives its
 * status and message; any other thrown error gives `500 Internal Server
 * Error` (see `onError`).
 *
 * Sections: `router.mount(prefix, (scope) => ...)` adds routes below a
 * prefix (which may hold parameters; a child parameter of the same name
 * wins), with `scope.use(...)` for middleware around that section only.
 * Middleware runs router → mount (outer to inner) → controller → route.
 * Mounting only joins patterns: every route lands in the one matcher, so a
 * request is matched once, and a path below the prefix that no route
 * serves gets the router's `404` (or `defaultHandler`) and `405` as usual.
 *
 * @example Serve a small app
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 *
 * const router = createRouter({
 *   middleware: [async (_context, next) => {
 *     const response = await next();
 *     response.headers.set("X-Powered-By", "fetchkit");
 *     return response;
 *   }],
 * });
 * router.get("/", () => new Response("Home"));
 * router.post("/echo", async ({ request }) => new Response(await request.text()));
 * // Deno.serve(router.fetch);
 * ```
 *
 * @example Mount an admin section with its own middleware
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const router = createRouter();
 * router.mount("/admin", (admin) => {
 *   admin.use(({ headers }) => {
 *     if (headers.get("X-Role") !== "admin") {
 *       return new Response("Forbidden", { status: 403 });
 *     }
 *   });
 *   admin.get("/", () => new Response("dashboard"));
 *   admin.map(resources("users", { only: ["show"] }), {
 *     actions: { show: ({ params }) => new Response(`user ${params.id}`) },
 *   });
 *   admin.mount("/orgs/:orgId", (org) => {
 *     org.get("/teams/:teamId", ({ params }) =>
 *       new Response(`${params.orgId}/${params.teamId}`)
 *     );
 *   });
 * });
 * const response = await router.fetch(
 *   new Request("http://localhost/admin/orgs/7/teams/3", {
 *     headers: { "X-Role": "admin" },
 *   }),
 * );
 * await response.text(); // "7/3"
 * ```
 *
 * @param options Router middleware, `defaultHandler` and `onError`.
 * @returns The router.
 */
export function createRouter(options: RouterOptions = {}): Router {
  const { defaultHandler, onError } = options;
  const routerOnInvalid = options.onInvalid;
  const inputOptions = options.input;
  const resolveRemoteAddr = createRemoteAddrResolver(options.trustProxy);
  // Each route keeps its full pattern, given to the context on a match.
  const matcher = new Matcher<RouteEntry>();
  // Every route as added, for Bun's native routes (_native_routes.ts).
  const registered: Registered<RouteEntry>[] = [];

  function add(
    method: string,
    pattern: string,
    middleware: readonly Middleware[],
    handler: Handler,
    schemas?: RouteSchemas,
    onInvalid?: InvalidHandler,
  ): void {
    // Only a route with input schemas pays for validation.
    if (
      schemas !== undefined &&
      (schemas.params !== undefined || schemas.query !== undefined ||
        schemas.body !== undefined)
    ) {
      handler = validated(
        schemas,
        handler,
        onInvalid ?? routerOnInvalid,
        inputOptions,
      );
    }
    // The chain is composed here, once, not per request.
    const entry: RouteEntry = {
      run: compose(middleware, handler as Terminal, handleError),
      pattern,
    };
    matcher.add(method, pattern, entry);
    registered.push({ method, pattern, value: entry });
  }

  function toTarget(
    action: unknown,
    middleware: Middleware[],
    name: string,
  ): [Middleware[], Handler, InvalidHandler | undefined] {
    if (typeof action === "function") {
      return [middleware, action as Handler, undefined];
    }
    if (
      typeof action === "object" && action !== null &&
      typeof (action as { handler?: unknown }).handler === "function"
    ) {
      const { middleware: own = [], handler, onInvalid } = action as {
        middleware?: Middleware[];
        handler: Handler;
        onInvalid?: InvalidHandler;
      };
      if (onInvalid !== undefined && typeof onInvalid !== "function") {
        throw new TypeError(
          `The onInvalid of route "${name}" must be a function`,
        );
      }
      return [[...middleware, ...own], handler, onInvalid];
    }
    throw new TypeError(
      `The action for route "${name}" must be a handler or { middleware, handler }`,
    );
  }

  /** Checks a controller against its routes, collecting what to add. */
  function collect(
    routes: RouteMap,
    controller: Controller,
    middleware: Middleware[],
    prefix: string,
    out: [Route, Middleware[], Handler, InvalidHandler | undefined][],
  ): void {
    if (
      typeof controller !== "object" || controller === null ||
      typeof controller.actions !== "object"
    ) {
      throw new TypeError(
        `The controller for "${prefix || "routes"}" needs an "actions" object`,
      );
    }
    const chain = [...middleware, ...(controller.middleware ?? [])];
    const actions = controller.actions as Record<string, unknown>;
    for (const name of Object.keys(actions)) {
      if (!Object.hasOwn(routes, name)) {
        throw new TypeError(
          `Unknown route "${prefix}${name}" in actions; the routes here are: ${
            Object.keys(routes).join(", ")
          }`,
        );
      }
    }
    for (const [name, route] of Object.entries(routes)) {
      const action = actions[name];
      if (route instanceof Route) {
        if (action === undefined) {
          throw new TypeError(
            `No action for route "${prefix}${name}" (${String(route)})`,
          );
        }
        out.push([route, ...toTarget(action, chain, prefix + name)]);
      } else if (action !== undefined) {
        collect(route, action as Controller, chain, `${prefix}${name}.`, out);
      }
    }
  }

  /**
   * The route methods of one section: `prefix` is joined before every
   * pattern and `middleware` runs before a route's own. The router itself
   * is the section with prefix "" and no middleware.
   */
  function section(prefix: string): {
    methods: RouteMethods<string>;
    middleware: Middleware[];
    used: () => boolean;
  } {
    const middleware: Middleware[] = [];
    let added = false;
    const join = (pattern: string) => {
      added = true;
      return joinPatterns(prefix, pattern);
    };

    function adder(method: string): RouteAdder<string> {
      return (route, ...chain) => {
        const handler = chain.pop() as Handler | undefined;
        if (typeof handler !== "function") {
          throw new TypeError(
            `router.${method.toLowerCase()}(): the last argument must be a handler`,
          );
        }
        const isRoute = route instanceof Route;
        add(
          method,
          join(isRoute ? route.pattern : route),
          [...middleware, ...(chain as unknown as Middleware[])],
          handler as Handler,
          isRoute ? route.schemas : undefined,
        );
      };
    }

    function map(
      routes: RouteMap | Route,
      controller: Controller | Action,
    ): void {
      if (routes instanceof Route) {
        const [chain, handler, onInvalid] = toTarget(
          controller,
          [],
          String(routes),
        );
        add(
          routes.method,
          join(routes.pattern),
          [...middleware, ...chain],
          handler,
          routes.schemas,
          onInvalid,
        );
      } else {
        // Check everything first, so a TypeError leaves no route half-mapped.
        const found: [
          Route,
          Middleware[],
          Handler,
          InvalidHandler | undefined,
        ][] = [];
        collect(routes, controller as Controller, middleware, "", found);
        for (const [route, chain, handler, onInvalid] of found) {
          add(
            route.method,
            join(route.pattern),
            chain,
            handler,
            route.schemas,
            onInvalid,
          );
        }
      }
    }

    function mount(
      sub: string,
      define: (scope: RouterScope<string>) => void,
    ): void {
      if (typeof define !== "function") {
        throw new TypeError(
          `router.mount("${sub}", define): define must be a function that adds the section's routes`,
        );
      }
      const inner = section(join(sub));
      inner.middleware.push(...middleware);
      const scope: RouterScope<string> = {
        ...inner.methods,
        prefix: joinPatterns(prefix, sub),
        use(...more: Middleware[]) {
          if (inner.used()) {
            throw new TypeError(
              `use() in router.mount("${scope.prefix}") was called after routes were added there; call it first, so every route of the section runs it`,
            );
          }
          for (const one of more) {
            if (typeof one !== "function") {
              throw new TypeError(
                `use() in router.mount("${scope.prefix}") takes middleware functions, got ${typeof one}`,
              );
            }
          }
          inner.middleware.push(...more);
        },
      };
      define(scope);
    }

    return {
      methods: {
        map: map as RouteMethods<string>["map"],
        get: adder("GET"),
        post: adder("POST"),
        put: adder("PUT"),
        patch: adder("PATCH"),
        delete: adder("DELETE"),
        head: adder("HEAD"),
        options: adder("OPTIONS"),
        any: adder("ANY"),
        mount,
      },
      middleware,
      used: () => added,
    };
  }

  /** Routing after router middleware: match once, or answer 405/404. */
  function dispatch(context: RequestContext): Response | Promise<Response> {
    const found = matchedRoute(context) as Prematched | undefined;
    // Bun matched it, for the method router middleware left in place.
    if (found !== undefined && found.method === context.method) {
      if (found.params !== undefined) context.params = found.params;
      context.routePattern = found.value.pattern;
      return found.value.run(context);
    }
    const path = routePathOf(context.request.url);
    const match = matcher.find(context.method, path);
    if (match === undefined) return miss(context, path);
    // A static route keeps the context's own empty params object.
    if (match.params !== undefined) context.params = match.params;
    context.routePattern = match.value.pattern;
    return match.value.run(context);
  }

  /** No route for the method and path: 405 with `Allow`, or 404. */
  function miss(
    context: RequestContext,
    path: string,
  ): Response | Promise<Response> {
    const allowed = matcher.allowed(path);
    if (allowed.length > 0) {
      const allow = allowed.join(", ");
      if (context.method === "OPTIONS") {
        return new NativeResponse(null, {
          status: 204,
          headers: { Allow: allow },
        });
      }
      return text("Method Not Allowed", 405, allow);
    }
    return defaultHandler ? defaultHandler(context) : text("Not Found", 404);
  }

  const run = compose(options.middleware ?? [], dispatch, handleError);

  async function handleError(
    error: unknown,
    context: RequestContext,
  ): Promise<Response> {
    if (onError !== undefined) {
      try {
        return await onError(error, context);
      } catch (failure) {
        console.error("onError threw while handling an error:", failure);
      }
    } else if (error instanceof HttpError) {
      // A hidden message is the server's to read, not the client's.
      if (!error.expose) console.error(error);
      return error.toResponse(context.request);
    } else {
      console.error(error);
    }
    return text("Internal Server Error", 500);
  }

  /** The slow path: a promised response, or an error to turn into one. */
  async function finish(
    pending: PromiseLike<unknown> | undefined,
    failure: { error: unknown } | undefined,
    context: RequestContext,
    head: boolean,
  ): Promise<Response> {
    let response: Response;
    try {
      if (failure !== undefined) throw failure.error;
      response = checkResponse(await pending);
    } catch (error) {
      response = await handleError(error, context);
    }
    response = applyStaged(context, response);
    if (head && response.body !== null) {
      response = await headResponse(response);
    }
    return response;
  }

  // Not async: a chain that answers synchronously is answered with its
  // Response itself, which Deno.serve sends on its native path (a Promise
  // costs it about 2 µs of CPU a request, BENCHMARKS.md "HTTP load").
  function fetch(
    request: Request,
    info?: ServeInfo,
  ): Response | Promise<Response> {
    const context = new RequestContext(request);
    if (info !== undefined) connectContext(context, info, resolveRemoteAddr);
    return respond(context, run);
  }

  const routerMiddleware = (options.middleware ?? []).length > 0;

  /** A request Bun's router matched to `value` (see _native_routes.ts). */
  function answerMatched(
    request: Request,
    info: unknown,
    value: RouteEntry,
    params: Params | undefined,
  ): Response | Promise<Response> {
    const context = new RequestContext(request, params);
    if (info !== undefined) {
      connectContext(context, info as ServeInfo, resolveRemoteAddr);
    }
    // Without router middleware the route's chain is the whole answer.
    if (!routerMiddleware) {
      context.routePattern = value.pattern;
      return respond(context, value.run);
    }
    matchedRoute(context, { method: context.method, value, params });
    return respond(context, run);
  }

  function respond(
    context: RequestContext,
    chain: Terminal,
  ): Response | Promise<Response> {
    // The request's method, read once (middleware may change context.method).
    const head = context.method === "HEAD";
    let result: unknown;
    enter(context);
    try {
      result = chain(context);
    } catch (error) {
      outermost();
      return finish(undefined, { error }, context, head);
    }
    const recovered = outermost();
    if (result instanceof NativeResponse) {
      const response = applyStaged(context, result);
      // Reading .body makes a stream out of a string body: ask only for HEAD.
      return head && response.body !== null ? headResponse(response) : response;
    }
    // The outermost chain's promise is checked, recovers from errors and
    // has the staged headers applied: it goes to the server as it is.
    if (recovered !== undefined && result === recovered && !head) {
      return recovered;
    }
    // A promise, or a wrong result that finish() reports.
    return finish(result as PromiseLike<unknown>, undefined, context, head);
  }

  // An internal hook, not enumerable: serve() on Bun hands these routes
  // to Bun's native router (see _native_routes.ts).
  Object.defineProperty(fetch, BUN_ROUTES, {
    value: () =>
      nativeRoutes(
        registered,
        answerMatched,
        fetch as (request: Request, info: unknown) => Response,
      ),
  });
  return { fetch, ...section("").methods };
}
