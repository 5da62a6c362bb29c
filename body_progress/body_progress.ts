/**
 * What a middleware that peeked at a request body before the form parser
 * (`methodOverride()` reads a copy of its first 64 KiB) saw of it when the
 * client stalled, so that the parser's `idleTimeout` and `bodyTimeout` count
 * from when the client really went quiet or the wait began, and not from
 * when the parser began.
 * Without it, a client that stalls gets its 408 only after the peek's own
 * wait plus the whole idle timeout. A room of its own below its users
 * (`methodOverride()` in the router, the form parser, `parseJson`,
 * `bodyLimit()`), so the router does not import from `form_data/` above it.
 * Internal: not a public export of the package.
 *
 * @module
 */

/** What a peek saw of a body that stalled while it waited. */
export interface BodyProgress {
  /** Bytes the peek received (the parser gets them again, at once). */
  bytes: number;
  /** When the peek began waiting for the body (`performance.now()`). */
  startedAt: number;
  /** When the last of those bytes arrived, or `startedAt` when none did. */
  lastDataAt: number;
}

// A symbol-keyed property on the request, as `body_size.ts` does for
// responses: cheaper than a WeakMap entry.
const PROGRESS: unique symbol = Symbol("fetchkit.bodyProgress");

type WithProgress = Request & { [PROGRESS]?: BodyProgress };

// Whether any peek ever ran: a symbol the object lacks costs Bun about
// 120 ns to look up on a request, so apps without one never look.
let noted = false;

/** Records what a peek saw of `request`'s body. */
export function noteBodyProgress(
  request: Request,
  progress: BodyProgress,
): void {
  noted = true;
  (request as WithProgress)[PROGRESS] = progress;
}

/** What a peek saw of `request`'s body, if one ran. */
export function bodyProgress(request: Request): BodyProgress | undefined {
  return noted ? (request as WithProgress)[PROGRESS] : undefined;
}
