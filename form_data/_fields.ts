/**
 * The two forms of one parsed form, each made from the other on demand:
 * a `FormData` and a {@linkcode FormFieldRecord}.
 *
 * @module
 */

import type { FormFieldRecord, FormFieldValue } from "./fields.ts";
import { type FieldPairs, formFromPairs } from "./_urlencoded.ts";

export { formFromPairs };

/** Adds one value under `name`, by the rules of `FormFieldRecord`. */
function add(
  record: FormFieldRecord,
  name: string,
  value: FormFieldValue,
): void {
  const had = record[name];
  if (had === undefined) {
    // A name such as "tags[]" always holds an array.
    record[name] = name.endsWith("[]") ? [value] : value;
  } else if (Array.isArray(had)) had.push(value);
  else record[name] = [had, value];
}

/** The record of a urlencoded form's pairs. */
export function recordFromPairs(pairs: FieldPairs): FormFieldRecord {
  const record: FormFieldRecord = Object.create(null);
  for (let i = 0; i < pairs.length; i += 2) {
    add(record, pairs[i]!, pairs[i + 1]!);
  }
  return record;
}

/** The record of a `FormData`. */
export function recordFromForm(form: FormData): FormFieldRecord {
  const record: FormFieldRecord = Object.create(null);
  form.forEach((value, name) => add(record, name, value));
  return record;
}
