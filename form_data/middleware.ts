/**
 * {@linkcode formData}: middleware that parses form bodies into the request
 * context.
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import type { Middleware } from "../router/types.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { FormDataParseError } from "./errors.ts";
import {
  FormRead,
  type ParsedForm,
  type ParseFormDataOptions,
  parseFormInto,
} from "./parse.ts";
import { NativeResponse } from "../response/native.ts";
import { deferValue, deferValues, hasValue } from "../router/context.ts";
import { type Answer, ANSWERS } from "../router/answers_itself.ts";
import { type FormFieldRecord, FormFields } from "./fields.ts";
import { formFromPairs, recordFromForm, recordFromPairs } from "./_fields.ts";
import type { FieldPairs } from "./_urlencoded.ts";
import type { AnyContextKey } from "../router/context_key.ts";

/** Options of {@linkcode formData}: the parse options plus `onError`. */
export interface FormDataOptions extends ParseFormDataOptions {
  /**
   * Renders the response for a body that cannot be parsed. Without it the
   * response is the error's `status` (400, 413 or 408) with its message as
   * plain text. Errors that are not a `FormDataParseError` (a bug, a failing
   * upload handler) are not passed here: they propagate to the router.
   */
  onError?: (
    error: FormDataParseError,
    context: RequestContext,
  ) => Response | Promise<Response>;
}

/**
 * Parses `application/x-www-form-urlencoded` and `multipart/form-data`
 * bodies into the request context, read as a standard `FormData` with
 * `context.get(FormData)`, or as a plain record of fields with
 * `context.get(FormFields)` (see {@linkcode FormFields}; for a urlencoded
 * body neither is built until a handler asks for it). Text fields are
 * strings; files are `File`s (`name`, `size`, `type`, `text()`,
 * `arrayBuffer()`), or whatever the `uploadHandler` returns.
 *
 * - GET and HEAD requests, bodies of other types and empty bodies get an
 *   empty form.
 * - It runs once per request: when a `FormData` is already in the context
 *   (an earlier `formData()`), it is kept, and `FormFields` is made from it.
 * - A body that cannot be parsed ends the request with status 400
 *   (malformed), 413 (a limit) or 408 (`idleTimeout`, `bodyTimeout`) and a
 *   plain-text message naming the field or file and the limit, or with what
 *   `onError` returns. The body is cancelled, files saved for it are
 *   removed, and the server goes on serving.
 *
 * See {@linkcode ParseFormDataOptions} for the limits and their defaults.
 *
 * @example Read a login form
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const router = createRouter();
 * router.post("/login", formData(), (context) => {
 *   const form = context.get(FormData);
 *   const email = String(form?.get("email") ?? "");
 *   return new Response(`Hello ${email}`);
 * });
 *
 * const response = await router.fetch(
 *   new Request("http://localhost/login", {
 *     method: "POST",
 *     body: new URLSearchParams({ email: "a@example.com", password: "x" }),
 *   }),
 * );
 * await response.text(); // "Hello a@example.com"
 * ```
 *
 * @param options Limits, idle timeout, upload handler and error page.
 * @returns The middleware.
 */
export function formData(options: FormDataOptions = {}): Middleware {
  // Validate once, so that a bad option fails at startup, not per request.
  const limits = resolveLimits(options);
  const { onError } = options;
  function refuse(
    error: unknown,
    context: RequestContext,
  ): Response | Promise<Response> {
    if (!(error instanceof FormDataParseError)) throw error;
    if (onError !== undefined) return onError(error, context);
    return new NativeResponse(error.message, {
      status: error.status,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  // Not async: a form that needs no waiting (a small body already
  // arrived, on Bun) keeps the chain synchronous.
  const middleware = (
    context: RequestContext,
    next: () => Promise<Response>,
    answer?: Answer,
  ): Response | void | Promise<Response | void> => {
    if (hasValue(context, FormData)) {
      if (!hasValue(context, FormFields)) {
        deferValue(context, FormFields, fieldsOfContext, context);
      }
      return next();
    }
    // `context.method` is the request's own unless a middleware changed
    // it, and none turns another method into a POST (`methodOverride()`
    // turns a POST into another): a POST's method is not read again (on
    // Bun a native call); any other is the request's own.
    const method = context.method === "POST" ? "POST" : context.request.method;
    if (method === "GET" || method === "HEAD") {
      provide(context, NO_FIELDS);
      return next();
    }
    // After a wait, the read's promise settles to the router chain's
    // own answer (`answer`, see ANSWERS): the chain hands that promise on
    // without waiting for it. Without `answer` (called outside a router),
    // nothing once next() ran: returning next()'s promise would make the
    // read's promise adopt it (a thenable job and two more turns).
    const read = new MiddlewareRead(context, limits, next, answer, refuse);
    const result = parseFormInto(read);
    read.waited = true;
    return result;
  };
  // The router's chain passes `answer` to middleware so marked.
  Object.defineProperty(middleware, ANSWERS, { value: true });
  return middleware as Middleware;
}

const NO_FIELDS: ParsedForm = [];

/** What `formData()` returns for a request. */
type Outcome = Response | void | Promise<Response | void>;

/**
 * One request's form read in `formData()`: its state, its continuation
 * and (while a small body is awaited) its entry on the deadline clock, in
 * one object instead of four closures.
 */
class MiddlewareRead extends FormRead<Response | void> {
  /** Set once `parseFormInto` returned: the form came after a wait. */
  waited = false;
  // The context's own (a getter, not a field: one slot less in an object
  // made for every form read).
  get request(): Request {
    return this.context.request;
  }
  readonly context: RequestContext;
  readonly forward: () => Promise<Response>;
  readonly answer: Answer | undefined;
  readonly refuse: (
    error: unknown,
    context: RequestContext,
  ) => Response | Promise<Response>;

  constructor(
    context: RequestContext,
    limits: Limits,
    forward: () => Promise<Response>,
    answer: Answer | undefined,
    refuse: (
      error: unknown,
      context: RequestContext,
    ) => Response | Promise<Response>,
  ) {
    super(limits);
    this.context = context;
    this.forward = forward;
    this.answer = answer;
    this.refuse = refuse;
  }

  done(form: ParsedForm): Outcome {
    provide(this.context, form);
    const answered = this.forward();
    if (!this.waited) return answered;
    return this.answer === undefined ? undefined : this.answer(undefined);
  }

  fail(error: unknown): Outcome {
    const { answer, context } = this;
    if (!this.waited || answer === undefined) {
      return this.refuse(error, context);
    }
    let refused: Response | Promise<Response>;
    try {
      refused = this.refuse(error, context);
    } catch (thrown) {
      refused = Promise.reject(thrown);
    }
    return answer(refused);
  }
}

/**
 * Puts a parsed form in the context as `FormData` and as `FormFields`,
 * the one not parsed into made only when a handler reads it.
 */
function provide(context: RequestContext, parsed: ParsedForm): void {
  if (parsed instanceof FormData) {
    context.set(FormData, parsed);
    deferValue(context, FormFields, recordFromForm, parsed);
  } else {
    deferValues(context, FormData, FormFields, fromPairs, parsed);
  }
}

/** The `FormData` or the record (`key`) of a urlencoded form's pairs. */
function fromPairs(
  pairs: FieldPairs,
  key: AnyContextKey,
): FormData | FormFieldRecord {
  return key === FormData ? formFromPairs(pairs) : recordFromPairs(pairs);
}

function fieldsOfContext(context: RequestContext): FormFieldRecord {
  return recordFromForm(context.get(FormData));
}
