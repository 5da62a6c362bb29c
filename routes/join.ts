/** Type-level twin of `joinPatterns` in pattern.ts. @module */

/** `S` without leading slashes. */
export type TrimLeft<S extends string> = S extends `/${infer R}` ? TrimLeft<R>
  : S;
/** `S` without trailing slashes. */
export type TrimRight<S extends string> = S extends `${infer R}/` ? TrimRight<R>
  : S;

/**
 * A base ending in `/(group)` takes the slash into the group, as
 * `route(base, defs)` does: `a/(:id)` becomes `a(/:id)`, so leaving the
 * group out leaves no empty segment.
 *
 * @example
 * ```ts
 * import type { SlashIntoGroup } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const base: SlashIntoGroup<"a/(:id)"> = "a(/:id)";
 * ```
 */
export type SlashIntoGroup<H extends string> = H extends
  `${infer A}/(${infer G})`
  ? G extends `/${string}` | `${string}(${string}` | `${string})${string}` ? H
  : `${A}(/${G})`
  : H;

/**
 * Joins a base and a pattern with exactly one slash between them, as
 * `route(base, defs)` does at run time: `JoinPattern<"blog", ":slug">` is
 * `"/blog/:slug"`; a group that starts with a slash follows the base
 * directly (`"/posts(/:page)"`), another group is its own segment
 * (`"/posts/(:page)"`).
 *
 * @example
 * ```ts
 * import type { JoinPattern } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const pattern: JoinPattern<"admin/", "/users"> = "/admin/users";
 * const paged: JoinPattern<"posts", "(/:page)"> = "/posts(/:page)";
 * ```
 */
export type JoinPattern<B extends string, P extends string> = string extends
  B | P ? string
  : SlashIntoGroup<TrimRight<TrimLeft<B>>> extends infer H extends string
    ? TrimLeft<P> extends infer T extends string
      ? H extends "" ? T extends `(/${string}` ? T : `/${T}`
      : T extends "" ? `/${H}`
      : T extends `(/${string}` ? `/${H}${T}`
      : `/${H}/${T}`
    : never
  : never;
