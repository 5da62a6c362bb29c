/**
 * Sections and mounts: the route methods (`get`, `map`, `mount`...) of
 * the router and of each `router.mount(prefix, ...)` section. Mounting
 * only joins patterns and middleware: every route lands in the router's
 * one matcher through `add`.
 *
 * @module
 */

import { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import { joinPatterns } from "../matcher/pattern.ts";
import {
  type AddRoute,
  collect,
  type Target,
  toTarget,
} from "./_registration.ts";
import type { Handler, Middleware } from "./types.ts";
import type {
  Action,
  Controller,
  RouteAdder,
  RouteMethods,
  RouterScope,
} from "./router_types.ts";

/** One section: its route methods and the middleware around its routes. */
export interface Section {
  methods: RouteMethods<string>;
  middleware: Middleware[];
  /** Whether a route was added here yet (`use()` must come first). */
  used: () => boolean;
}

/**
 * The route methods of one section: `prefix` is joined before every
 * pattern and the section's `middleware` runs before a route's own. The
 * router itself is the section with prefix "" and no middleware.
 */
export function section(prefix: string, add: AddRoute): Section {
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
      const found: [Route, ...Target][] = [];
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
    const inner = section(join(sub), add);
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
