/**
 * A compiled JSON Schema validator (Ajv's `compile`, or any function of the
 * same shape) as a Standard Schema, so that a route's `body` schema or
 * `parseJson` can take the validator a Fastify app already has. No JSON
 * Schema library is a dependency: the caller compiles.
 *
 * @module
 */

import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";

/** One error of a compiled validator, as Ajv reports it in `errors`. */
export interface JsonSchemaError {
  /** Where, as a JSON Pointer (`/items/0/qty`); `""` for the value itself. */
  instancePath?: string;
  /** The failed keyword (`required`, `minimum`, ...). */
  keyword?: string;
  /** The keyword's details; `required` names `missingProperty`. */
  params?: Record<string, unknown>;
  /** What was wrong (`must be >= 1`). */
  message?: string;
}

/**
 * A compiled validator: `true` when the value is valid (it may change the
 * value in place, as Ajv's `coerceTypes`, `useDefaults` and
 * `removeAdditional` do), else `false` with the reasons in `errors`. A
 * schema with `$async` gives a promise instead, which rejects with an
 * error holding `errors`.
 */
export interface CompiledJsonSchema<T> {
  (value: unknown): value is T;
  /** The last call's errors, or `null`/`undefined` when it passed. */
  errors?: readonly JsonSchemaError[] | null;
}

/** An async compiled validator (a schema with `$async: true`). */
export interface CompiledAsyncJsonSchema<T> {
  (value: unknown): Promise<T>;
  /** Unused for an async schema: the rejection holds the errors. */
  errors?: readonly JsonSchemaError[] | null;
}

/** Options of {@linkcode fromJsonSchema}. */
export interface FromJsonSchemaOptions {
  /** The Standard Schema `vendor`; `"ajv"` unless given. */
  vendor?: string;
}

/**
 * Wraps a compiled JSON Schema validator as a Standard Schema: the value
 * itself on success (after any change the validator made in place), else
 * one issue per error, with its path split from the error's JSON Pointer
 * (array indexes as numbers, `~1` and `~0` unescaped) and, for a missing
 * required property, the property's name added, so issues group by field as
 * other Standard Schema libraries' do. Compile once, at start-up; the
 * wrapper adds one call and one object to a valid request.
 *
 * @example A route's body checked by Ajv
 * ```ts
 * import { Ajv } from "ajv";
 * import { fromJsonSchema, parseJson } from "@fetchkit/toolkit/validation";
 *
 * const ajv = new Ajv({ coerceTypes: "array", useDefaults: true });
 * const Order = fromJsonSchema(ajv.compile<{ sku: string; qty: number }>({
 *   type: "object",
 *   required: ["sku", "qty"],
 *   properties: {
 *     sku: { type: "string", minLength: 1 },
 *     qty: { type: "integer", minimum: 1 },
 *   },
 * }));
 * const post = (body: string) =>
 *   new Request("http://localhost/orders", {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body,
 *   });
 * const good = await parseJson(post('{"sku": "A-1", "qty": "2"}'), Order);
 * console.log(good.success && good.value.qty); // → 2
 * const bad = await parseJson(post('{"qty": 0}'), Order);
 * console.log(!bad.success && bad.fieldErrors.sku); // → [ "must have required property 'sku'" ]
 * ```
 */
export function fromJsonSchema<T>(
  validate: CompiledJsonSchema<T> | CompiledAsyncJsonSchema<T>,
  options?: FromJsonSchemaOptions,
): StandardSchemaV1<unknown, T> {
  const vendor = options?.vendor ?? "ajv";
  return {
    "~standard": {
      version: 1,
      vendor,
      validate(value: unknown) {
        const passed: unknown = validate(value);
        if (passed === true) return { value: value as T };
        if (passed instanceof Promise) {
          return passed.then(
            (output: T) => ({ value: output }),
            (error: unknown) => {
              const errors = (error as { errors?: unknown } | null)?.errors;
              if (!Array.isArray(errors)) throw error;
              return { issues: errors.map(toIssue) };
            },
          );
        }
        return { issues: (validate.errors ?? [GENERIC]).map(toIssue) };
      },
    },
  };
}

const GENERIC: JsonSchemaError = { message: "is invalid" };

function toIssue(error: JsonSchemaError): StandardSchemaV1.Issue {
  const path: PropertyKey[] = [];
  const pointer = error.instancePath ?? "";
  if (pointer !== "") {
    for (const part of pointer.slice(1).split("/")) {
      const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
      path.push(/^(?:0|[1-9][0-9]{0,8})$/.test(key) ? Number(key) : key);
    }
  }
  const missing = error.keyword === "required"
    ? error.params?.missingProperty
    : undefined;
  if (typeof missing === "string") path.push(missing);
  return {
    message: error.message ?? `is invalid (${error.keyword ?? "schema"})`,
    path,
  };
}
