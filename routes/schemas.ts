import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
import type { ParamsOf } from "./params.ts";

/**
 * What a route takes and gives, as Standard Schemas (zod, valibot,
 * arktype, ...): `params` (path parameters), `query` (the query string),
 * `body` (JSON for JSON requests, a form for form requests) and `response`
 * (what a successful answer holds, for the typed client and OpenAPI).
 *
 * @example
 * ```ts
 * import { route, type RouteSchemas } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const create = {
 *   body: z.object({ title: z.string() }),
 *   response: z.object({ id: z.number(), title: z.string() }),
 * } satisfies RouteSchemas;
 * const routes = route({ create: { method: "POST", pattern: "/notes", ...create } });
 * ```
 */
export interface RouteSchemas {
  /** Path parameters: the schema sees `context.params` (strings). */
  readonly params?: StandardSchemaV1;
  /** The query string, by `parseQuery`'s rules (repeated names give arrays, `a.b` nests). */
  readonly query?: StandardSchemaV1;
  /** The body: JSON for JSON requests, a form (by `parseForm`'s rules) for form requests. */
  readonly body?: StandardSchemaV1;
  /** What a successful answer holds (not checked on the server). */
  readonly response?: StandardSchemaV1;
}

/** The schema keys of a route definition, in the order they are checked. */
export const SCHEMA_KEYS = ["params", "query", "body", "response"] as const;

/** Picks the schemas out of a route definition; `undefined` when it has none. */
export function pickSchemas(def: object): RouteSchemas | undefined {
  let out: Record<string, StandardSchemaV1> | undefined;
  for (const key of SCHEMA_KEYS) {
    const schema = (def as Record<string, unknown>)[key];
    if (schema === undefined) continue;
    if (
      (typeof schema !== "object" && typeof schema !== "function") ||
      schema === null ||
      typeof (schema as Partial<StandardSchemaV1>)["~standard"]?.validate !==
        "function"
    ) {
      throw new TypeError(
        `Route schema "${key}" must be a Standard Schema (zod, valibot, arktype, ...): an object with "~standard".validate`,
      );
    }
    (out ??= {})[key] = schema as StandardSchemaV1;
  }
  return out;
}

/**
 * The output type of schema `S` when it is one, else `D`. Read by indexed
 * access, as `StandardSchemaV1.InferOutput` does: matching `S` against the
 * interface with `infer` costs more type instantiations per route.
 *
 * @example
 * ```ts
 * import type { SchemaOutputOr } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const Id = z.coerce.number();
 * const id: SchemaOutputOr<typeof Id, string> = 1;
 * ```
 */
export type SchemaOutputOr<S, D> = S extends StandardSchemaV1
  ? NonNullable<S["~standard"]["types"]>["output"]
  : D;

/**
 * What a validated handler reads in `context.input`: each part is the
 * schema's output; without a schema, `params` is the matched parameters
 * (strings) and `query` and `body` are `undefined` (not read).
 *
 * @example
 * ```ts
 * import type { RouteInput } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const schemas = { body: z.object({ title: z.string() }) };
 * const input: RouteInput<typeof schemas, "/notes/:id"> = {
 *   params: { id: "1" },
 *   query: undefined,
 *   body: { title: "Hi" },
 * };
 * ```
 */
export type RouteInput<S, P extends string> = {
  /** Path parameters: the `params` schema's output, or the matched strings. */
  params: S extends { readonly params: infer X }
    ? SchemaOutputOr<X, ParamsOf<P>>
    : ParamsOf<P>;
  /** The query: the `query` schema's output, or `undefined`. */
  query: S extends { readonly query: infer X } ? SchemaOutputOr<X, undefined>
    : undefined;
  /** The body: the `body` schema's output, or `undefined`. */
  body: S extends { readonly body: infer X } ? SchemaOutputOr<X, undefined>
    : undefined;
};
