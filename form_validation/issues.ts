/**
 * A schema's issues grouped by field, keyed in the same syntax as input names.
 *
 * @module
 */

import type { StandardSchemaV1 } from "./standard_schema.ts";

/** Issues grouped by field name, and those that belong to no field. */
export interface GroupedIssues {
  fieldErrors: Record<string, string[]>;
  formErrors: string[];
}

/**
 * An issue's path written as a field name: keys joined with `.`, numbers as
 * `[n]` (`items[1].qty`); `undefined` for an issue about the whole form.
 */
export function issueKey(
  path: StandardSchemaV1.Issue["path"],
): string | undefined {
  if (path === undefined || path.length === 0) return undefined;
  let name = "";
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const key = typeof segment === "object" ? segment.key : segment;
    if (typeof key === "number") {
      name += `[${key}]`;
    } else {
      const text = typeof key === "symbol" ? key.description ?? "" : key;
      name += i === 0 ? text : "." + text;
    }
  }
  return name;
}

/** Groups `issues` by field; `nameErrors` (refused field names) lead `formErrors`. */
export function groupIssues(
  issues: readonly StandardSchemaV1.Issue[],
  nameErrors: string[] | undefined,
): GroupedIssues {
  // Null prototype: a schema's path may hold any key, "__proto__" included.
  const fieldErrors: Record<string, string[]> = Object.create(null);
  const formErrors = nameErrors ?? [];
  for (const issue of issues) {
    const key = issueKey(issue.path);
    if (key === undefined) formErrors.push(issue.message);
    else (fieldErrors[key] ??= []).push(issue.message);
  }
  return { fieldErrors, formErrors };
}
