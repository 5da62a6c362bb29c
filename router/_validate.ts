/**
 * Route schemas applied to a request: params, query and body checked
 * before the handler runs, the refusals grouped by field for `onInvalid`.
 *
 * @module
 */

import type { RouteSchemas } from "../routes/schemas.ts";
import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
import { groupIssues } from "../form_validation/issues.ts";
import {
  type InputBase,
  provideInput,
  type RequestContext,
} from "./context.ts";
import type { Handler } from "./types.ts";

/**
 * Input that a route's schema refused, as `onInvalid` receives it: which
 * part (`params`, `query` or `body`), the status the router would answer
 * (`400` for params and query, `422` for the body), and the errors by
 * field. `values` is what the schema saw for a query or a form.
 *
 * @example
 * ```ts
 * import type { InvalidInput } from "@fetchkit/toolkit/fetch-router";
 *
 * function describe(invalid: InvalidInput): string {
 *   return `${invalid.part}: ${Object.keys(invalid.fieldErrors).join(", ")}`;
 * }
 * ```
 */
export interface InvalidInput {
  /** Always `false`, as in a failed `parseJson` result. */
  success: false;
  /** The part of the request the schema refused. */
  part: "params" | "query" | "body";
  /** The default answer's status: `400` (params, query) or `422` (body). */
  status: 400 | 422;
  /** The schema's issues, as it gave them. */
  issues: readonly StandardSchemaV1.Issue[];
  /** Messages by the issue's path written as `items[1].qty`. */
  fieldErrors: Record<string, string[]>;
  /** Messages that belong to no one field (and refused form names). */
  formErrors: string[];
  /** What the schema saw, for a query or a form (to refill the form). */
  values?: Record<string, unknown>;
}

/**
 * Answers refused input instead of the default JSON `400`/`422`: on a
 * route's action (`{ handler, onInvalid }`) or for the whole router
 * (`createRouter({ onInvalid })`), to render an HTML form again with its
 * errors.
 *
 * @example
 * ```ts
 * import type { InvalidHandler } from "@fetchkit/toolkit/fetch-router";
 *
 * const onInvalid: InvalidHandler = (invalid) =>
 *   new Response(`Please fix: ${Object.keys(invalid.fieldErrors).join(", ")}`, {
 *     status: invalid.status,
 *   });
 * ```
 */
export type InvalidHandler = (
  invalid: InvalidInput,
  context: RequestContext,
) => Response | Promise<Response>;

/**
 * Limits for bodies the router reads to validate a route's `body` schema.
 *
 * @example
 * ```ts
 * import { createRouter, type InputOptions } from "@fetchkit/toolkit/fetch-router";
 *
 * const input: InputOptions = { json: { maxBytes: 64 * 1024 }, form: { maxFiles: 0 } };
 * const router = createRouter({ input });
 * ```
 */
export interface InputOptions {
  /**
   * Limits for JSON bodies, as `parseJson` takes them (`maxBytes` default
   * 1 MiB, `maxDepth` 64, `idleTimeout` 30 s, `bodyTimeout` 5 min).
   */
  json?: {
    /** Largest body, in bytes. */
    maxBytes?: number;
    /** Deepest nesting of arrays and objects. */
    maxDepth?: number;
    /** Milliseconds to wait for the next chunk before a 408. */
    idleTimeout?: number;
    /** Milliseconds the whole body may take before a 408. */
    bodyTimeout?: number;
  };
  /**
   * Limits for form bodies, as `parseFormData` takes them (a form that
   * `formData()` middleware parsed is used as it is).
   */
  form?: {
    /** Largest body, in bytes. */
    maxTotalSize?: number;
    /** Largest file, in bytes. */
    maxFileSize?: number;
    /** Most files in one body. */
    maxFiles?: number;
    /** Largest text field value, in bytes. */
    maxFieldSize?: number;
    /** Most text fields in one body. */
    maxFields?: number;
    /** Largest header block of one multipart part, in bytes. */
    maxHeaderSize?: number;
    /** Milliseconds to wait for the next chunk before a 408. */
    idleTimeout?: number;
    /** Milliseconds the whole body may take before a 408. */
    bodyTimeout?: number;
  };
}

const MESSAGES = {
  params: "Invalid path parameters",
  query: "Invalid query string",
  body: "Invalid request body",
} as const;

/** The default answer to refused input: JSON with the errors by field. */
function answerInvalid(invalid: InvalidInput): Response {
  return Response.json({
    error: MESSAGES[invalid.part],
    fieldErrors: invalid.fieldErrors,
    formErrors: invalid.formErrors,
  }, { status: invalid.status });
}

/** The body and query readers, loaded on the first request that needs them. */
interface Readers {
  jsonBodyThen: typeof import("../validation/json_body.ts").jsonBodyThen;
  resolveBodyLimits:
    typeof import("../validation/json_body.ts").resolveBodyLimits;
  defaultMaxDepth: number;
  parseJson: typeof import("../validation/mod.ts").parseJson;
  parseQuery: typeof import("../validation/mod.ts").parseQuery;
  parseForm: typeof import("../form_validation/mod.ts").parseForm;
  parseFormData: typeof import("../form_data/parse.ts").parseFormData;
  validatorOf: typeof import("../validation/json_body.ts").validatorOf;
}

let readers: Readers | undefined;

