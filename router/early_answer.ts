/**
 * Early answers: a middleware that can answer some requests from what it
 * holds in memory, synchronously and without the context (`cache()` on a
 * memory store: a fresh hit), offers a function for it under
 * {@linkcode EARLY_ANSWER}. When such a middleware is the first of a
 * route's chain and the router has no middleware of its own, nothing can
 * run before it: the router asks it as soon as the request is matched,
 * before the context and the chain are built, and sends what it gives.
 * When it gives nothing (a miss, a method or header it does not answer
 * from memory) the request takes the ordinary way, through the same
 * middleware, so the documented order (router, mount, controller, route)
 * holds either way.
 *
 * @module
 */

import type { ServeInfo } from "./remote_addr.ts";
import type { Middleware } from "./types.ts";

/** Where a middleware keeps its early answer (see the module docs). */
export const EARLY_ANSWER: unique symbol = Symbol.for(
  "fetchkit.router.earlyAnswer",
) as never;

/**
 * Answers `request` (routed for `method`) before its context is built, or
 * gives `undefined` for the ordinary way. It must not throw, change the
 * request or read its body, and it answers `HEAD` without a body. `info`
 * is what the server passed (for `requestHeaders()`).
 */
export type EarlyAnswer = (
  request: Request,
  method: string,
  info: ServeInfo | undefined,
) => Response | undefined;

/** The early answer of a route whose chain is `middleware`, if it has one. */
export function earlyAnswerOf(
  middleware: readonly Middleware[],
): EarlyAnswer | undefined {
  const first = middleware[0] as
    | { [EARLY_ANSWER]?: unknown }
    | undefined;
  const early = first?.[EARLY_ANSWER];
  return typeof early === "function" ? early as EarlyAnswer : undefined;
}

/** Gives `middleware` an early answer (see the module docs). */
export function offerEarlyAnswer(
  middleware: Middleware,
  early: EarlyAnswer,
): void {
  Object.defineProperty(middleware, EARLY_ANSWER, { value: early });
}

/**
 * Asks `early` for `request`'s answer: `undefined` for the ordinary way,
 * also when it threw (the middleware, run on the ordinary way, then meets
 * the error boundary as any other would). A `HEAD` answer with a body is
 * not taken.
 */
export function answerEarly(
  early: EarlyAnswer,
  request: Request,
  method: string,
  info: ServeInfo | undefined,
): Response | undefined {
  try {
    const answer = early(request, method, info);
    if (answer !== undefined && method === "HEAD" && answer.body !== null) {
      return undefined;
    }
    return answer;
  } catch {
    return undefined;
  }
}
