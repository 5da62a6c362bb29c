/**
 * Changing the headers of a response that middleware did not make. Not a
 * public export of the package.
 *
 * @module
 */

import { NativeResponse } from "./native.ts";

/**
 * Runs `edit` on a response's headers, copying the response first when its
 * headers are immutable (`Response.redirect()`, `fetch()` responses).
 * Returns the response to send: the same one, or the copy.
 */
export function editHeaders(
  response: Response,
  edit: (headers: Headers) => void,
): Response {
  try {
    edit(response.headers);
    return response;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const copy = new NativeResponse(response.body, response);
    edit(copy.headers);
    return copy;
  }
}
