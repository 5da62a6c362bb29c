/**
 * Validates a parsed form with any schema library that implements
 * [Standard Schema](https://standardschema.dev) v1 (zod, valibot, arktype,
 * ...): {@linkcode parseForm} turns the form's names into an object, runs the
 * schema on it, and gives either the schema's typed output or the errors keyed
 * by field, ready to show beside each field when the form is rendered again.
 *
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 * import { parseForm } from "@fetchkit/toolkit/form-validation";
 * import * as z from "zod";
 *
 * const Signup = z.object({
 *   email: z.email(),
 *   age: z.coerce.number().int().min(13),
 * });
 *
 * const router = createRouter({ middleware: [formData()] });
 * router.post("/signup", async (context) => {
 *   const result = await parseForm(context.get(FormData), Signup);
 *   if (!result.success) {
 *     return Response.json(result.fieldErrors, { status: 422 });
 *   }
 *   const { email, age } = result.value; // string, number
 *   return new Response(`${email} is ${age}`);
 * });
 * ```
 *
 * ## From names to an object
 *
 * - A name sent once gives its value: a string, or a `File`. A name sent more
 *   than once gives an array of its values, in order (checkboxes, multiple
 *   selects).
 * - `name[]` always gives an array, even with one value.
 * - `a.b` gives `{ a: { b } }`; `a[0].b`, `a[1].b` give `{ a: [{ b }, { b }] }`.
 *   An index runs from 0 to 1000 and is written without leading zeros;
 *   indexes that are skipped leave holes (`undefined`) in the array.
 * - A form may leave at most 1000 holes, counted across all its arrays
 *   (`a[5]` alone leaves 5; a later `a[2]` fills one). The field that would
 *   leave more is refused, so a form's cost stays linear in its size: with
 *   no bound, 1,000 fields `orders[i].lines[1000].sku` (38 KB) made a
 *   million holes, which a schema reports one by one (seconds of CPU and
 *   gigabytes of memory per request).
 * - A name is at most 1000 characters long; a longer one is refused before
 *   it is used as a key (V8 hashes strings over 16,383 characters by their
 *   length alone, so long names of one length would all collide).
 * - A file input left empty (a `File` named `""` with no content, which is
 *   what browsers send) is left out, as if absent.
 * - Strings stay strings: coercion is the schema's job
 *   (`z.coerce.number()`, `v.pipe(v.string(), v.toNumber())`).
 *
 * Names that cannot be placed never throw and never reach a prototype: a
 * `__proto__`, `constructor` or
 * `prototype` segment, an index above 1000, more than 16 segments, more
 * than 1000 holes, a name over 1000 characters, a
 * malformed bracket (`a[`, `a]`, `a[x]`, `a[].b`), or a name used both as a
 * value and as an object (`a` and `a.b`). Each gives `success: false` with a
 * `formErrors` entry naming the field and why; the name is left out and the
 * schema still runs on the rest, so every error shows at once. Brackets hold
 * indexes only: the PHP and Rails style `user[name]` is refused; write
 * `user.name`.
 *
 * ## Errors
 *
 * `fieldErrors` is keyed by the issue's path written as a field name, in the
 * same syntax as the inputs (`email`, `address.city`, `items[1].qty`), so a
 * view looks up `fieldErrors["address.city"]` beside
 * `<input name="address.city">`. Errors about a whole `tags[]` list are under
 * `tags`, and about one of its values under `tags[1]`. Issues without a path
 * go to `formErrors`. `issues` holds the schema's issues unchanged; refused
 * names are only in `formErrors`. `values` holds everything that was sent,
 * passwords included: leave those out when you refill a form.
 *
 * The Standard Schema types ({@linkcode StandardSchemaV1}) are included, so
 * the toolkit depends on no schema library; bring the one you use.
 *
 * Async schemas (async refinements, such as a database lookup) are awaited.
 *
 * @module
 */
import type { StandardSchemaV1 } from "./standard_schema.ts";
export type { StandardSchemaV1 } from "./standard_schema.ts";
import { buildValues } from "./_names.ts";
import { groupIssues } from "./issues.ts";

/**
 * What {@linkcode parseForm} gives: the schema's output, or the errors and the
 * submitted values to render the form again. Narrow it on `success`.
 *
 * @example
 * ```ts
 * import { parseForm, type ParseFormResult } from "@fetchkit/toolkit/form-validation";
 * import * as z from "zod";
 *
 * const result: ParseFormResult<{ title: string }> = await parseForm(
 *   new URLSearchParams("title="),
 *   z.object({ title: z.string().min(1, "Title is required") }),
 * );
 * if (!result.success) {
 *   console.log(result.fieldErrors.title); // ["Title is required"]
 * }
 * ```
 */
export type ParseFormResult<T> =
  | {
    /** The schema accepted the form. */
    success: true;
    /** The schema's output: coerced, transformed, typed. */
    value: T;
  }
  | {
    /** The schema refused the form, or a field name was refused. */
    success: false;
    /** The schema's issues, as it gave them. */
    issues: readonly StandardSchemaV1.Issue[];
    /**
     * Messages by field name, in the inputs' own syntax: `email`,
     * `address.city`, `items[1].qty`.
     */
    fieldErrors: Record<string, string[]>;
    /** Messages that belong to no one field, and refused field names. */
    formErrors: string[];
    /** What was submitted, as the object the schema saw: to refill the form. */
    values: Record<string, unknown>;
  };

/**
 * Turns a form's names into an object (see the module docs for the rules),
 * validates it with a Standard Schema, and gives the typed output or the
 * errors by field. Never throws for anything the client sent; a schema that
 * throws is a bug in the schema, and its error propagates.
 *
 * @param input The parsed form: `context.get(FormData)`, `await
 *   request.formData()`, or `URLSearchParams` (a query string).
 * @param schema Any Standard Schema v1: zod, valibot, arktype, ...
 * @returns `{ success: true, value }`, or `{ success: false, issues,
 *   fieldErrors, formErrors, values }`.
 *
 * @example
 * ```ts
 * import { parseForm } from "@fetchkit/toolkit/form-validation";
 * import * as z from "zod";
 *
 * const Order = z.object({
 *   email: z.email(),
 *   items: z.array(z.object({ sku: z.string(), qty: z.coerce.number().int().min(1) })),
 * });
 * const form = new FormData();
 * form.set("email", "ada@example.com");
 * form.set("items[0].sku", "A-1");
 * form.set("items[0].qty", "2");
 * form.set("items[1].sku", "B-2");
 * form.set("items[1].qty", "0");
 *
 * const result = await parseForm(form, Order);
 * if (result.success) {
 *   result.value.items[0].qty; // a number
 * } else {
 *   console.log(result.fieldErrors["items[1].qty"]); // ["Too small: expected number to be >=1"]
 * }
 * ```
 */
export async function parseForm<S extends StandardSchemaV1>(
  input: FormData | URLSearchParams,
  schema: S,
): Promise<ParseFormResult<StandardSchemaV1.InferOutput<S>>> {
  const { values, errors } = buildValues(input);
  let result = schema["~standard"].validate(values);
  if (result instanceof Promise) result = await result;
  if (result.issues === undefined && errors === undefined) {
    return {
      success: true,
      value: (result as StandardSchemaV1.SuccessResult<
        StandardSchemaV1.InferOutput<S>
      >).value,
    };
  }
  const issues = result.issues ?? [];
  const { fieldErrors, formErrors } = groupIssues(issues, errors);
  return { success: false, issues, fieldErrors, formErrors, values };
}
