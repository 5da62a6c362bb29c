/**
 * A request time limit for the fetch router: {@linkcode timeout}.
 *
 * `Deno.serve` has no limit on how long a handler may take: a handler that
 * waits forever on a stuck database keeps its client waiting forever. This
 * middleware answers in time instead (`503` by default, or `504` for a
 * gateway), logs nothing to the client, and lets the late handler finish
 * in the background (its response, if any, is discarded).
 *
 * What it covers: the wait for the response, that is until the chain
 * returns its `Response` (status and headers). Not the body: once the
 * response is returned, its body streams for as long as it takes, and
 * `timeout()` can no longer answer instead. Bodies bound themselves:
 * `createHtmlResponse()` ends a streamed page at its own `timeout` (30 s,
 * pending parts showing their placeholder), an event stream ends when the
 * client leaves or `serve()` shuts down, `streamLimit()` bounds how many
 * run at once. Nor the request body: `bodyLimit()` bounds its size, the
 * server or the proxy in front how long it may take to arrive.
 *
 * @module
 */

import type { Middleware } from "../router/types.ts";
import { NativeResponse } from "../response/native.ts";
import { pathnameOf } from "../url_path/url_path.ts";

/** Options of {@linkcode timeout}. */
export interface TimeoutOptions {
  /**
   * Status of the answer sent when the time is up: `503` (the server is
   * overloaded) or `504` (an upstream did not answer).
   *
   * @default {503}
   */
  status?: 503 | 504;
  /** Text body of that answer. */
  message?: string;
}

/**
 * Answers with `503 Service Unavailable` (or `options.status`) when the
 * rest of the chain has not produced a response within `ms` milliseconds.
 * Put it first in the router's middleware so that it covers everything.
 *
 * The late handler keeps running (JavaScript cannot stop it); an error it
 * throws later is caught and logged, never an unhandled rejection, and its
 * response body is cancelled.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { timeout } from "@fetchkit/toolkit/timeout-middleware";
 *
 * const router = createRouter({ middleware: [timeout(10_000)] });
 * router.get("/slow", () => new Promise<Response>(() => {})); // 503 after 10 s
 * ```
 *
 * @param ms The time limit in milliseconds, a positive finite number.
 * @param options Status and message of the answer.
 * @returns The middleware.
 * @throws {TypeError} When `ms` is not a positive finite number.
 */
export function timeout(ms: number, options: TimeoutOptions = {}): Middleware {
  if (typeof ms !== "number" || !(ms > 0) || !Number.isFinite(ms)) {
    throw new TypeError(
      `timeout() needs a positive finite number of milliseconds, got ${ms}`,
    );
  }
  const status = options.status ?? 503;
  if (status !== 503 && status !== 504) {
    throw new TypeError(`timeout() status must be 503 or 504, got ${status}`);
  }
  const message = options.message ??
    (status === 503
      ? "Service Unavailable: the request took too long."
      : "Gateway Timeout: the request took too long.");
  return (context, next) => {
    const pending = Promise.resolve(next());
    let timer: ReturnType<typeof setTimeout> | undefined;
    let late = false;
    // A handler that settles after the answer: drop its result quietly.
    pending.then(
      (response) => {
        if (late) response?.body?.cancel().catch(() => {});
      },
      (error) => {
        if (late) {
          console.error(
            `timeout(): ${context.method} ${
              pathnameOf(context.request.url)
            } failed after its ${ms} ms answer:`,
            error,
          );
        }
      },
    );
    const expired = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        late = true;
        resolve(
          new NativeResponse(message, {
            status,
            headers: {
              "Content-Type": "text/plain; charset=utf-8",
              "Cache-Control": "no-store",
            },
          }),
        );
      }, ms);
    });
    return Promise.race([pending, expired]).finally(() => clearTimeout(timer))
      .then((response) => response as Response);
  };
}
