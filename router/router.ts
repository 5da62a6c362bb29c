/**
 * `createRouter()`: routes by method and pattern, middleware, mounts, route
 * maps, the error boundary, and `fetch`.
 *
 * @module
 */

import {
  acceptStagedSinks,
  connectContext,
  contextFor,
  matchedRoute,
  type Params,
  RequestContext,
  servedPathOf,
} from "./context.ts";
import { createRemoteAddrResolver, type ServeInfo } from "./remote_addr.ts";
import { compose } from "./_chain.ts";
import { type Absent, nativeRoutes } from "./_native_routes.ts";
import { errorBoundary, type Finish, responder } from "./_error_boundary.ts";
import { registry, type RouteEntry } from "./_registration.ts";
import { dispatcher, MISSED } from "./_dispatch.ts";
import { answerEarly } from "./early_answer.ts";
import { bareNotFound } from "./_answers.ts";
import { routePathOf } from "../url_path/url_path.ts";
import { section } from "./_sections.ts";
import type { Router, RouterOptions } from "./router_types.ts";

/** `serve()` on Bun passes this function's result as `Bun.serve`'s `routes`. */
const BUN_ROUTES = Symbol.for("fetchkit.serve.bunRoutes");
/** Marks those routes as taking Bun's server as their connection info. */
const SERVER_INFO = Symbol.for("fetchkit.serve.bunServerInfo");
/**
 * Marks those routes as passing each promised answer through the `track`
 * the hook was called with (see `Finish`).
 */
const TRACKED = Symbol.for("fetchkit.serve.bunTracked");
/**
 * `serve()` on Node calls this function once when `fetch` is its handler,
 * then gives `fetch` an `info` that is a `StagedSink` too: it takes the
 * staged response headers and writes them into the response head itself
 * (see `acceptStagedSinks`).
 */
