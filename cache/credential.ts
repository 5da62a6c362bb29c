/**
 * The mark a request carries once a credential was read for it: the
 * session, a cookie-borne token, `Authorization`. Middleware that read
 * credentials (`session()`, `jwt()`, `bearerAuth()`, `basicAuth()`) set it;
 * `cache()` checks it before storing, whatever the order of the two in the
 * chain, so that a page built for one visitor never reaches another. Not a
 * public export: a shared seam below its users.
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";

/** What `context.set` takes: just enough of a `RequestContext`. */
type Marked = Pick<RequestContext, "get" | "set">;

/**
 * Under this key: `true`, or the probes that tell whether a lazily read
 * credential (a session loaded but perhaps never looked at) was read.
 */
const CREDENTIAL: unique symbol = Symbol("credential read");

type Mark = true | (() => boolean)[];

/**
 * Marks `context` as answered with a credential. With `probe`, the mark
 * holds only if `probe()` is true when the answer is checked (a session is
 * loaded for every request, but only a handler that reads it makes the
 * answer personal).
 */
export function markCredential(context: Marked, probe?: () => boolean): void {
  const mark = context.get(CREDENTIAL) as Mark | undefined;
  if (mark === true) return;
  if (probe === undefined) {
    context.set(CREDENTIAL, true);
  } else if (mark === undefined) {
    context.set(CREDENTIAL, [probe]);
  } else {
    mark.push(probe);
  }
}

/** Whether a credential was read for `context`'s answer (so far). */
export function credentialRead(context: Pick<RequestContext, "get">): boolean {
  const mark = context.get(CREDENTIAL) as Mark | undefined;
  if (mark === undefined) return false;
  if (mark === true) return true;
  for (const probe of mark) if (probe()) return true;
  return false;
}

/**
 * Whether a `Cache-Control` value says the application chose: `public`
 * (shared caches may keep it, credential or not), `private` or `no-store`.
 */
export function cacheControlChosen(value: string | null): boolean {
  return value !== null &&
    /(?:^|,)\s*(?:public|private|no-store)\b/i.test(value);
}

/**
 * Marks the answer to a request authenticated by a cookie that no cache
 * keys on (a cookie-borne token) `Cache-Control: no-store`, as `session()`
 * marks a page built from the session: shared caches downstream (a CDN)
 * keep it out, and so does the browser's cache (no signed-in page from the
 * Back button after signing out). An answer that already says `public`,
 * `private` or `no-store` keeps the application's choice.
 */
export function keepPersonal(headers: Headers): void {
  if (!cacheControlChosen(headers.get("Cache-Control"))) {
    headers.set("Cache-Control", "no-store");
  }
}
