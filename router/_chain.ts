import type { RequestContext } from "./context.ts";
import type { Middleware } from "./types.ts";

/** The end of a chain: a handler, or the router's dispatch. */
export type Terminal = (
  context: RequestContext,
) => Response | Promise<Response>;

/**
 * Runs `middleware` in order around `terminal`. A middleware that returns
 * nothing continues the chain; `next()` called twice throws.
 */
export function runChain(
  middleware: readonly Middleware[],
  context: RequestContext,
  terminal: Terminal,
): Promise<Response> {
  return step(middleware, 0, context, terminal);
}

async function step(
  middleware: readonly Middleware[],
  index: number,
  context: RequestContext,
  terminal: Terminal,
): Promise<Response> {
  if (index === middleware.length) {
    return checkResponse(await terminal(context));
  }
  let downstream: Promise<Response> | undefined;
  const next = (): Promise<Response> => {
    if (downstream !== undefined) {
      throw new Error(
        `next() called twice in middleware #${index} (${
          middleware[index].name || "anonymous"
        })`,
      );
    }
    return downstream = step(middleware, index + 1, context, terminal);
  };
  const result = await middleware[index](context, next);
  if (result instanceof Response) return result;
  if (result !== undefined) {
    throw new TypeError(
      `Middleware #${index} (${
        middleware[index].name || "anonymous"
      }) returned ${typeof result}; return a Response, the result of next(), or nothing`,
    );
  }
  return downstream ?? next();
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
