/**
 * Validates every input of a request with any
 * [Standard Schema](https://standardschema.dev) v1 library (zod, valibot,
 * arktype, ...), behind one bounded body reader:
 *
 * - {@linkcode parseJson}: the JSON body;
 * - {@linkcode parseQuery}: the query string;
 * - {@linkcode parseParams}: route parameters (`context.params`);
 * - {@linkcode parseHeaders}: request headers, by lowercase name;
 * - {@linkcode parseForm}: a parsed form (re-exported from
 *   `@fetchkit/toolkit/form-validation`);
 * - {@linkcode readBody}: the body as bytes or text, with the same limits;
 * - {@linkcode fromJsonSchema}: a compiled JSON Schema validator (Ajv's
 *   `compile`, as a Fastify app has it) as a Standard Schema, for
 *   `parseJson` or a route's `body` (no JSON Schema library is a
 *   dependency: the app compiles);
 * - {@linkcode withoutCompiling}: a schema left to its own `validate`
 *   (below).
 *
 * Valibot schemas are compiled. The first time a valibot schema validates
 * (`parseJson`, `parseParams`, `parseHeaders`, a route's `body` or
 * `params`), one function specialised to it is generated (`new Function`,
 * as Fastify compiles JSON Schema and Elysia TypeBox) and kept for the
 * schema (a `WeakMap`); valibot is recognised by the schema's own fields
 * (`~standard.vendor`, `kind`, `type`, `entries`, `pipe`, ...), and is no
 * dependency. The function only decides that a value is valid and builds
 * valibot's output for it (the entries in the schema's order, unknown keys
 * dropped by `object` and kept by `looseObject`, an optional key absent
 * when absent, defaults as valibot applies them, new objects and arrays):
 * **a value it does not prove valid is validated by valibot's own
 * `validate`**, so issues, messages and paths are always valibot's.
 * Compiled: `object`, `looseObject`, `strictObject`, `array`, `string`,
 * `number`, `boolean`, `literal`, `picklist`, `null`, `unknown`, `any`,
 * `optional`, `exactOptional`, `undefinedable`, `nullable`, `nullish`
 * (with a default that is a value), and `pipe` with `minLength`,
 * `maxLength`, `length`, `nonEmpty`, `minValue`, `maxValue`, `integer`,
 * `regex` and `email` (a regular expression without the `g` or `y` flag)
 * and metadata actions. A schema with anything else anywhere (a
 * transformation, `check`, `fallback`, `lazy`, `union`, an async part, a
 * default that is a function, a `__proto__` entry) is validated by
 * valibot's own `validate` throughout, as is every schema where code from
 * text is refused (a Content-Security-Policy without `'unsafe-eval'`).
 * On Node, the benchmarks' 1 KB order costs some 80k fewer instructions a
 * request so (BENCHMARKS.md, "Tenth round: valibot compiled per route").
 * To turn it off for a schema, pass `withoutCompiling(schema)` instead;
 * `parseQuery` and `parseForm` run the schema's own `validate`.
 *
 * Each `parse*` resolves to `{ success: true, value }`, `value` being the
 * schema's output type, or `{ success: false, issues, fieldErrors,
 * formErrors }`, with `fieldErrors` keyed by the issue's path written as
 * `items[1].qty`. What the client sent never makes them throw, except the
 * body itself: a body that cannot be read as JSON is an `HttpError`, which
 * the router answers with its status and message:
 *
 * | status | when |
 * |---|---|
 * | 415 | `Content-Type` missing, not `application/json` or `application/*+json`, or a charset other than UTF-8 |
 * | 413 | the body is past `maxBytes` (default 1 MiB): refused on `Content-Length`, and counted while reading whatever `Content-Length` says (absent, wrong, non-numeric, chunked), holding at most the limit plus one network chunk |
 * | 400 | malformed JSON (the message gives line, column and character offset), an empty body, invalid UTF-8 (byte offset), nesting deeper than `maxDepth` (default 64), a `"__proto__"`, `"constructor"` or `"prototype"` key, a number out of range (`1e999999`), a lone surrogate escape (`"\ud800"`), or a `Content-Length` that does not match the body |
 * | 408 | the client stopped sending: no data for `idleTimeout` (30 s), or the body took longer than `bodyTimeout` (5 min), as for `formData()` |
 *
 * Reading: a body that declares a `Content-Length` of at most 256 KiB (and at
 * most `maxBytes`) is read in one native read, which must complete within
 * `idleTimeout`; HTTP servers (Deno, Node, Bun) end a body at its declared
 * length, so that holds no more than declared. Any other body is read chunk by
 * chunk and counted, with the idle and whole-body timeouts.
 *
 * JSON decisions: a `"__proto__"`, `"constructor"` or `"prototype"` key
 * anywhere is refused (400), since code that copies the value with
 * `Object.assign` or a deep merge would set a prototype with it
 * (`{"constructor":{"prototype":{"isAdmin":true}}}` reaches
 * `Object.prototype`), as `parseForm` and `parseQuery` refuse such field
 * names and `parseHeaders` such header names; duplicate keys are accepted and the last one wins, as in
 * `JSON.parse` and every peer; a leading UTF-8 byte order mark is ignored, as
 * RFC 8259 allows.
 *
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { parseJson, parseParams } from "@fetchkit/toolkit/validation";
 * import * as z from "zod";
 *
 * const Note = z.object({ title: z.string().min(1), body: z.string() });
 *
 * const router = createRouter();
 * router.put("/notes/:id", async (context) => {
 *   const params = await parseParams(context.params, z.object({ id: z.coerce.number().int() }));
 *   if (!params.success) return Response.json(params.fieldErrors, { status: 400 });
 *   const note = await parseJson(context.request, Note); // 400/408/413/415 thrown
 *   if (!note.success) return Response.json({ fieldErrors: note.fieldErrors }, { status: 422 });
 *   return Response.json({ id: params.value.id, ...note.value });
 * });
 * ```
 *
 * @module
 */
