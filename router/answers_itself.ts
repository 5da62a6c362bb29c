/**
 * The mark of a middleware of this package that waits before it calls
 * `next()` (`formData()`, for the body) and settles its own promise: the
 * router chain's link passes it a third argument, `answer`, and a promise
 * it returns must settle to what `answer(value)` returns for the value it
 * would have settled to (nothing after `next()`, a `Response`, or a
 * promise that rejects with what went wrong). The link then hands that
 * promise on as its own, without waiting for it (a promise and a turn a
 * request); an answer given at once is taken as any middleware's.
 *
 * Shared by the chain (`_chain.ts`) and the middleware that use it; not a
 * public export of the package.
 *
 * @module
 */

/** The property, `true` on a middleware that takes `answer`. */
export const ANSWERS: symbol = Symbol.for("fetchkit.router.answersItself");

/** The third argument of a middleware marked with {@linkcode ANSWERS}. */
export type Answer = (
  value: Response | void | PromiseLike<Response | void>,
) => Response | Promise<Response>;
