/**
 * Type-level parsing of route patterns: `ParamsOf<"/posts/:id">` is
 * `{ id: string }`. Parameters inside an optional group are optional.
 * @module
 */

/** A character allowed in a parameter name. */
export type NameChar =
  | "a"
  | "b"
  | "c"
  | "d"
  | "e"
  | "f"
  | "g"
  | "h"
  | "i"
  | "j"
  | "k"
  | "l"
  | "m"
  | "n"
  | "o"
  | "p"
  | "q"
  | "r"
  | "s"
  | "t"
  | "u"
  | "v"
  | "w"
  | "x"
  | "y"
  | "z"
  | "A"
  | "B"
  | "C"
  | "D"
  | "E"
  | "F"
  | "G"
  | "H"
  | "I"
  | "J"
  | "K"
  | "L"
  | "M"
  | "N"
  | "O"
  | "P"
  | "Q"
  | "R"
  | "S"
  | "T"
  | "U"
  | "V"
  | "W"
  | "X"
  | "Y"
  | "Z"
  | "0"
  | "1"
  | "2"
  | "3"
  | "4"
  | "5"
  | "6"
  | "7"
  | "8"
  | "9"
  | "_"
  | "$";

/** Splits a leading parameter name off `S`: `[name, rest]`. */
export type TakeName<S extends string, Name extends string = ""> = S extends
  `${infer C}${infer Rest}` ? C extends NameChar ? TakeName<Rest, `${Name}${C}`>
  : [Name, S]
  : [Name, S];

/**
 * Walks a pattern and collects `[required names, optional names]`;
 * names inside `( )` groups are optional.
 */
export type ParsePattern<
  S extends string,
  Depth extends unknown[] = [],
  Required extends string = never,
  Optional extends string = never,
> = S extends `${infer C}${infer Rest}`
  ? C extends "(" ? ParsePattern<Rest, [...Depth, 0], Required, Optional>
  : C extends ")" ? ParsePattern<
      Rest,
      Depth extends [unknown, ...infer D] ? D : [],
      Required,
      Optional
    >
  : C extends ":" | "*"
    ? TakeName<Rest> extends
      [infer N extends string, infer After extends string]
      ? N extends "" ? ParsePattern<After, Depth, Required, Optional>
      : Depth extends [] ? ParsePattern<After, Depth, Required | N, Optional>
      : ParsePattern<After, Depth, Required, Optional | N>
    : never
  : ParsePattern<Rest, Depth, Required, Optional>
  : [Required, Exclude<Optional, Required>];

/**
 * The required parameter names of a pattern without groups or wildcards,
 * jumping from `:` to `:` (the checker matches each jump natively), where
 * {@linkcode ParsePattern} walks every character: fewer type
 * instantiations for a big route map.
 *
 * @example
 * ```ts
 * import type { PlainNames } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const name: PlainNames<"/orgs/:orgId/teams/:teamId"> = "teamId";
 * ```
 */
export type PlainNames<S extends string, Acc extends string = never> = S extends
  `${string}:${infer Rest}`
  ? TakeName<Rest> extends [infer N extends string, infer After extends string]
    ? PlainNames<After, Acc | N>
  : never
  : Acc;

/**
 * `[required names, optional names]` of a pattern, by the fastest parse
 * that fits it.
 *
 * @example
 * ```ts
 * import type { NamesOf } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const names: NamesOf<"/posts/:id(.:format)"> = ["id", "format"];
 * ```
 */
export type NamesOf<S extends string> = S extends
  `${string}${"(" | "*"}${string}` ? ParsePattern<S>
  : [PlainNames<S>, never];

/** Flattens an intersection into one object type, for readable hovers. */
export type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

/**
 * The path parameters of a pattern, inferred from its text.
 *
 * @example
 * ```ts
 * import type { ParamsOf } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const params: ParamsOf<"/brands/:brandId/products(/:page)"> = { brandId: "7" };
 * params.page; // string | undefined
 * ```
 */
export type ParamsOf<P extends string> = string extends P
  ? Record<string, string | undefined>
  : NamesOf<P> extends [infer R extends string, infer O extends string]
    ? Simplify<{ [K in R]: string } & { [K in O]?: string }>
  : never;

/** A value `href()` accepts for a parameter. */
export type ParamValue = string | number | bigint | boolean;

/**
 * The arguments of `href()` for a pattern: the params object is required
 * when the pattern has a required parameter, optional otherwise.
 */
export type HrefArgs<P extends string> = string extends P ? [
    params?: Record<string, ParamValue | null | undefined>,
    options?: HrefOptions,
  ]
  : NamesOf<P> extends [infer R extends string, infer O extends string]
    ? [R] extends [never] ? [
        params?: { [K in O]?: ParamValue | null },
        options?: HrefOptions,
      ]
    : [
      params: Simplify<
        { [K in R]: ParamValue } & { [K in O]?: ParamValue | null }
      >,
      options?: HrefOptions,
    ]
  : never;

/** Options of `href()`. */
export interface HrefOptions {
  /** A query string to append, as text (with or without `?`), pairs or a record. */
  search?:
    | string
    | URLSearchParams
    | Record<
      string,
      string | number | boolean | readonly (string | number | boolean)[]
    >;
}
