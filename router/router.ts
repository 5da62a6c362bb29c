import { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { ParamsOf } from "../routes/params.ts";
import { joinPatterns } from "../routes/pattern.ts";
import { RequestContext } from "./context.ts";
import { checkResponse, runChain } from "./_chain.ts";
import { headResponse } from "./_head.ts";
import { Matcher } from "./_matcher.ts";
import { pathnameOf } from "./url_path.ts";
import type { Handler, Middleware } from "./types.ts";

/** An action of a controller: a handler, or a handler with its own middleware. */
export type Action<P extends string = string> =
  | Handler<ParamsOf<P>>
  | { middleware?: Middleware<ParamsOf<P>>[]; handler: Handler<ParamsOf<P>> };

/**
 * The actions for a route map: one per route, keyed by route name; a
 * nested group takes a nested controller, or is left out and mapped by a
 * separate `router.map()` call.
 */
export type Actions<R extends RouteMap> =
  & {
    [K in keyof R as R[K] extends Route ? K : never]: R[K] extends
      Route<string, infer P> ? Action<P>
      : never;
  }
  & {
    [K in keyof R as R[K] extends Route ? never : K]?: R[K] extends RouteMap
      ? Controller<R[K]>
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
export interface Controller<R extends RouteMap = RouteMap> {
  /** Runs around every action of this controller, nested ones included. */
  middleware?: Middleware[];
  /** Handlers by route name. */
  actions: Actions<R>;
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
   * Default: log it with `console.error` and answer
   * `500 Internal Server Error`, never with the error's text.
   */
  onError?: (
    error: unknown,
    context: RequestContext,
  ) => Response | Promise<Response>;
}

/** Adds a route for one method: a pattern or `Route`, middleware, then the handler. */
export type RouteAdder = <P extends string>(
  route: P | Route<string, P>,
  ...chain: [...Middleware<ParamsOf<P>>[], Handler<ParamsOf<P>>]
) => void;

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
export interface Router {
  /** Answers a request. Bound to the router, so it can be passed around. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Maps a route map to a controller, or one route to a handler. */
  map: {
    <R extends RouteMap>(routes: R, controller: NoInfer<Controller<R>>): void;
    <P extends string>(
      route: Route<string, P>,
      action: NoInfer<Action<P>>,
    ): void;
  };
  /** Adds a `GET` route (it serves `HEAD` too). */
  readonly get: RouteAdder;
  /** Adds a `POST` route. */
  readonly post: RouteAdder;
  /** Adds a `PUT` route. */
  readonly put: RouteAdder;
  /** Adds a `PATCH` route. */
  readonly patch: RouteAdder;
  /** Adds a `DELETE` route. */
  readonly delete: RouteAdder;
  /** Adds a `HEAD` route (without one, `GET` routes answer `HEAD`). */
  readonly head: RouteAdder;
  /** Adds an `OPTIONS` route. */
  readonly options: RouteAdder;
  /** Adds a route for every method. */
  readonly any: RouteAdder;
}

interface Target {
  readonly middleware: readonly Middleware[];
  readonly handler: Handler;
}

function text(body: string, status: number, headers?: HeadersInit): Response {
  const response = new Response(body, { status, headers });
  response.headers.set("Content-Type", "text/plain; charset=utf-8");
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
 * body would have had, when it is at hand); a thrown error gives `500
 * Internal Server Error` (see `onError`).
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
 * @param options Router middleware, `defaultHandler` and `onError`.
 * @returns The router.
 */
export function createRouter(options: RouterOptions = {}): Router {
  const routerMiddleware = [...(options.middleware ?? [])];
  const { defaultHandler, onError } = options;
  const matcher = new Matcher<Target>();

  function add(method: string, pattern: string, target: Target): void {
    matcher.add(method, joinPatterns("", pattern), target);
  }

  function adder(method: string): RouteAdder {
    return (route, ...chain) => {
      const handler = chain.pop() as Handler | undefined;
      if (typeof handler !== "function") {
        throw new TypeError(
          `router.${method.toLowerCase()}(): the last argument must be a handler`,
        );
      }
      const pattern = route instanceof Route ? route.pattern : route;
      add(method, pattern, {
        middleware: chain as unknown as Middleware[],
        handler,
      });
    };
  }

  function toTarget(
    action: unknown,
    middleware: Middleware[],
    name: string,
  ): Target {
    if (typeof action === "function") {
      return { middleware, handler: action as Handler };
    }
    if (
      typeof action === "object" && action !== null &&
      typeof (action as { handler?: unknown }).handler === "function"
    ) {
      const { middleware: own = [], handler } = action as {
        middleware?: Middleware[];
        handler: Handler;
      };
      return { middleware: [...middleware, ...own], handler };
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
    out: [Route, Target][],
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
        out.push([route, toTarget(action, chain, prefix + name)]);
      } else if (action !== undefined) {
        collect(route, action as Controller, chain, `${prefix}${name}.`, out);
      }
    }
  }

  function map(
    routes: RouteMap | Route,
    controller: Controller | Action,
  ): void {
    if (routes instanceof Route) {
      add(
        routes.method,
        routes.pattern,
        toTarget(controller, [], String(routes)),
      );
    } else {
      // Check everything first, so a TypeError leaves no route half-mapped.
      const found: [Route, Target][] = [];
      collect(routes, controller as Controller, [], "", found);
      for (const [route, target] of found) {
        add(route.method, route.pattern, target);
      }
    }
  }

  async function dispatch(context: RequestContext): Promise<Response> {
    const path = pathnameOf(context.request.url);
    const match = matcher.match(context.method, path);
    if (match !== undefined) {
      // A static route keeps the context's own empty params object.
      if (match.params !== undefined) context.params = match.params;
      const { middleware, handler } = match.value;
      return middleware.length === 0
        ? checkResponse(await handler(context))
        : runChain(middleware, context, handler);
    }
    const allowed = matcher.allowed(path);
    if (allowed.length > 0) {
      const allow = allowed.join(", ");
      if (context.method === "OPTIONS") {
        return new Response(null, { status: 204, headers: { Allow: allow } });
      }
      return text("Method Not Allowed", 405, { Allow: allow });
    }
    return defaultHandler
      ? await defaultHandler(context)
      : text("Not Found", 404);
  }

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
    } else {
      console.error(error);
    }
    return text("Internal Server Error", 500);
  }

  async function fetch(request: Request): Promise<Response> {
    const context = new RequestContext(request);
    let response: Response;
    try {
      response = routerMiddleware.length === 0
        ? await dispatch(context)
        : await runChain(routerMiddleware, context, dispatch);
    } catch (error) {
      response = await handleError(error, context);
    }
    if (request.method === "HEAD" && response.body !== null) {
      response = await headResponse(response);
    }
    return response;
  }

  return {
    fetch,
    map: map as Router["map"],
    get: adder("GET"),
    post: adder("POST"),
    put: adder("PUT"),
    patch: adder("PATCH"),
    delete: adder("DELETE"),
    head: adder("HEAD"),
    options: adder("OPTIONS"),
    any: adder("ANY"),
  };
}
