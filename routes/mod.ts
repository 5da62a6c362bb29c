/**
 * Route helpers: build typed route maps with {@linkcode route},
 * {@linkcode form}, {@linkcode resources} and {@linkcode resource}, then
 * hand them to `router.map()` from `@fetchkit/toolkit/fetch-router`.
 *
 * @example
 * ```ts
 * import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * export const routes = route({
 *   home: "/",
 *   login: form("auth/login"),
 *   posts: resources("posts", { only: ["index", "show"] }),
 * });
 * routes.posts.show.href({ id: 1 }); // "/posts/1"
 * ```
 *
 * @module
 */
export { Route } from "./route.ts";
export type { HrefArgs, HrefOptions, ParamsOf, ParamValue } from "./params.ts";
export type { JoinPattern } from "./join.ts";
export {
  type BuildRouteMap,
  route,
  type RouteDefinition,
  type RouteDefinitions,
  type RouteMap,
  routes,
} from "./route_map.ts";
export { form, type FormOptions, type FormRoutes } from "./form.ts";
export type { RouteInput, RouteSchemas, SchemaOutputOr } from "./schemas.ts";
export type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
export {
  type PickRenamed,
  resource,
  type ResourceMethod,
  type ResourceOptions,
  type ResourceRoutes,
  resources,
  type ResourcesMethod,
  type ResourcesOptions,
  type ResourcesRoutes,
  type SchemasFor,
} from "./resources.ts";
export type {
  NameChar,
  NamesOf,
  ParsePattern,
  PlainNames,
  Simplify,
  TakeName,
} from "./params.ts";
export type {
  GroupSlash,
  SlashIntoGroup,
  SplitClosers,
  TrimEnd,
  TrimLeft,
  TrimRight,
} from "./join.ts";
