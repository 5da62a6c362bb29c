/**
 * `resources()` and `resource()`: the REST routes of a collection or a
 * singleton, with only, except and schemas.
 *
 * @module
 */

import type { JoinPattern } from "./join.ts";
import { joinPatterns } from "../matcher/pattern.ts";
import { Route } from "./route.ts";
import type { RouteSchemas } from "./schemas.ts";

/** The schemas given for route `K` in a helper's `schemas` option. */
export type SchemasFor<Sch, K extends string> = Sch extends
  { readonly [Key in K]: infer X extends RouteSchemas } ? X : RouteSchemas;

/** The routes {@linkcode resources} can generate. */
export type ResourcesMethod =
  | "index"
  | "new"
  | "show"
  | "create"
  | "edit"
  | "update"
  | "destroy";

/** The routes {@linkcode resource} can generate (a singleton has no `index`). */
export type ResourceMethod = Exclude<ResourcesMethod, "index">;

/** Options of {@linkcode resources}. */
export interface ResourcesOptions<
  O extends readonly ResourcesMethod[] = readonly ResourcesMethod[],
  E extends readonly ResourcesMethod[] = readonly [],
  Param extends string = "id",
  N extends Partial<Record<ResourcesMethod, string>> = Record<never, never>,
  Sch extends Partial<Record<ResourcesMethod, RouteSchemas>> = Record<
    never,
    never
  >,
> {
  /** Generate only these routes. Not allowed together with `exclude`. */
  only?: O;
  /** Leave out these routes. Not allowed together with `only`. */
  exclude?: E;
  /** Name of the member's path parameter. Default `id`. */
  param?: Param;
  /** New names for generated routes, such as `{ index: "list" }`. */
  names?: N;
  /**
   * Schemas by route, keyed by the default route names even when `names`
   * renames them: `{ create: { body: NoteInput, response: Note } }`.
   */
  schemas?: Sch;
}

/** Options of {@linkcode resource}. */
export interface ResourceOptions<
  O extends readonly ResourceMethod[] = readonly ResourceMethod[],
  E extends readonly ResourceMethod[] = readonly [],
  N extends Partial<Record<ResourceMethod, string>> = Record<never, never>,
  Sch extends Partial<Record<ResourceMethod, RouteSchemas>> = Record<
    never,
    never
  >,
> {
  /** Generate only these routes. Not allowed together with `exclude`. */
  only?: O;
  /** Leave out these routes. Not allowed together with `only`. */
  exclude?: E;
  /** New names for generated routes, such as `{ show: "view" }`. */
  names?: N;
  /**
   * Schemas by route, keyed by the default route names even when `names`
   * renames them: `{ update: { body: ProfileInput } }`.
   */
  schemas?: Sch;
}

/** All routes of a collection, by their default names, with schemas `Sch`. */
export type ResourcesRoutes<
  Base extends string,
  Param extends string,
  Sch = Record<never, never>,
> = {
  index: Route<"GET", JoinPattern<"", Base>, SchemasFor<Sch, "index">>;
  new: Route<"GET", JoinPattern<Base, "new">, SchemasFor<Sch, "new">>;
  show: Route<"GET", JoinPattern<Base, `:${Param}`>, SchemasFor<Sch, "show">>;
  create: Route<"POST", JoinPattern<"", Base>, SchemasFor<Sch, "create">>;
  edit: Route<
    "GET",
    JoinPattern<Base, `:${Param}/edit`>,
    SchemasFor<Sch, "edit">
  >;
  update: Route<
    "PUT",
    JoinPattern<Base, `:${Param}`>,
    SchemasFor<Sch, "update">
  >;
  destroy: Route<
    "DELETE",
    JoinPattern<Base, `:${Param}`>,
    SchemasFor<Sch, "destroy">
  >;
};

/** All routes of a singleton, by their default names, with schemas `Sch`. */
export type ResourceRoutes<Base extends string, Sch = Record<never, never>> = {
  new: Route<"GET", JoinPattern<Base, "new">, SchemasFor<Sch, "new">>;
  show: Route<"GET", JoinPattern<"", Base>, SchemasFor<Sch, "show">>;
  create: Route<"POST", JoinPattern<"", Base>, SchemasFor<Sch, "create">>;
  edit: Route<"GET", JoinPattern<Base, "edit">, SchemasFor<Sch, "edit">>;
  update: Route<"PUT", JoinPattern<"", Base>, SchemasFor<Sch, "update">>;
  destroy: Route<"DELETE", JoinPattern<"", Base>, SchemasFor<Sch, "destroy">>;
};

