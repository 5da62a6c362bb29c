/**
 * Reads form fields: a missing field is an empty string.
 *
 * @module
 */
import type { RequestContext } from "@fetchkit/toolkit/fetch-router";

/** The text of field `name` in the parsed form; `""` when missing or a file. */
export function field(context: RequestContext, name: string): string {
  // formData() always sets a FormData (an empty one for a bodyless request).
  const value = context.get(FormData).get(name);
  return typeof value === "string" ? value : "";
}