import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
import { groupIssues } from "../form_validation/issues.ts";
import { parseForm, type ParseFormResult } from "../form_validation/mod.ts";
import { decodeUtf8, readBytes, resolveBodyLimits } from "./read_body.ts";
import { DEFAULT_MAX_DEPTH } from "./_json.ts";
import { jsonBodyThen } from "./json_body.ts";
import { validatorOf } from "./_valibot.ts";

export { parseForm, type ParseFormResult };
export {
  type CompiledAsyncJsonSchema,
  type CompiledJsonSchema,
  fromJsonSchema,
  type FromJsonSchemaOptions,
  type JsonSchemaError,
} from "./compiled_schema.ts";
export type { StandardSchemaV1 };

/**
 * What the `parse*` functions give: the schema's output, or the errors by
 * field. Narrow it on `success`.
 *
 * @example
 * ```ts
 * import { parseQuery, type ValidationResult } from "@fetchkit/toolkit/validation";
 * import * as z from "zod";
 *
 * const result: ValidationResult<{ page: number }> = await parseQuery(
 *   new URLSearchParams("page=x"),
 *   z.object({ page: z.coerce.number() }),
 * );
 * if (!result.success) console.log(Object.keys(result.fieldErrors)); // ["page"]
 * ```
 */
export type ValidationResult<T> =
  | {
    /** The schema accepted the input. */
    success: true;
    /** The schema's output: coerced, transformed, typed. */
    value: T;
  }
  | {
    /** The schema refused the input. */
    success: false;
    /** The schema's issues, as it gave them. */
    issues: readonly StandardSchemaV1.Issue[];
    /** Messages by the issue's path written as `items[1].qty`. */
    fieldErrors: Record<string, string[]>;
    /** Messages that belong to no one field. */
    formErrors: string[];
  };

