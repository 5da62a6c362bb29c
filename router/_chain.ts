/**
 * Middleware chains composed once per route: each middleware's `next()` runs
 * the rest, down to the handler.
 *
 * @module
 */

import { applyStaged, type RequestContext } from "./context.ts";
import type { Middleware } from "./types.ts";
import { NativeResponse } from "../response/native.ts";
import { type Answer, ANSWERS } from "./answers_itself.ts";

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
  recover?: Recover,
): Terminal {
  let run: Link = terminal;
  for (let index = middleware.length - 1; index >= 0; index--) {
    // Only the terminal's result needs checking: a link's is checked
    // already, and only a link takes the `below` record of its caller.
    run = (BOUND ? boundLink : link)(
      middleware[index],
      index,
      run,
      index < middleware.length - 1,
      recover,
    );
  }
  return run;
}

/**
 * Whether links run as `boundLink` (Node): there a run allocates a `Step`
 * and a bound `next` (about 60 bytes a link less than `link`'s scope
 * object and closure, so fewer scavenges of Node's small young
 * generation). Deno and Bun keep `link`'s closure: bound, Bun's three
 * middlewares counted 565 instructions a request more (identical code
 * differs by about 180 between its runs), Deno's 540 more (within its
 * runs' spread), and neither has Node's scavenge count to win back.
 */
const BOUND = typeof (globalThis as { Deno?: unknown }).Deno === "undefined" &&
  typeof (globalThis as { Bun?: unknown }).Bun === "undefined" &&
  typeof (globalThis as { process?: { versions?: { node?: string } } })
      .process?.versions?.node === "string";

/** Turns an error into the router's error response (its `onError`). */
export type Recover = (
  error: unknown,
  context: RequestContext,
) => Promise<Response>;

/**
 * The outermost chain of a request recovers from errors itself, so the
 * router can hand its promise to the server as it is (no wrapping promise,
 * no extra tick). `enter(context)` marks the request whose first link to
 * run is the outermost; `outermost()` gives that link's promise. Both are
 * module state, set and read within one synchronous `router.fetch` call;
 * a nested `fetch` from inside a handler sets and reads its own before
 * the outer link's promise exists, and identity makes a stale or foreign
 * value harmless.
 */
let entering: RequestContext | undefined;
let outer: Promise<Response> | undefined;
// What the outermost link applies last to its promise's answer (a
// server's tracking, see `Finish` in _error_boundary.ts), set with
// `entering`.
let finishing: ((response: Response) => Response) | undefined;

/**
 * Marks `context`'s next link to run as the outermost; its promise, if it
 * makes one, settles to `finish(answer)` when `finish` is given.
 */
export function enter(
  context: RequestContext,
  finish?: (response: Response) => Response,
): void {
  entering = context;
  outer = undefined;
  finishing = finish;
}

/**
 * The promise of the outermost link that ran since `enter()`, if it made
 * one: it settles to a checked `Response` (errors already recovered).
 */
export function outermost(): Promise<Response> | undefined {
  const promise = outer;
  entering = undefined;
  outer = undefined;
  finishing = undefined;
  return promise;
}

/**
 * What a middleware's `next()` resolved to, once known. A link fills its
 * caller's record when it finishes, so the caller, resumed after its
 * middleware awaited `next()`, returns that response without awaiting the
 * settled promise again (one microtask tick per middleware).
 */
interface Below {
  response: Response | undefined;
  /**
   * A promise already settled to `response`, when the link below made one
   * for its own middleware: a caller above shares it instead of making
   * another (on Node each promise resolved with the adapter's `Response`
   * looks `then` up along its prototype chain).
   */
  promise: Promise<Response> | undefined;
}

/** A composed step: a terminal that may report to its caller's record. */
type Link = (
  context: RequestContext,
  report?: Below,
) => Response | Promise<Response>;

/** A link's middleware and its place in the chain, for error messages. */
interface Site {
  readonly index: number;
  readonly middleware: Middleware;
}

/**
 * What settling a middleware's result takes once it is a promise or an
 * `answer` (`later`, `conclude`): one record, made only then (a chain that
 * answers synchronously makes none).
 */
interface Settling {
  /** The record the link below reported to. */
  readonly below: Below;
  readonly next: (resume: typeof RESUME) => Promise<Response>;
  /** The caller's record, when the caller is a link. */
  readonly report: Below | undefined;
  readonly site: Site;
  /** Set on the outermost link only, which recovers and applies staging. */
  readonly recover: Recover | undefined;
  readonly context: RequestContext;
  readonly finish: ((response: Response) => Response) | undefined;
}

