/**
 * `route()`: a tree of named routes, nested, with the types that map
 * names to patterns.
 *
 * @module
 */

import type { JoinPattern } from "./join.ts";
import { joinPatterns } from "../matcher/pattern.ts";
import { Route } from "./route.ts";
import type { RouteSchemas } from "./schemas.ts";

/** A tree of routes by name, as `route()`, `resources()` and `form()` build. */
export interface RouteMap {
  /** A route, or a nested group of routes, by name. */
  readonly [name: string]: Route | RouteMap;
}

/**
 * One entry of a route definition given to {@linkcode route}: a pattern, a
 * `{ method, pattern }` object (with schemas, if any: `params`, `query`,
 * `body`, `response`), a `Route`, or a nested group.
 */
export type RouteDefinition =
  | string
  | ({ readonly method?: string; readonly pattern: string } & RouteSchemas)
  | Route
  | RouteDefinitions;

/** The definitions given to {@linkcode route}: entries by name, nesting allowed. */
export interface RouteDefinitions {
  /** A route definition, or a nested group of them, by name. */
  readonly [name: string]: RouteDefinition;
}

/** The route map that {@linkcode route} builds from definitions `D` under base `B`. */
export type BuildRouteMap<B extends string, D> = {
  -readonly [K in keyof D]: D[K] extends Route<infer M, infer P, infer S>
    ? Route<M, JoinPattern<B, P>, S>
    : D[K] extends string ? Route<"ANY", JoinPattern<B, D[K]>>
    : D[K] extends { readonly pattern: infer P extends string } ? Route<
        D[K] extends { readonly method: infer M extends string } ? Uppercase<M>
          : "ANY",
        JoinPattern<B, P>,
        Pick<D[K], keyof D[K] & keyof RouteSchemas>
      >
    : D[K] extends RouteDefinitions ? BuildRouteMap<B, D[K]>
    : never;
};

/**
 * Builds a route map. A plain string is a route for `ANY` method;
 * `{ method, pattern }` gives that method; `Route`s and nested maps (such
 * as `resources(...)`) are kept, moved under `base` when one is given.
 * An entry may carry Standard Schemas (`params`, `query`, `body`,
 * `response`): the router validates them before the handler, which reads
 * `context.input`, and `createClient()` and `createOpenApiDocument()` type
 * and document the route from them.
 *
 * @example Routes for a blog, with a nested group
 * ```ts
 * import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const routes = route({
 *   home: "/",
 *   about: { method: "GET", pattern: "/about" },
 *   contact: form("contact"),
 *   blog: route("blog", {
 *     index: { method: "GET", pattern: "/" },
 *     show: { method: "GET", pattern: ":slug" },
 *   }),
 *   brands: {
 *     ...resources("brands"),
 *     products: resources("brands/:brandId/products"),
 *   },
 * });
 * routes.blog.show.href({ slug: "hello-world" }); // "/blog/hello-world"
 * routes.brands.products.show.href({ brandId: 1, id: 2 }); // "/brands/1/products/2"
 * ```
 *
 * @example Schemas on a route
 * ```ts
 * import { route } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const routes = route({
 *   notes: {
 *     show: {
 *       method: "GET",
 *       pattern: "/notes/:id",
 *       params: z.object({ id: z.coerce.number().int() }),
 *       response: z.object({ id: z.number(), title: z.string() }),
 *     },
 *   },
 * });
 * routes.notes.show.schemas?.response; // the response schema
 * ```
 *
 * @param defs Route definitions by name.
 * @returns The route map.
 */
export function route<const D extends RouteDefinitions>(
  defs: D,
): BuildRouteMap<"", D>;
/**
 * Builds a route map whose patterns all start with `base`.
 *
 * @example
 * ```ts
 * import { route } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const admin = route("admin", { users: "users", settings: "settings" });
 * admin.users.pattern; // "/admin/users"
 * ```
 *
 * @param base A pattern prefix, with or without a leading slash.
 * @param defs Route definitions by name.
 * @returns The route map.
 */
export function route<const B extends string, const D extends RouteDefinitions>(
  base: B,
  defs: D,
): BuildRouteMap<B, D>;
export function route(
  baseOrDefs: string | RouteDefinitions,
  defs?: RouteDefinitions,
): RouteMap {
  return typeof baseOrDefs === "string"
    ? buildMap(baseOrDefs, defs ?? {})
    : buildMap("", baseOrDefs);
}

/** Alias of {@linkcode route}, for code that calls it `routes`. */
export const routes: typeof route = route;

function buildMap(base: string, defs: RouteDefinitions): RouteMap {
  const map: Record<string, Route | RouteMap> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (def instanceof Route) {
      map[name] = base === ""
        ? def
        : new Route(def.method, joinPatterns(base, def.pattern), def.schemas);
    } else if (typeof def === "string") {
      map[name] = new Route("ANY", joinPatterns(base, def));
    } else if (typeof def.pattern === "string") {
      const { method = "ANY", pattern } = def as {
        method?: string;
        pattern: string;
      };
      map[name] = new Route(method, joinPatterns(base, pattern), def);
    } else {
      map[name] = buildMap(base, def as RouteDefinitions);
    }
  }
  return map;
}