/** Keeps the keys `K` of `T` and renames them by `N`. */
export type PickRenamed<T, K extends keyof T, N> = {
  [P in K as P extends keyof N ? N[P] extends string ? N[P] : P : P]: T[P];
};

/**
 * RESTful routes for a collection: `index`, `new`, `show`, `create`,
 * `edit`, `update`, `destroy`.
 *
 * | name    | method | path                 |
 * | ------- | ------ | -------------------- |
 * | index   | GET    | `/<base>`            |
 * | new     | GET    | `/<base>/new`        |
 * | show    | GET    | `/<base>/:id`        |
 * | create  | POST   | `/<base>`            |
 * | edit    | GET    | `/<base>/:id/edit`   |
 * | update  | PUT    | `/<base>/:id`        |
 * | destroy | DELETE | `/<base>/:id`        |
 *
 * @example
 * ```ts
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const posts = resources("posts", { exclude: ["new", "edit"], param: "slug" });
 * posts.show.href({ slug: "hello" }); // "/posts/hello"
 * const products = resources("brands/:brandId/products", { names: { index: "list" } });
 * products.list.href({ brandId: 3 }); // "/brands/3/products"
 * ```
 *
 * @example Schemas, keyed by the default route names
 * ```ts
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const NoteInput = z.object({ title: z.string() });
 * const Note = z.object({ id: z.number(), title: z.string() });
 * const notes = resources("notes", {
 *   only: ["index", "create"],
 *   names: { index: "list" },
 *   schemas: { index: { response: z.array(Note) }, create: { body: NoteInput, response: Note } },
 * });
 * notes.list.schemas?.response; // z.array(Note)
 * ```
 *
 * @param base The collection's path, with or without a leading slash.
 * @param options `only`, `exclude`, `param`, `names` and `schemas`.
 * @returns The routes, by name.
 */
export function resources<
  const Base extends string,
  const O extends readonly ResourcesMethod[] = readonly ResourcesMethod[],
  const E extends readonly ResourcesMethod[] = readonly [],
  const Param extends string = "id",
  const N extends Partial<Record<ResourcesMethod, string>> = Record<
    never,
    never
  >,
  const Sch extends Partial<Record<ResourcesMethod, RouteSchemas>> = Record<
    never,
    never
  >,
>(
  base: Base,
  options: ResourcesOptions<O, E, Param, N, Sch> = {},
): PickRenamed<
  ResourcesRoutes<Base, Param, Sch>,
  Exclude<O[number], E[number]>,
  N
> {
  const param = options.param ?? "id";
  if (!/^[A-Za-z_$][\w$]*$/.test(param)) {
    throw new TypeError(
      `Invalid resources param "${param}": use a name like "id" or "postId"`,
    );
  }
  const member = `:${param}`;
  const sch = schemasOption("resources", options.schemas, RESOURCES_METHODS);
  const all: Record<ResourcesMethod, Route> = {
    index: new Route("GET", joinPatterns("", base), sch.index),
    new: new Route("GET", joinPatterns(base, "new"), sch.new),
    show: new Route("GET", joinPatterns(base, member), sch.show),
    create: new Route("POST", joinPatterns("", base), sch.create),
    edit: new Route("GET", joinPatterns(base, `${member}/edit`), sch.edit),
    update: new Route("PUT", joinPatterns(base, member), sch.update),
    destroy: new Route("DELETE", joinPatterns(base, member), sch.destroy),
  };
  return select("resources", all, options) as PickRenamed<
    ResourcesRoutes<Base, Param, Sch>,
    Exclude<O[number], E[number]>,
    N
  >;
}