const NODE_FETCH = Symbol.for("fetchkit.serve.nodeFetch");

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
  // The parts, each in a file of its own: the error boundary and the last
  // step of every request (_error_boundary.ts), the routes (_registration.ts),
  // dispatch after the router's middleware (_dispatch.ts), and the route
  // methods of the router and its mounted sections (_sections.ts).
  const recover = errorBoundary(options.onError);
  const respond = responder(recover);
  const routes = registry(recover, options);
  const middleware = options.middleware ?? [];
  const run = compose(
    middleware,
    dispatcher(routes.matcher, options.defaultHandler),
    recover,
  );
  const resolveRemoteAddr = createRemoteAddrResolver(options.trustProxy);

  // Not async: a chain that answers synchronously is answered with its
  // Response itself (see `responder`).
  function fetch(
    request: Request,
    info?: ServeInfo,
  ): Response | Promise<Response> {
    return fetchThen(request, info, undefined);
  }

  /** `fetch`, with a promised answer passed through `done` (Bun's routes). */
  function fetchThen(
    request: Request,
    info: unknown,
    done?: Finish,
  ): Response | Promise<Response> {
    // A route whose first middleware may answer early: matched here, and
    // the match handed to dispatch (see early_answer.ts).
    if (!routerMiddleware && routes.early) {
      return matchEarly(request, info as ServeInfo | undefined, done);
    }
    const context = new RequestContext(request);
    if (info !== undefined) {
      connectContext(context, info as ServeInfo, resolveRemoteAddr);
    }
    return respond(context, run, done);
  }

  const routerMiddleware = middleware.length > 0;

  /** `fetch` when a route may answer early and no router middleware runs. */
  function matchEarly(
    request: Request,
    info: ServeInfo | undefined,
    done: Finish | undefined,
  ): Response | Promise<Response> {
    let method: string | undefined;
    let match: ReturnType<typeof routes.matcher.find>;
    try {
      method = request.method;
      match = routes.matcher.find(
        method,
        servedPathOf(info) ?? routePathOf(request.url),
      );
    } catch {
      // The ordinary way meets the same error inside the error boundary.
      method = match = undefined;
    }
    if (match !== undefined) {
      const early = match.value.early;
      if (early !== undefined) {
        const answer = answerEarly(early, request, method!, info);
        if (answer !== undefined) return answer;
      }
    }
    const context = new RequestContext(request);
    if (info !== undefined) connectContext(context, info, resolveRemoteAddr);
    if (match !== undefined) {
      matchedRoute(context, {
        method,
        value: match.value,
        params: match.params,
      });
    }
    return respond(context, run, done);
  }

  /** A request Bun's router matched to `value` (see _native_routes.ts). */
  function answerMatched(
    request: Request,
    info: unknown,
    value: RouteEntry,
    params: Params | undefined,
    method: string | undefined,
    done: Finish | undefined,
  ): Response | Promise<Response> {
    // Nothing runs before the route's chain: its first middleware may
    // answer before the context is built (see early_answer.ts).
    const early = value.early;
    if (early !== undefined && !routerMiddleware) {
      const answer = answerEarly(
        early,
        request,
        method ?? request.method,
        info as ServeInfo | undefined,
      );
      if (answer !== undefined) return answer;
    }
    const context = method === undefined
      ? new RequestContext(request, params)
      : contextFor(request, params, method);
    if (info !== undefined) {
      connectContext(context, info as ServeInfo, resolveRemoteAddr);
    }
    // Without router middleware the route's chain is the whole answer.
    if (!routerMiddleware) {
      context.routePattern = value.pattern;
      return respond(context, value.run, done);
    }
    // Dispatch (_dispatch.ts) takes the match, for the method as it is then.
    matchedRoute(context, { method: context.method, value, params });
    return respond(context, run, done);
  }

  // An internal hook, not enumerable: serve() on Node calls it once when
  // fetch is its handler (so the Response goes to the server unread), and
  // then passes an info that takes the staged headers for the head.
  Object.defineProperty(fetch, NODE_FETCH, { value: acceptStagedSinks });

  // A miss with nothing to run but the 404 itself: no router middleware,
  // no defaultHandler (onError is not reached by a plain 404).
  const bareMiss = !routerMiddleware && options.defaultHandler === undefined;

  /** A request Bun's router matched to no route (see _native_routes.ts). */
  function answerMissed(
    request: Request,
    info: unknown,
    done: Finish | undefined,
    method: string | undefined,
    absent: Absent | undefined,
  ): Response | Promise<Response> {
    // Bun's router saw the raw target and `request.url` is normalised
    // (`/x/../a` arrives as `/a`): the normal path decides. When no route
    // of any method has it, the 404 is answered here, without a context
    // or the chain; HEAD (no body) and anything a route has (405, or a
    // route the raw target hid) take the whole way. A plain path whose
    // number of segments and first segment no route has (`absent`) needs
    // no lookup; any other, one lookup of the matcher.
    if (bareMiss && (method ?? request.method) !== "HEAD") {
      if (absent !== undefined && absent(request)) return bareNotFound();
      const path = missedPath(request.url);
      if (path !== undefined && !routes.matcher.has(path)) {
        return bareNotFound();
      }
    }
    const context = new RequestContext(request);
    if (info !== undefined) {
      connectContext(context, info as ServeInfo, resolveRemoteAddr);
    }
    matchedRoute(context, MISSED);
    return respond(context, run, done);
  }

  // An internal hook, not enumerable: serve() on Bun hands these routes
  // to Bun's native router (see _native_routes.ts).
  // The context finds the client through `info.requestIP(request)`, so
  // serve() may give these routes Bun's server as their info (SERVER_INFO).
  // Called with serve()'s `track`, the routes pass each promised answer
  // through it (TRACKED), so serve() adds no `then` of its own.
  Object.defineProperty(fetch, BUN_ROUTES, {
    value: (track?: Finish) => {
      const native = nativeRoutes(
        routes.registered,
        answerMatched,
        fetchThen,
        answerMissed,
        track,
      );
      Object.defineProperty(native, SERVER_INFO, { value: true });
      if (track !== undefined) {
        Object.defineProperty(native, TRACKED, { value: true });
      }
      return native;
    },
  });
  return { fetch, ...section("", routes.add).methods };
}

/** The path to route, or `undefined` when cutting it out throws. */
function missedPath(url: string): string | undefined {
  try {
    return routePathOf(url);
  } catch {
    // The error boundary answers it, on the whole way.
    return undefined;
  }
}