/** Limits of {@linkcode readBody} and {@linkcode parseJson}. */
export interface ReadBodyOptions {
  /**
   * Largest body, in bytes: a larger `Content-Length` is refused before
   * reading, and the body is counted while it is read (413).
   *
   * @default {1048576} (1 MiB)
   */
  maxBytes?: number;
  /**
   * Milliseconds to wait for the next chunk before a 408. `0` or `Infinity`
   * waits forever.
   *
   * @default {30000}
   */
  idleTimeout?: number;
  /**
   * Milliseconds the whole body may take before a 408, however steadily it
   * trickles in. `0` or `Infinity` waits forever.
   *
   * @default {300000} (5 minutes)
   */
  bodyTimeout?: number;
}

/** Options of {@linkcode parseJson}. */
export interface ParseJsonOptions extends ReadBodyOptions {
  /**
   * Deepest nesting of arrays and objects (`[[1]]` is 2 levels): deeper is
   * a 400, found without recursion.
   *
   * @default {64}
   */
  maxDepth?: number;
}

/**
 * Reads the body of `request` whole, bounded: see the module docs for the
 * limits and the `HttpError`s (400, 408, 413). `as: "text"` decodes UTF-8
 * (400 for invalid UTF-8, a leading byte order mark dropped); the default
 * gives the bytes. No `Content-Type` is required. A body already read is a
 * `TypeError`.
 *
 * @example Read a webhook's raw bytes to check its signature
 * ```ts
 * import { readBody } from "@fetchkit/toolkit/validation";
 *
 * const request = new Request("http://localhost/hook", { method: "POST", body: "payload" });
 * const bytes = await readBody(request, { maxBytes: 64 * 1024 });
 * console.log(bytes.length); // 7
 * ```
 *
 * @example Text
 * ```ts
 * import { readBody } from "@fetchkit/toolkit/validation";
 *
 * const request = new Request("http://localhost/", { method: "POST", body: "héllo" });
 * console.log(await readBody(request, { as: "text" })); // "héllo"
 * ```
 *
 * @param request The request whose body to read.
 * @param options `as`, `maxBytes`, `idleTimeout`, `bodyTimeout`.
 * @returns The body as text or bytes; empty for a request without one.
 */
export function readBody(
  request: Request,
  options: ReadBodyOptions & { as: "text" },
): Promise<string>;
/**
 * Reads the body of `request` whole, bounded, as bytes.
 *
 * @example
 * ```ts
 * import { readBody } from "@fetchkit/toolkit/validation";
 *
 * const request = new Request("http://localhost/", { method: "POST", body: "abc" });
 * (await readBody(request)).length; // 3
 * ```
 *
 * @param request The request whose body to read.
 * @param options `maxBytes`, `idleTimeout`, `bodyTimeout`.
 * @returns The body's bytes.
 */
export function readBody(
  request: Request,
  options?: ReadBodyOptions & { as?: "bytes" },
): Promise<Uint8Array>;
export async function readBody(
  request: Request,
  options?: ReadBodyOptions & { as?: "bytes" | "text" },
): Promise<Uint8Array | string> {
  const as = options?.as ?? "bytes";
  if (as !== "bytes" && as !== "text") {
    throw new TypeError(
      `readBody option as must be "bytes" or "text", got ${String(as)}`,
    );
  }
  const bytes = await readBytes(
    request,
    resolveBodyLimits(options, "readBody"),
  );
  return as === "text" ? decodeUtf8(bytes) : bytes;
}