function link(
  middleware: Middleware,
  index: number,
  rest: Link,
  restIsLink: boolean,
  recover: Recover | undefined,
): Link {
  const answers =
    (middleware as unknown as Record<symbol, unknown>)[ANSWERS] === true;
  const site: Site = { index, middleware };
  return (context, report) => {
    const top = entering === context;
    let finish: ((response: Response) => Response) | undefined;
    if (top) {
      entering = undefined;
      finish = finishing;
      finishing = undefined;
    }
    const below: Below = { response: undefined, promise: undefined };
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
        // A user's handler gets the context only; a link gets the record.
        const result = restIsLink
          ? rest(context, below)
          : settle(rest(context));
        if (result instanceof NativeResponse) {
          // The link below answered synchronously with its next()'s
          // promise: share it (it settled to this very Response).
          downstream = below.response === result && below.promise
            ? below.promise
            : Promise.resolve(result);
          below.response = result;
        } else {
          downstream = result;
        }
      } catch (error) {
        downstream = Promise.reject(error);
      }
      return downstream;
    };
    const result = answers
      ? (middleware as (
        context: RequestContext,
        next: () => Promise<Response>,
        answer: Answer,
      ) => ReturnType<Middleware>)(
        context,
        next,
        (value) =>
          conclude(value, {
            below,
            next,
            report,
            site,
            recover: top ? recover : undefined,
            context,
            finish,
          }),
      )
      : middleware(context, next);
    if (result instanceof NativeResponse) return result;
    if (result === undefined || result === downstream) {
      // Nothing, or next()'s own promise: the rest of the chain's answer,
      // as a Response when it came synchronously (so a chain of `return
      // next()` middleware stays synchronous, and Deno.serve's fast path
      // open).
      if (downstream === undefined) next();
      const response = below.response;
      if (response === undefined) return downstream!;
      if (report !== undefined) {
        report.response = response;
        report.promise = downstream;
      }
      return response;
    }
    if (isThenable(result)) {
      if (answers) {
        // It settles through `answer`: checked, recovered, finished.
        if (top) outer = result as Promise<Response>;
        return result as Promise<Response>;
      }
      const promise = later(result, {
        below,
        next,
        report,
        site,
        recover: top ? recover : undefined,
        context,
        finish,
      });
      if (top) outer = promise;
      return promise;
    }
    throw notAResponse(site, result);
  };
}

/**
 * A link's parts, made once when the route is added: what `next()` runs
 * and what error messages name.
 */
interface LinkSite extends Site {
  readonly rest: Link;
  /** Whether `rest` is a link (it takes the record), or the terminal. */
  readonly restIsLink: boolean;
}

/**
 * One run of a link: the record the link below reports to (`Below`), and
 * what `next()` reads. `next` is `proceed` bound to it: a bound function
 * and this one object are what a link allocates a run (a closure would
 * add a scope object of its own; a few hundred bytes a request less on a
 * chain of three, so fewer scavenges on Node).
 */
class Step implements Below {
  response: Response | undefined = undefined;
  promise: Promise<Response> | undefined = undefined;
  /** `next()`'s promise, once it was called. */
  downstream: Promise<Response> | undefined = undefined;
  readonly context: RequestContext;
  readonly site: LinkSite;
  constructor(context: RequestContext, site: LinkSite) {
    this.context = context;
    this.site = site;
  }
}

/** A middleware's `next()`, bound to its run's `Step`. */
function proceed(this: Step, resume?: typeof RESUME): Promise<Response> {
  const downstream = this.downstream;
  const site = this.site;
  if (downstream !== undefined) {
    if (resume === RESUME) return downstream;
    throw new Error(
      `next() called twice in middleware #${site.index} (${
        site.middleware.name || "anonymous"
      })`,
    );
  }
  try {
    // A user's handler gets the context only; a link gets the record.
    const result = site.restIsLink
      ? site.rest(this.context, this)
      : settle(site.rest(this.context));
    if (result instanceof NativeResponse) {
      // The link below answered synchronously with its next()'s
      // promise: share it (it settled to this very Response).
      this.downstream = this.response === result && this.promise
        ? this.promise
        : Promise.resolve(result);
      this.response = result;
    } else {
      this.downstream = result;
    }
  } catch (error) {
    this.downstream = Promise.reject(error);
  }
  return this.downstream;
}

