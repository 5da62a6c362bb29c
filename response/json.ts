/**
 * JSON responses.
 *
 * @module
 */

import { typedResponse } from "./_typed.ts";

/**
 * Creates a response whose body is `JSON.stringify(data)`, with
 * `Content-Type: application/json; charset=utf-8` (unless `init.headers`
 * already names a Content-Type). `Deno.serve` adds the `Content-Length`.
 *
 * @example
 * ```ts
 * import { createJsonResponse } from "@fetchkit/toolkit/response/json";
 *
 * const response = createJsonResponse({ id: 1 }, { status: 201 });
 * response.status; // 201
 * await response.json(); // { id: 1 }
 * ```
 *
 * @param data Any value `JSON.stringify` accepts.
 * @param init Status, status text and headers of the response.
 * @returns The response.
 * @throws {TypeError} When `data` has no JSON form (`undefined`, a
 * function) or cannot be serialized (a cycle, a bigint).
 */
export function createJsonResponse(
  data: unknown,
  init?: ResponseInit,
): Response {
  const body = JSON.stringify(data);
  if (body === undefined) {
    throw new TypeError(`Cannot send ${typeof data} as JSON`);
  }
  return typedResponse(body, init, "application/json; charset=utf-8");
}
