/**
 * The two forms of one parsed form, each made from the other on demand:
 * a `FormData` and a {@linkcode FormFieldRecord}.
 *
 * @module
 */

import type { FormFieldRecord } from "./fields.ts";
import {
  addField as add,
  type FieldPairs,
  formFromPairs,
} from "./_urlencoded.ts";

export { formFromPairs };

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
