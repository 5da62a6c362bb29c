/**
 * `form()`: the GET and POST routes of one form page.
 *
 * @module
 */

import type { JoinPattern } from "./join.ts";
import { joinPatterns } from "../matcher/pattern.ts";
import { Route } from "./route.ts";
import type { RouteSchemas } from "./schemas.ts";
import { type SchemasFor, schemasOption } from "./resources.ts";

/** Options of {@linkcode form}. */
export interface FormOptions<
  FM extends string = "POST",
  N extends { index?: string; action?: string } = Record<never, never>,
  Sch extends { index?: RouteSchemas; action?: RouteSchemas } = Record<
    never,
    never
  >,
> {
  /** Method of the `action` route. Default `POST`. */
  formMethod?: FM;
  /** New names for the two routes, such as `{ index: "show", action: "submit" }`. */
  names?: N;
  /**
   * Schemas by route, keyed `index` and `action` even when `names` renames
   * them: `{ action: { body: Signup } }`.
   */
  schemas?: Sch;
}

/** The two routes of {@linkcode form}, renamed by `N`, with schemas `Sch`. */
export type FormRoutes<
  P extends string,
  FM extends string,
  N,
  Sch = Record<never, never>,
> =
  & {
    [K in N extends { index: infer I extends string } ? I : "index"]: Route<
      "GET",
      P,
      SchemasFor<Sch, "index">
    >;
  }
  & {
    [K in N extends { action: infer A extends string } ? A : "action"]: Route<
      Uppercase<FM>,
      P,
      SchemasFor<Sch, "action">
    >;
  };

/**
 * Two routes on one pattern: `index` (GET) shows the form and `action`
 * (POST, or `formMethod`) handles its submission.
 *
 * @example
 * ```ts
 * import { form } from "@fetchkit/toolkit/fetch-router/routes";
 *
 * const contact = form("contact");
 * contact.index.method; // "GET"
 * contact.action.method; // "POST"
 * const settings = form("settings", { formMethod: "PUT", names: { action: "save" } });
 * settings.save.method; // "PUT"
 * ```
 *
 * @example The submission validated by a schema
 * ```ts
 * import { form } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const signup = form("signup", {
 *   schemas: { action: { body: z.object({ email: z.email() }) } },
 * });
 * signup.action.schemas?.body; // the form's schema
 * ```
 *
 * @param pattern The form's path, with or without a leading slash.
 * @param options `formMethod`, `names` and `schemas`.
 * @returns The two routes, by name.
 */
export function form<
  const P extends string,
  const FM extends string = "POST",
  const N extends { index?: string; action?: string } = Record<never, never>,
  const Sch extends { index?: RouteSchemas; action?: RouteSchemas } = Record<
    never,
    never
  >,
>(
  pattern: P,
  options: FormOptions<FM, N, Sch> = {},
): FormRoutes<JoinPattern<"", P>, FM, N, Sch> {
  const path = joinPatterns("", pattern);
  const index = options.names?.index ?? "index";
  const action = options.names?.action ?? "action";
  if (index === action) {
    throw new TypeError(
      `form(): both routes are named "${index}"; check "names"`,
    );
  }
  const sch = schemasOption("form", options.schemas, ["index", "action"]);
  return {
    [index]: new Route("GET", path, sch.index),
    [action]: new Route(options.formMethod ?? "POST", path, sch.action),
  } as FormRoutes<JoinPattern<"", P>, FM, N, Sch>;
}
