/**
 * The error boundary and the last step of every request: a thrown error
 * becomes a response (`onError`, an `HttpError`'s own answer, or a 500
 * that never shows the error's text), staged headers are applied, and a
 * `HEAD` answer loses its body.
 *
 * @module
 */

import { applyStaged, type RequestContext } from "./context.ts";
import {
  checkResponse,
  enter,
  outermost,
  type Recover,
  type Terminal,
} from "./_chain.ts";
import { headResponse } from "./_head.ts";
import { text } from "./_answers.ts";
import { NativeResponse } from "../response/native.ts";
import { HttpError } from "../http_error/mod.ts";

/** `RouterOptions.onError`. */
export type OnError = (
  error: unknown,
  context: RequestContext,
) => Response | Promise<Response>;

/**
 * Turns an error thrown by middleware or a handler into a response: with
 * `onError` when given (a failing `onError` is logged and answered 500),
 * else an `HttpError`'s own answer, else a logged 500.
 */
export function errorBoundary(onError: OnError | undefined): Recover {
  return async function recover(
    error: unknown,
    context: RequestContext,
  ): Promise<Response> {
    if (onError !== undefined) {
      try {
        return await onError(error, context);
      } catch (failure) {
        console.error("onError threw while handling an error:", failure);
      }
    } else if (error instanceof HttpError) {
      // A hidden message is the server's to read, not the client's. A 503
      // or 504 (a store or upstream that is down or slow) is one line: its
      // stack says nothing the message does not, and an outage repeats it
      // for every request.
      if (!error.expose) {
        console.error(error.status > 500 ? outageLine(error) : error);
      }
      return error.toResponse(context.request);
    } else {
      console.error(error);
    }
    return text("Internal Server Error", 500);
  };
}

/** "503 StoreUnavailableError: Redis did not answer ... (cause: ...)". */
function outageLine(error: HttpError): string {
  const cause = error.cause instanceof Error
    ? ` (cause: ${error.cause.name}: ${error.cause.message})`
    : "";
  return `${error.status} ${error.name}: ${error.message}${cause}`;
}

/**
 * What a server does with each promised answer before its promise settles
 * (`serve()` on Bun tracks long-lived responses so): given to `respond`,
 * it is applied once to the final answer of a request that is answered
 * with a promise, so the server needs no `then` of its own.
 */
export type Finish = (response: Response) => Response;

/** Runs a chain for a request and finishes its answer. */
export type Respond = (
  context: RequestContext,
  chain: Terminal,
  finish?: Finish,
) => Response | Promise<Response>;

/**
 * Runs a request's outermost chain under the boundary `recover`. Not
 * async: a chain that answers synchronously is answered with its
 * `Response` itself, which `Deno.serve` sends on its native path (a
 * Promise costs it about 2 µs of CPU a request, BENCHMARKS.md "HTTP
 * load").
 */
export function responder(recover: Recover): Respond {
  /** The slow path: a promised response, or an error to turn into one. */
  async function finish(
    pending: PromiseLike<unknown> | undefined,
    failure: { error: unknown } | undefined,
    context: RequestContext,
    head: boolean,
    done: Finish | undefined,
  ): Promise<Response> {
    let response: Response;
    try {
      if (failure !== undefined) throw failure.error;
      response = checkResponse(await pending);
    } catch (error) {
      response = await recover(error, context);
    }
    response = applyStaged(context, response);
    if (head && response.body !== null) {
      response = await headResponse(response);
    }
    return done === undefined ? response : done(response);
  }

  return function respond(
    context: RequestContext,
    chain: Terminal,
    done?: Finish,
  ): Response | Promise<Response> {
    // The request's method, read once (middleware may change context.method).
    const head = context.method === "HEAD";
    let result: unknown;
    // The outermost link finishes its own promise, but for HEAD, whose
    // answer finish() takes further.
    enter(context, head ? undefined : done);
    try {
      result = chain(context);
    } catch (error) {
      outermost();
      return finish(undefined, { error }, context, head, done);
    }
    const recovered = outermost();
    if (result instanceof NativeResponse) {
      const response = applyStaged(context, result);
      // Reading .body makes a stream out of a string body: ask only for HEAD.
      if (!head || response.body === null) return response;
      const bodiless = headResponse(response);
      return done === undefined ? bodiless : bodiless.then(done);
    }
    // The outermost chain's promise is checked, recovers from errors and
    // has the staged headers applied (and `done`): it goes to the server
    // as it is.
    if (recovered !== undefined && result === recovered && !head) {
      return recovered;
    }
    // A promise, or a wrong result that finish() reports.
    return finish(
      result as PromiseLike<unknown>,
      undefined,
      context,
      head,
      done,
    );
  };
}
