import type { RequestContext } from "./context.ts";
import type { Middleware } from "./types.ts";

/** A composed chain or a bare handler: answers now or with a promise. */
export type Terminal = (
  context: RequestContext,
) => Response | Promise<Response>;

/**
 * Composes `middleware` around `terminal` once, when a route is added, so
 * a request pays only for the `next` closure of each middleware it runs.
 * A middleware that returns nothing continues the chain; `next()` called
 * twice throws; a result that is not a `Response` is a `TypeError`.
 */
export function compose(
  middleware: readonly Middleware[],
  terminal: Terminal,
): Terminal {
  let run = terminal;
  for (let index = middleware.length - 1; index >= 0; index--) {
    // Only the terminal's result needs checking: a link's is checked already.
    run = link(middleware[index], index, run, index < middleware.length - 1);
  }
  return run;
}

function link(
  middleware: Middleware,
  index: number,
  rest: Terminal,
  checked: boolean,
): Terminal {
  return (context) => {
    let downstream: Promise<Response> | undefined;
    const next = (resume?: typeof RESUME): Promise<Response> => {
      if (downstream !== undefined) {
        if (resume === RESUME) return downstream;
        throw new Error(
          `next() called twice in middleware #${index} (${
            middleware.name || "anonymous"
          })`,
        );
      }
      try {
        const result = checked ? rest(context) : settle(rest(context));
        downstream = result instanceof Response
          ? Promise.resolve(result)
          : result;
      } catch (error) {
        downstream = Promise.reject(error);
      }
      return downstream;
    };
    const result = middleware(context, next);
    if (result instanceof Response) return result;
    if (result === undefined) return downstream ?? next();
    if (isThenable(result)) {
      return later(result, next, index, middleware);
    }
    throw notAResponse(index, middleware, result);
  };
}

/** A middleware that answered with a promise: wait for it, then check it. */
async function later(
  result: PromiseLike<Response | void>,
  next: (resume: typeof RESUME) => Promise<Response>,
  index: number,
  middleware: Middleware,
): Promise<Response> {
  const value = await result;
  if (value instanceof Response) return value;
  if (value !== undefined) throw notAResponse(index, middleware, value);
  // `return await` takes one tick where returning the promise takes three.
  return await next(RESUME);
}

/**
 * Passed by the chain itself to `next` to get the downstream response
 * whether or not the middleware called `next()` (user code cannot pass it).
 */
const RESUME: unique symbol = Symbol("resume");

function notAResponse(
  index: number,
  middleware: Middleware,
  value: unknown,
): TypeError {
  return new TypeError(
    `Middleware #${index} (${
      middleware.name || "anonymous"
    }) returned ${typeof value}; return a Response, the result of next(), or nothing`,
  );
}

/** Whether a handler's result is a promise (or another thenable). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" &&
    typeof (value as { then?: unknown }).then === "function";
}

/**
 * A handler's result, checked: a `Response` as is, a promise checked when
 * it settles; anything else throws.
 */
export function settle(result: unknown): Response | Promise<Response> {
  if (result instanceof Response) return result;
  if (isThenable(result)) {
    return Promise.resolve(result).then(checkResponse);
  }
  return checkResponse(result);
}

/** A handler must answer with a `Response`; anything else is a bug to report. */
export function checkResponse(result: unknown): Response {
  if (result instanceof Response) return result;
  throw new TypeError(
    `A handler returned ${
      result === null ? "null" : typeof result
    }, not a Response`,
  );
}