/**
 * Reads the body of `request` as JSON, bounded, and validates it with a
 * Standard Schema. A body that cannot be read as JSON throws an `HttpError`
 * (415, 413, 400 or 408; see the module docs); a value the schema refuses
 * resolves to `success: false` with the errors by field, for a 422.
 *
 * @example
 * ```ts
 * import { parseJson } from "@fetchkit/toolkit/validation";
 * import * as z from "zod";
 *
 * const Order = z.object({
 *   items: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })),
 * });
 * const request = new Request("http://localhost/orders", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ items: [{ sku: "A", qty: 1 }, { sku: "B", qty: 0 }] }),
 * });
 * const result = await parseJson(request, Order);
 * if (!result.success) {
 *   console.log(result.fieldErrors["items[1].qty"]); // ["Too small: expected number to be >=1"]
 * }
 * ```
 *
 * @param request The request whose body to read.
 * @param schema Any Standard Schema v1.
 * @param options `maxBytes`, `maxDepth`, `idleTimeout`, `bodyTimeout`.
 * @returns The schema's output, or the errors by field.
 */
export function parseJson<S extends StandardSchemaV1>(
  request: Request,
  schema: S,
  options?: ParseJsonOptions,
): Promise<ValidationResult<StandardSchemaV1.InferOutput<S>>> {
  // Not an async function: the read's own callback parses and validates,
  // so a request waits on one promise (none when the body is there
  // already); what throws here is a rejection all the same.
  try {
    const limits = resolveBodyLimits(options, "parseJson");
    const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (typeof maxDepth !== "number" || !(maxDepth >= 1)) {
      throw new RangeError(
        `parseJson option maxDepth must be a number >= 1, got ${
          String(maxDepth)
        }`,
      );
    }
    const result = jsonBodyThen(
      request,
      request.headers.get("content-type"),
      schema,
      limits,
      maxDepth,
      same,
    );
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.reject(error);
  }
}

function same<T>(value: T): T {
  return value;
}

/**
 * Validates a query string with a Standard Schema, with the same name →
 * object rules as `parseForm` (repeated names give arrays, `a.b` nests,
 * hostile names refused with a form error). Values are strings: coerce them
 * in the schema (`z.coerce.number()`).
 *
 * @example
 * ```ts
 * import { parseQuery } from "@fetchkit/toolkit/validation";
 * import * as z from "zod";
 *
 * const Page = z.object({
 *   limit: z.coerce.number().int().min(1).max(100).default(20),
 *   tag: z.array(z.string()).default([]),
 * });
 * const result = await parseQuery(new URL("http://localhost/notes?limit=5&tag=a&tag=b"), Page);
 * if (result.success) console.log(result.value.limit + 1); // 6
 * ```
 *
 * @param input A URL (`context.url`), its `searchParams`, or a URL string
 *   (`request.url`).
 * @param schema Any Standard Schema v1.
 * @returns The schema's output, or the errors by field (with the `values`
 *   the schema saw, as `parseForm` gives).
 */
export function parseQuery<S extends StandardSchemaV1>(
  input: URL | URLSearchParams | string,
  schema: S,
): Promise<ParseFormResult<StandardSchemaV1.InferOutput<S>>> {
  const params = input instanceof URLSearchParams
    ? input
    : typeof input === "string"
    ? new URL(input).searchParams
    : input.searchParams;
  return parseForm(params, schema);
}

/**
 * Validates route parameters with a Standard Schema: `z.coerce.number()`
 * turns `:id` into a number, and a value that is not one gives
 * `success: false` (answer it with 400 or 404).
 *
 * @example
 * ```ts
 * import { parseParams } from "@fetchkit/toolkit/validation";
 * import * as z from "zod";
 *
 * const result = await parseParams({ id: "42" }, z.object({ id: z.coerce.number().int() }));
 * if (result.success) console.log(result.value.id + 1); // 43
 * ```
 *
 * @param params The parameters, as `context.params` gives them.
 * @param schema Any Standard Schema v1.
 * @returns The schema's output, or the errors by parameter name.
 */
export async function parseParams<S extends StandardSchemaV1>(
  params: Readonly<Record<string, string | undefined>>,
  schema: S,
): Promise<ValidationResult<StandardSchemaV1.InferOutput<S>>> {
  return await validate(schema, params);
}

