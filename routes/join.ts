/** Type-level twin of `joinPatterns` in pattern.ts. @module */

/** `S` without leading slashes. */
export type TrimLeft<S extends string> = S extends `/${infer R}` ? TrimLeft<R>
  : S;
/** `S` without trailing slashes. */
export type TrimRight<S extends string> = S extends `${infer R}/` ? TrimRight<R>
  : S;

/**
 * `S` split into what precedes the `)`s it ends with, and those `)`s.
 *
 * @example
 * ```ts
 * import type { SplitClosers } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const parts: SplitClosers<"((a/))"> = ["((a/", "))"];
 * ```
 */
export type SplitClosers<S extends string, C extends string = ""> = S extends
  `${infer R})` ? SplitClosers<R, `${C})`>
  : [S, C];

/**
 * `S` without the slashes it ends with, inside its closing groups too, as
 * `route(base, defs)` trims a base: `(a/)` becomes `(a)`; a group left
 * empty goes (`a(/)` becomes `a`).
 *
 * @example
 * ```ts
 * import type { TrimEnd } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const base: TrimEnd<"(a/)"> = "(a)";
 * ```
 */
export type TrimEnd<S extends string> = TrimRight<S> extends
  infer T extends string
  ? SplitClosers<T> extends [infer A extends string, infer C extends string]
    ? C extends "" ? T
    : A extends `${string}/` ? TrimEnd<`${TrimRight<A>}${C}`>
    : A extends `${infer E}(`
      ? C extends `)${infer D}` ? TrimEnd<`${E}${D}`> : T
    : T
  : T
  : never;

/**
 * Whether `S` opens with groups whose first character is a slash, as
 * `((/b))`: such a pattern follows the base with no slash added.
 *
 * @example
 * ```ts
 * import type { GroupSlash } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const yes: GroupSlash<"((/b))"> = true;
 * const no: GroupSlash<"(b)"> = false;
 * ```
 */
export type GroupSlash<S extends string> = S extends `(/${string}` ? true
  : S extends `(${infer R}` ? GroupSlash<R>
  : false;

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
  : SlashIntoGroup<TrimEnd<TrimLeft<B>>> extends infer H extends string
    ? TrimLeft<P> extends infer T extends string
      ? H extends "" ? GroupSlash<T> extends true ? T : `/${T}`
      : T extends "" ? `/${H}`
      : GroupSlash<T> extends true ? `/${H}${T}`
      : `/${H}/${T}`
    : never
  : never;
