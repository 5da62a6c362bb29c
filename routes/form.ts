import type { JoinPattern } from "./join.ts";
import { joinPatterns } from "./pattern.ts";
import { Route } from "./route.ts";

/** Options of {@linkcode form}. */
export interface FormOptions<
  FM extends string = "POST",
  N extends { index?: string; action?: string } = Record<never, never>,
> {
  /** Method of the `action` route. Default `POST`. */
  formMethod?: FM;
  /** New names for the two routes, such as `{ index: "show", action: "submit" }`. */
  names?: N;
}

/** The two routes of {@linkcode form}, renamed by `N`. */
export type FormRoutes<P extends string, FM extends string, N> =
  & {
    [K in N extends { index: infer I extends string } ? I : "index"]: Route<
      "GET",
      P
    >;
  }
  & {
    [K in N extends { action: infer A extends string } ? A : "action"]: Route<
      Uppercase<FM>,
      P
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
 * @param pattern The form's path, with or without a leading slash.
 * @param options `formMethod` and `names`.
 * @returns The two routes, by name.
 */
export function form<
  const P extends string,
  const FM extends string = "POST",
  const N extends { index?: string; action?: string } = Record<never, never>,
>(
  pattern: P,
  options: FormOptions<FM, N> = {},
): FormRoutes<JoinPattern<"", P>, FM, N> {
  const path = joinPatterns("", pattern);
  const index = options.names?.index ?? "index";
  const action = options.names?.action ?? "action";
  if (index === action) {
    throw new TypeError(
      `form(): both routes are named "${index}"; check "names"`,
    );
  }
  return {
    [index]: new Route("GET", path),
    [action]: new Route(options.formMethod ?? "POST", path),
  } as FormRoutes<JoinPattern<"", P>, FM, N>;
}
