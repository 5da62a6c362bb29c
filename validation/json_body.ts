/**
 * A JSON body read, parsed, checked and validated in one step, for
 * `parseJson` and for the router's routes with a `body` schema (which load
 * it on their first request): the `Content-Type` given once by the
 * caller, the rest inside the body read's own callback, so that a body
 * already there (Bun, Node under `serve()`) is validated and handed on in
 * the same call, and one that is not costs the read's one promise.
 *
 * Not exported by `deno.json`: `parseJson` (`./validation`) is the public
 * face.
 *
 * @module
 */

import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
import { groupIssues } from "../form_validation/issues.ts";
import { decodeUtf8, readBytesThen, type ResolvedLimits } from "./read_body.ts";
import { checkJsonContentType, parseJsonText } from "./_json.ts";
import { type Validate, validatorOf } from "./_valibot.ts";

export { DEFAULT_MAX_DEPTH } from "./_json.ts";
export { resolveBodyLimits } from "./read_body.ts";
export { validatorOf } from "./_valibot.ts";

/** What a JSON body's validation gives: the value, or the errors by field. */
export type JsonResult<T> =
  | { success: true; value: T }
  | {
    success: false;
    issues: readonly StandardSchemaV1.Issue[];
    fieldErrors: Record<string, string[]>;
    formErrors: string[];
  };

/**
 * Reads `request`'s JSON body within `limits`, parses it (at most
 * `maxDepth` deep, no `__proto__`/`constructor`/`prototype` key, no lone
 * surrogate), validates it with `schema` and hands the result to `done`:
 * synchronously when the bytes are there and the schema is synchronous.
 * `type` is the request's `Content-Type` (415 unless JSON in UTF-8). It may
 * throw (a used body, a refused body) or give a rejected promise: callers
 * take both. `validate` is `schema`'s validator (`validatorOf(schema)`,
 * compiled for a valibot schema), for a caller that looked it up once.
 */
export function jsonBodyThen<S extends StandardSchemaV1, T>(
  request: Request,
  type: string | null,
  schema: S,
  limits: ResolvedLimits,
  maxDepth: number,
  done: (
    result: JsonResult<StandardSchemaV1.InferOutput<S>>,
  ) => T | Promise<T>,
  validate: Validate = validatorOf(schema),
): T | Promise<T> {
  try {
    checkJsonContentType(type);
  } catch (error) {
    return refuseType(request, error);
  }
  return readBytesThen(request, limits, (bytes) => {
    const result = validate(
      parseJsonText(decodeUtf8(bytes), maxDepth),
    ) as
      | StandardSchemaV1.Result<StandardSchemaV1.InferOutput<S>>
      | Promise<StandardSchemaV1.Result<StandardSchemaV1.InferOutput<S>>>;
    return result instanceof Promise
      ? result.then((settled) => done(toResult(settled)))
      : done(toResult(result));
  });
}

async function refuseType(request: Request, error: unknown): Promise<never> {
  // Nothing of the body is wanted: let the connection drop it.
  await request.body?.cancel().catch(() => {});
  throw error;
}

/** A schema's result as a validation result (the issues grouped by field). */
export function toResult<T>(
  result: StandardSchemaV1.Result<T>,
): JsonResult<T> {
  if (result.issues === undefined) {
    return { success: true, value: result.value };
  }
  const issues = result.issues;
  const { fieldErrors, formErrors } = groupIssues(issues, undefined);
  return { success: false, issues, fieldErrors, formErrors };
}
