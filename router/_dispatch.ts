/**
 * Dispatch: after the router's middleware, a request is matched once
 * (or taken as Bun's native router matched it) and handed to its route's
 * composed chain; a miss is answered 405 with `Allow` (204 for `OPTIONS`)
 * or 404 (or `defaultHandler`).
 *
 * @module
 */

import {
  matchedRoute,
  type Params,
  type RequestContext,
  servedRoutePath,
} from "./context.ts";
import type { Terminal } from "./_chain.ts";
import type { RouteEntry } from "./_registration.ts";
import type { Handler } from "./types.ts";
import { text } from "./_answers.ts";
import type { Matcher } from "../matcher/matcher.ts";
import { routePathOf } from "../url_path/url_path.ts";
import { NativeResponse } from "../response/native.ts";

/**
 * Stored as the matched route of a request Bun's router matched to no
 * route, when every route is Bun's: most likely a 404.
 */
export const MISSED: unique symbol = Symbol("missed");

/** A route Bun matched: its method, entry and params. */
export interface Prematched {
  method: string;
  value: RouteEntry;
  params: Params | undefined;
}

/**
 * The terminal of the router's own chain: routes a request by
 * `context.method` (which router middleware may have changed) and path.
 */
export function dispatcher(
  matcher: Matcher<RouteEntry>,
  defaultHandler: Handler | undefined,
): Terminal {
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
    return notFound(context);
  }

  /** No route of any method: `defaultHandler`, or 404. */
  function notFound(context: RequestContext): Response | Promise<Response> {
    return defaultHandler ? defaultHandler(context) : text("Not Found", 404);
  }

  /** Matches `path` for `context.method`, and runs its route or `miss`. */
  function route(
    context: RequestContext,
    path: string,
  ): Response | Promise<Response> {
    const match = matcher.find(context.method, path);
    if (match === undefined) return miss(context, path);
    // A static route keeps the context's own empty params object.
    if (match.params !== undefined) context.params = match.params;
    context.routePattern = match.value.pattern;
    return match.value.run(context);
  }

  return function dispatch(
    context: RequestContext,
  ): Response | Promise<Response> {
    const found = matchedRoute(context) as
      | Prematched
      | typeof MISSED
      | undefined;
    if (found !== undefined) {
      if (found === MISSED) {
        // Bun's router matched no route: a path no route of any method
        // matches is a 404 after one lookup (not the method's, then all).
        const path = routePathOf(context.request.url);
        return matcher.has(path) ? route(context, path) : notFound(context);
      }
      // Bun matched it, for the method router middleware left in place.
      if (found.method === context.method) {
        if (found.params !== undefined) context.params = found.params;
        context.routePattern = found.value.pattern;
        return found.value.run(context);
      }
    }
    return route(
      context,
      servedRoutePath(context) ?? routePathOf(context.request.url),
    );
  };
}