/**
 * Routes for a singleton resource (one per user or app, so no `:id` and
 * no `index`): `new`, `show`, `create`, `edit`, `update`, `destroy`.
 *
 * @example A profile the current user edits
 * ```ts
 * import { resource } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const profile = resource("profile", { only: ["show", "edit", "update"] });
 * profile.edit.href(); // "/profile/edit"
 * profile.update.method; // "PUT"
 * ```
 *
 * @param name The resource's path, with or without a leading slash.
 * @param options `only`, `exclude`, `names` and `schemas`.
 * @returns The routes, by name.
 */
export function resource<
  const Base extends string,
  const O extends readonly ResourceMethod[] = readonly ResourceMethod[],
  const E extends readonly ResourceMethod[] = readonly [],
  const N extends Partial<Record<ResourceMethod, string>> = Record<
    never,
    never
  >,
  const Sch extends Partial<Record<ResourceMethod, RouteSchemas>> = Record<
    never,
    never
  >,
>(
  name: Base,
  options: ResourceOptions<O, E, N, Sch> = {},
): PickRenamed<ResourceRoutes<Base, Sch>, Exclude<O[number], E[number]>, N> {
  const sch = schemasOption("resource", options.schemas, RESOURCE_METHODS);
  const all: Record<ResourceMethod, Route> = {
    new: new Route("GET", joinPatterns(name, "new"), sch.new),
    show: new Route("GET", joinPatterns("", name), sch.show),
    create: new Route("POST", joinPatterns("", name), sch.create),
    edit: new Route("GET", joinPatterns(name, "edit"), sch.edit),
    update: new Route("PUT", joinPatterns("", name), sch.update),
    destroy: new Route("DELETE", joinPatterns("", name), sch.destroy),
  };
  return select("resource", all, options) as PickRenamed<
    ResourceRoutes<Base, Sch>,
    Exclude<O[number], E[number]>,
    N
  >;
}

const RESOURCES_METHODS: readonly ResourcesMethod[] = [
  "index",
  "new",
  "show",
  "create",
  "edit",
  "update",
  "destroy",
];
const RESOURCE_METHODS: readonly ResourceMethod[] = RESOURCES_METHODS.slice(1)
  .filter((name): name is ResourceMethod => name !== "index");

/**
 * Checks a helper's `schemas` option: keys must be default route names
 * (a renamed route keeps its default name here).
 */
export function schemasOption(
  helper: string,
  schemas: unknown,
  known: readonly string[],
): Partial<Record<string, RouteSchemas>> {
  if (schemas === undefined) return {};
  if (typeof schemas !== "object" || schemas === null) {
    throw new TypeError(
      `${helper}(): "schemas" must be an object of schemas by route name`,
    );
  }
  for (const key of Object.keys(schemas)) {
    if (!known.includes(key)) {
      throw new TypeError(
        `${helper}(): unknown route "${key}" in "schemas"; expected one of ${
          known.join(", ")
        } (default names, even when "names" renames them)`,
      );
    }
  }
  return schemas as Partial<Record<string, RouteSchemas>>;
}

/** Applies `only`, `exclude` and `names`, checking each against `known`. */
function select<K extends string>(
  helper: string,
  all: Record<K, Route>,
  options: {
    only?: readonly string[];
    exclude?: readonly string[];
    names?: Partial<Record<string, string>>;
  },
): Record<string, Route> {
  const { only, exclude, names = {} } = options;
  // The order of `all` is the order routes are generated and listed in.
  const known = Object.keys(all) as K[];
  if (only !== undefined && exclude !== undefined) {
    throw new TypeError(`${helper}(): use "only" or "exclude", not both`);
  }
  for (
    const [option, list] of [["only", only], ["exclude", exclude], [
      "names",
      Object.keys(names),
    ]] as const
  ) {
    for (const item of list ?? []) {
      if (!(known as readonly string[]).includes(item)) {
        throw new TypeError(
          `${helper}(): unknown route "${item}" in "${option}"; expected one of ${
            known.join(", ")
          }`,
        );
      }
    }
  }
  const out: Record<string, Route> = {};
  for (const key of known) {
    if (only !== undefined && !only.includes(key)) continue;
    if (exclude?.includes(key)) continue;
    const name = names[key] ?? key;
    if (name in out) {
      throw new TypeError(
        `${helper}(): two routes are named "${name}"; check "names"`,
      );
    }
    out[name] = all[key];
  }
  return out;
}
