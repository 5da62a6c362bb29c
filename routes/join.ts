/** Type-level twin of `joinPatterns` in pattern.ts. @module */

/** `S` without leading slashes. */
export type TrimLeft<S extends string> = S extends `/${infer R}` ? TrimLeft<R>
  : S;
/** `S` without trailing slashes. */
export type TrimRight<S extends string> = S extends `${infer R}/` ? TrimRight<R>
  : S;

/**
 * Joins a base and a pattern with exactly one slash between them, as
 * `route(base, defs)` does at run time: `JoinPattern<"blog", ":slug">` is
 * `"/blog/:slug"`.
 *
 * @example
 * ```ts
 * import type { JoinPattern } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const pattern: JoinPattern<"admin/", "/users"> = "/admin/users";
 * ```
 */
export type JoinPattern<B extends string, P extends string> = string extends
  B | P ? string
  : TrimRight<TrimLeft<B>> extends infer H extends string
    ? TrimLeft<P> extends infer T extends string ? H extends "" ? `/${T}`
      : T extends "" ? `/${H}`
      : T extends `(${string}` ? `/${H}${T}`
      : `/${H}/${T}`
    : never
  : never;
