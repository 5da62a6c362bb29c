/**
 * A request timeout as router middleware: `timeout({ ms: 10_000 })`.
 *
 * `Deno.serve` has no time limit for a handler: one that never resolves (a
 * lost promise, a stuck upstream) keeps its client waiting for as long as
 * the connection lives. This middleware answers `503 Service Unavailable`
 * with a short text once `ms` milliseconds pass without a response, like
 * Hono's `timeout()` (which answers 504) and nginx's `proxy_read_timeout`.
 * 503 is used because the server itself, not an upstream gateway, failed to
 * answer in time.
 *
 * The late handler is not stopped (JavaScript cannot cancel a promise); its
 * eventual result or error is dropped. Put `timeout()` after `logger()` so
 * the 503 is logged, and before middleware that may wait, such as
 * `formData()` (which has its own `idleTimeout` and `bodyTimeout` for slow
 * bodies) and `session()`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { timeout } from "@fetchkit/toolkit/timeout-middleware";
 *
 * const router = createRouter({ middleware: [timeout({ ms: 10_000 })] });
 * router.get("/", () => new Response("fast enough"));
 * ```
 *
 * @module
 */

import type { Middleware } from "../router/types.ts";

/** Options of {@linkcode timeout}. */
export interface TimeoutOptions {
  /** Milliseconds to wait for the rest of the chain; a positive number. */
  ms: number;
  /**
   * The text of the 503 answer.
   *
   * @default {"Service Unavailable: the request took longer than <ms> ms."}
   */
  message?: string;
}

/**
 * Creates middleware that answers `503` when the rest of the chain takes
 * longer than `ms` milliseconds.
 *
 * @example
 * ```ts
 * import { timeout } from "@fetchkit/toolkit/timeout-middleware";
 *
 * const middleware = timeout({ ms: 5_000, message: "Try again later." });
 * ```
 *
 * @param options The time limit and the answer's text.
 * @returns The middleware.
 * @throws {TypeError} When `ms` is not a positive finite number.
 */
export function timeout(options: TimeoutOptions): Middleware {
  const { ms } = options ?? {};
  if (typeof ms !== "number" || !(ms > 0) || !Number.isFinite(ms)) {
    throw new TypeError(
      `timeout() needs ms: a positive number of milliseconds, got ${
        String(ms)
      }`,
    );
  }
  const message = options.message ??
    `Service Unavailable: the request took longer than ${ms} ms.`;
  return async (_context, next) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Response>((resolve) => {
      timer = setTimeout(() =>
        resolve(
          new Response(message, {
            status: 503,
            headers: {
              "Content-Type": "text/plain; charset=utf-8",
              "Cache-Control": "no-store",
            },
          }),
        ), ms);
    });
    const chain = next();
    try {
      return await Promise.race([chain, late]);
    } finally {
      clearTimeout(timer);
      // A chain that fails after the 503 was sent has no one to tell.
      chain.catch(() => {});
    }
  };
}