/**
 * Validates request headers with a Standard Schema: the schema sees an
 * object of lowercase header names to values (repeated headers joined with
 * `, `, as `Headers` does). A `__proto__`, `constructor` or `prototype`
 * header gives `success: false` with a form error naming it.
 *
 * @example
 * ```ts
 * import { parseHeaders } from "@fetchkit/toolkit/validation";
 * import * as z from "zod";
 *
 * const headers = new Headers({ "X-Api-Version": "2" });
 * const result = await parseHeaders(headers, z.object({ "x-api-version": z.coerce.number() }));
 * if (result.success) console.log(result.value["x-api-version"]); // 2
 * ```
 *
 * @param headers The request headers (`context.headers`).
 * @param schema Any Standard Schema v1.
 * @returns The schema's output, or the errors by header name.
 */
export async function parseHeaders<S extends StandardSchemaV1>(
  headers: Headers,
  schema: S,
): Promise<ValidationResult<StandardSchemaV1.InferOutput<S>>> {
  const values: Record<string, string> = {};
  for (const [name, value] of headers) {
    // Valid header names, and keys a schema's output may be merged
    // with: refused as parseForm and parseJson refuse them.
    if (
      name === "__proto__" || name === "constructor" || name === "prototype"
    ) {
      const message =
        `Header name "${name}" is refused: it could reach an object's prototype`;
      return {
        success: false,
        issues: [{ message }],
        fieldErrors: {},
        formErrors: [message],
      };
    }
    values[name] = value;
  }
  return await validate(schema, values);
}

/**
 * Runs `schema` on `input`: the result at once for a synchronous schema (no
 * promise to settle), a promise for an async one.
 */
function validate<S extends StandardSchemaV1>(
  schema: S,
  input: unknown,
):
  | ValidationResult<StandardSchemaV1.InferOutput<S>>
  | Promise<ValidationResult<StandardSchemaV1.InferOutput<S>>> {
  const result = validatorOf(schema)(input) as
    | StandardSchemaV1.Result<StandardSchemaV1.InferOutput<S>>
    | Promise<StandardSchemaV1.Result<StandardSchemaV1.InferOutput<S>>>;
  return result instanceof Promise ? result.then(toResult) : toResult(result);
}

function toResult<T>(
  result: StandardSchemaV1.Result<T>,
): ValidationResult<T> {
  if (result.issues === undefined) {
    return { success: true, value: result.value };
  }
  const issues = result.issues;
  const { fieldErrors, formErrors } = groupIssues(issues, undefined);
  return { success: false, issues, fieldErrors, formErrors };
}

/**
 * The same schema, left to its own `validate` every time: a valibot
 * schema's compiled form (see the module docs) is not built or used for
 * it, wherever it is used (`parseJson`, `parseParams`, `parseHeaders`, a
 * route's `body` or `params`). For a schema whose own `validate` must
 * run (a valibot schema changed after it was first used, a comparison, a
 * suspected difference); the value given back is a new object with the
 * same `~standard` property, typed as the schema.
 *
 * @example
 * ```ts
 * import * as v from "valibot";
 * import { parseParams, withoutCompiling } from "@fetchkit/toolkit/validation";
 *
 * const Id = withoutCompiling(v.object({ id: v.pipe(v.string(), v.regex(/^[0-9]+$/)) }));
 * const result = await parseParams({ id: "42" }, Id);
 * console.log(result.success); // true
 * ```
 *
 * @param schema Any Standard Schema v1 (others are never compiled).
 * @returns A schema that validates with `schema`'s own `validate`.
 */
export function withoutCompiling<S extends StandardSchemaV1>(
  schema: S,
): StandardSchemaV1<
  StandardSchemaV1.InferInput<S>,
  StandardSchemaV1.InferOutput<S>
> {
  // Only `~standard`: none of valibot's own fields (`kind`, `type`, ...),
  // so the compiler finds nothing to compile and uses `validate`.
  return { "~standard": schema["~standard"] };
}