function boundLink(
  middleware: Middleware,
  index: number,
  rest: Link,
  restIsLink: boolean,
  recover: Recover | undefined,
): Link {
  const answers =
    (middleware as unknown as Record<symbol, unknown>)[ANSWERS] === true;
  const site: LinkSite = { index, middleware, rest, restIsLink };
  return (context, report) => {
    const top = entering === context;
    let finish: ((response: Response) => Response) | undefined;
    if (top) {
      entering = undefined;
      finish = finishing;
      finishing = undefined;
    }
    const below = new Step(context, site);
    const next = proceed.bind(below) as (
      resume?: typeof RESUME,
    ) => Promise<Response>;
    const result = answers
      ? (middleware as (
        context: RequestContext,
        next: () => Promise<Response>,
        answer: Answer,
      ) => ReturnType<Middleware>)(
        context,
        next,
        answerOf(below, next, report, top ? recover : undefined, finish),
      )
      : middleware(context, next);
    if (result instanceof NativeResponse) return result;
    const downstream = below.downstream;
    if (result === undefined || result === downstream) {
      // Nothing, or next()'s own promise: the rest of the chain's answer,
      // as a Response when it came synchronously (so a chain of `return
      // next()` middleware stays synchronous, and Deno.serve's fast path
      // open).
      const promise = downstream ?? next();
      const response = below.response;
      if (response === undefined) return promise;
      if (report !== undefined) {
        report.response = response;
        report.promise = promise;
      }
      return response;
    }
    if (isThenable(result)) {
      if (answers) {
        // It settles through `answer`: checked, recovered, finished.
        if (top) outer = result as Promise<Response>;
        return result as Promise<Response>;
      }
      const promise = later(result, {
        below,
        next,
        report,
        site,
        recover: top ? recover : undefined,
        context,
        finish,
      });
      if (top) outer = promise;
      return promise;
    }
    throw notAResponse(site, result);
  };
}

/**
 * The `answer` of an `ANSWERS` middleware, for `boundLink` (a function of
 * its own, so that the link keeps no scope object a run; the record for
 * `conclude` is made only when it is called).
 */
function answerOf(
  below: Step,
  next: (resume: typeof RESUME) => Promise<Response>,
  report: Below | undefined,
  recover: Recover | undefined,
  finish: ((response: Response) => Response) | undefined,
): Answer {
  return (value) =>
    conclude(value, {
      below,
      next,
      report,
      site: below.site,
      recover,
      context: below.context,
      finish,
    });
}

async function later(
  result: PromiseLike<Response | void>,
  step: Settling,
): Promise<Response> {
  let response: Response;
  try {
    const value = await result;
    if (value instanceof NativeResponse) {
      response = value;
    } else if (value !== undefined) {
      throw notAResponse(step.site, value);
    } else {
      // Known once the rest of the chain finished (the usual `await
      // next()`); otherwise wait for it. `return await` of a promise takes
      // one tick where returning it takes three.
      response = step.below.response ?? await step.next(RESUME);
    }
  } catch (error) {
    // Only the outermost link recovers; the others let middleware around
    // them catch what `next()` threw.
    if (step.recover === undefined) throw error;
    response = await step.recover(error, step.context);
  }
  return settled(step, response);
}

/**
 * `later` for a value that has come (`answer` of an `ANSWERS` middleware):
 * at once when it is nothing after `next()` answered, or a `Response`;
 * otherwise through `later`.
 */
function conclude(
  value: Response | void | PromiseLike<Response | void>,
  step: Settling,
): Response | Promise<Response> {
  const response = value === undefined ? step.below.response : value;
  if (!(response instanceof NativeResponse)) {
    return later(Promise.resolve(value), step);
  }
  return settled(step, response);
}

/**
 * A link's answer, final: the outermost link's is the request's, so
 * staged headers go on it, and its caller's record learns it.
 */
function settled(step: Settling, response: Response): Response {
  if (step.recover !== undefined) {
    response = applyStaged(step.context, response);
  }
  if (step.report !== undefined) step.report.response = response;
  return step.finish === undefined ? response : step.finish(response);
}

const RESUME: unique symbol = Symbol("resume");

function notAResponse({ index, middleware }: Site, value: unknown): TypeError {
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
  if (result instanceof NativeResponse) return result;
  if (isThenable(result)) {
    return Promise.resolve(result).then(checkResponse);
  }
  return checkResponse(result);
}

/** A handler must answer with a `Response`; anything else is a bug to report. */
export function checkResponse(result: unknown): Response {
  if (result instanceof NativeResponse) return result;
  throw new TypeError(
    `A handler returned ${
      result === null ? "null" : typeof result
    }, not a Response`,
  );
}
