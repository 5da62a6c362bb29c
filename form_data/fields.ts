/**
 * {@linkcode FormFields}: the form `formData()` parsed, as a plain record of
 * its fields, for handlers that read fields by name and never need a
 * `FormData`.
 *
 * @module
 */

import { ContextKey } from "../router/context_key.ts";

/** One value of a form field: text, or a file (multipart bodies). */
export type FormFieldValue = string | File;

/**
 * The fields of a form by name, what `context.get(FormFields)` gives. It has
 * no prototype, so a field named `__proto__`, `constructor` or `toString` is
 * an ordinary entry and a name the client did not send reads `undefined`.
 *
 * - A name sent once holds its value: a string, or a `File`.
 * - A name sent more than once holds an array of its values, in the order
 *   they were sent (checkboxes, multiple selects).
 * - A name ending in `[]` (`tags[]`) always holds an array, even of one
 *   value; the key keeps the brackets, as sent.
 * - Names are not split: `user.name` and `items[0]` are keys as they are
 *   (`parseForm` from `@fetchkit/toolkit/form-validation` builds nested
 *   objects from them).
 *
 * @example
 * ```ts
 * import type { FormFieldRecord } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const fields: FormFieldRecord = { email: "a@example.com", "tags[]": ["x"] };
 * ```
 */
export interface FormFieldRecord {
  /** The value, or values, sent under `name`; `undefined` when none was. */
  [name: string]: FormFieldValue | FormFieldValue[] | undefined;
}

/**
 * The context key of the form `formData()` parsed, as a
 * {@linkcode FormFieldRecord}: `context.get(FormFields)`. It is the same
 * form as `context.get(FormData)`, and cheaper to get: for a urlencoded
 * body `formData()` builds neither until a handler asks, and then only the
 * one it asks for. `undefined` when `formData()` did not run.
 *
 * @example Read a login form as a record
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData, FormFields } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const router = createRouter();
 * router.post("/login", formData(), ({ get }) => {
 *   const email = get(FormFields)?.email;
 *   return new Response(typeof email === "string" ? `Hello ${email}` : "no email");
 * });
 *
 * const response = await router.fetch(
 *   new Request("http://localhost/login", {
 *     method: "POST",
 *     body: new URLSearchParams({ email: "a@example.com", password: "x" }),
 *   }),
 * );
 * await response.text(); // "Hello a@example.com"
 * ```
 */
export const FormFields: ContextKey<FormFieldRecord | undefined> =
  new ContextKey<FormFieldRecord | undefined>(undefined, "FormFields");