// Imported when a route with schemas first validates, not with the router:
// they would double the modules the router loads at start (24 modules,
// 151 KB of source, to 48 and 318 KB), in every app, schemas or not.
async function loadReaders(): Promise<Readers> {
  const [validation, json, form] = await Promise.all([
    import("../validation/mod.ts"),
    import("../validation/json_body.ts"),
    import("../form_data/parse.ts"),
  ]);
  return readers = {
    jsonBodyThen: json.jsonBodyThen,
    resolveBodyLimits: json.resolveBodyLimits,
    defaultMaxDepth: json.DEFAULT_MAX_DEPTH,
    parseJson: validation.parseJson,
    parseQuery: validation.parseQuery,
    parseForm: validation.parseForm,
    parseFormData: form.parseFormData,
    validatorOf: json.validatorOf,
  };
}

const FORM_TYPE =
  /^\s*(?:application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i;

async function validateValue(
  validate: (value: unknown) =>
    | StandardSchemaV1.Result<unknown>
    | Promise<StandardSchemaV1.Result<unknown>>,
  value: unknown,
): Promise<
  { ok: true; value: unknown } | {
    ok: false;
    issues: readonly StandardSchemaV1.Issue[];
  }
> {
  let result = validate(value);
  if (result instanceof Promise) result = await result;
  return result.issues === undefined
    ? { ok: true, value: (result as { value: unknown }).value }
    : { ok: false, issues: result.issues };
}

/**
 * Wraps a route's handler so its input is validated first, once per
 * request; routes without schemas are never wrapped. A route with a `body`
 * schema alone, sent JSON, is validated in the same call as its handler
 * (no async step, the input built once, `Content-Type` read once): when
 * the body has arrived (Bun, Node under `serve()`) and the schema is
 * synchronous, the handler's answer comes back synchronously; otherwise
 * the body read's one promise carries it.
 */
export function validated(
  schemas: RouteSchemas,
  handler: Handler,
  onInvalid: InvalidHandler | undefined,
  options: InputOptions | undefined,
): Handler {
  const { params, query, body } = schemas;
  let validateParams: ReturnType<Readers["validatorOf"]> | undefined;
  const refuse = (
    context: RequestContext,
    invalid: InvalidInput,
  ): Response | Promise<Response> =>
    onInvalid === undefined
      ? answerInvalid(invalid)
      : onInvalid(invalid, context);

  const general = async (
    context: RequestContext,
    type?: string | null,
  ): Promise<Response> => {
    const { parseJson, parseQuery, parseForm, parseFormData, validatorOf } =
      readers ?? await loadReaders();
    // The params schema's validator, looked up on the first request only.
    if (params !== undefined) validateParams ??= validatorOf(params);
    const input: { -readonly [K in keyof InputBase]: unknown } = {
      params: context.params,
      query: undefined,
      body: undefined,
    };
    if (params !== undefined) {
      const result = await validateValue(validateParams!, context.params);
      if (!result.ok) {
        const { fieldErrors, formErrors } = groupIssues(
          result.issues,
          undefined,
        );
        return refuse(context, {
          success: false,
          part: "params",
          status: 400,
          issues: result.issues,
          fieldErrors,
          formErrors,
        });
      }
      input.params = result.value;
    }
    if (query !== undefined) {
      const result = await parseQuery(context.url, query);
      if (!result.success) {
        return refuse(context, { part: "query", status: 400, ...result });
      }
      input.query = result.value;
    }
    if (body !== undefined) {
      const request = context.request;
      type ??= request.headers.get("content-type");
      if (type !== null && FORM_TYPE.test(type)) {
        // A form parsed by formData() middleware is used as it is.
        const form = context.has(FormData)
          ? context.get(FormData)
          : await parseFormData(request, options?.form);
        const result = await parseForm(form, body);
        if (!result.success) {
          return refuse(context, { part: "body", status: 422, ...result });
        }
        input.body = result.value;
      } else {
        // Anything else must be JSON: parseJson answers 415 otherwise.
        const result = await parseJson(request, body, options?.json);
        if (!result.success) {
          return refuse(context, { part: "body", status: 422, ...result });
        }
        input.body = result.value;
      }
    }
    provideInput(context, input);
    return await handler(context);
  };

  if (body === undefined || params !== undefined || query !== undefined) {
    return (context) => general(context);
  }

  // A body schema alone: the JSON path compiled once, per route.
  let compiled:
    | ((context: RequestContext, type: string | null) =>
      | Response
      | Promise<Response>)
    | undefined;
  const compile = (found: Readers) => {
    const { jsonBodyThen, resolveBodyLimits, defaultMaxDepth, validatorOf } =
      found;
    // The body schema's validator, compiled once (valibot) or its own.
    const validate = validatorOf(body);
    const limits = resolveBodyLimits(options?.json, "parseJson");
    const maxDepth = options?.json?.maxDepth ?? defaultMaxDepth;
    if (typeof maxDepth !== "number" || !(maxDepth >= 1)) {
      throw new RangeError(
        `parseJson option maxDepth must be a number >= 1, got ${
          String(maxDepth)
        }`,
      );
    }
    return compiled = (context, type) =>
      jsonBodyThen(
        context.request,
        type,
        body,
        limits,
        maxDepth,
        (result): Response | Promise<Response> => {
          if (!result.success) {
            return refuse(context, { part: "body", status: 422, ...result });
          }
          provideInput(context, {
            params: context.params,
            query: undefined,
            body: result.value,
          });
          return handler(context);
        },
        validate,
      );
  };
  return (context) => {
    const type = context.request.headers.get("content-type");
    // What nearly every client sends, without the regular expression.
    if (type !== "application/json" && type !== null && FORM_TYPE.test(type)) {
      return general(context, type);
    }
    if (compiled !== undefined) return compiled(context, type);
    return loadReaders().then((found) =>
      (compiled ?? compile(found))(context, type)
    );
  };
}
