import type { JoinPattern } from "./join.ts";
import { joinPatterns } from "./pattern.ts";
import { Route } from "./route.ts";

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
> {
  /** Generate only these routes. Not allowed together with `exclude`. */
  only?: O;
  /** Leave out these routes. Not allowed together with `only`. */
  exclude?: E;
  /** Name of the member's path parameter. Default `id`. */
  param?: Param;
  /** New names for generated routes, such as `{ index: "list" }`. */
  names?: N;
}

/** Options of {@linkcode resource}. */
export interface ResourceOptions<
  O extends readonly ResourceMethod[] = readonly ResourceMethod[],
  E extends readonly ResourceMethod[] = readonly [],
  N extends Partial<Record<ResourceMethod, string>> = Record<never, never>,
> {
  /** Generate only these routes. Not allowed together with `exclude`. */
  only?: O;
  /** Leave out these routes. Not allowed together with `only`. */
  exclude?: E;
  /** New names for generated routes, such as `{ show: "view" }`. */
  names?: N;
}

/** All routes of a collection, by their default names. */
export type ResourcesRoutes<Base extends string, Param extends string> = {
  index: Route<"GET", JoinPattern<"", Base>>;
  new: Route<"GET", JoinPattern<Base, "new">>;
  show: Route<"GET", JoinPattern<Base, `:${Param}`>>;
  create: Route<"POST", JoinPattern<"", Base>>;
  edit: Route<"GET", JoinPattern<Base, `:${Param}/edit`>>;
  update: Route<"PUT", JoinPattern<Base, `:${Param}`>>;
  destroy: Route<"DELETE", JoinPattern<Base, `:${Param}`>>;
};

/** All routes of a singleton, by their default names. */
export type ResourceRoutes<Base extends string> = {
  new: Route<"GET", JoinPattern<Base, "new">>;
  show: Route<"GET", JoinPattern<"", Base>>;
  create: Route<"POST", JoinPattern<"", Base>>;
  edit: Route<"GET", JoinPattern<Base, "edit">>;
  update: Route<"PUT", JoinPattern<"", Base>>;
  destroy: Route<"DELETE", JoinPattern<"", Base>>;
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
 * @param base The collection's path, with or without a leading slash.
 * @param options `only`, `exclude`, `param` and `names`.
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
>(
  base: Base,
  options: ResourcesOptions<O, E, Param, N> = {},
): PickRenamed<ResourcesRoutes<Base, Param>, Exclude<O[number], E[number]>, N> {
  const param = options.param ?? "id";
  if (!/^[A-Za-z_$][\w$]*$/.test(param)) {
    throw new TypeError(
      `Invalid resources param "${param}": use a name like "id" or "postId"`,
    );
  }
  const member = `:${param}`;
  const all: Record<ResourcesMethod, Route> = {
    index: new Route("GET", joinPatterns("", base)),
    new: new Route("GET", joinPatterns(base, "new")),
    show: new Route("GET", joinPatterns(base, member)),
    create: new Route("POST", joinPatterns("", base)),
    edit: new Route("GET", joinPatterns(base, `${member}/edit`)),
    update: new Route("PUT", joinPatterns(base, member)),
    destroy: new Route("DELETE", joinPatterns(base, member)),
  };
  return select("resources", all, options) as PickRenamed<
    ResourcesRoutes<Base, Param>,
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
 * @param options `only`, `exclude` and `names`.
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
>(
  name: Base,
  options: ResourceOptions<O, E, N> = {},
): PickRenamed<ResourceRoutes<Base>, Exclude<O[number], E[number]>, N> {
  const all: Record<ResourceMethod, Route> = {
    new: new Route("GET", joinPatterns(name, "new")),
    show: new Route("GET", joinPatterns("", name)),
    create: new Route("POST", joinPatterns("", name)),
    edit: new Route("GET", joinPatterns(name, "edit")),
    update: new Route("PUT", joinPatterns("", name)),
    destroy: new Route("DELETE", joinPatterns("", name)),
  };
  return select("resource", all, options) as PickRenamed<
    ResourceRoutes<Base>,
    Exclude<O[number], E[number]>,
    N
  >;
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
