/**
 * {@linkcode parseFormData}: a request's form body as `FormData`, with
 * limits, streaming file uploads and an idle timeout.
 *
 * @module
 */

import { BodyReader } from "./body_reader.ts";
import { type FormBodyKind, formBodyKind } from "./_headers.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { parseMultipartBody } from "./_parse_multipart.ts";
import {
  type FieldPairs,
  formFromPairs,
  parseUrlEncodedBody,
  parseUrlEncodedPairs,
} from "./_urlencoded.ts";
import {
  readWholeBodyInto,
  WHOLE_BODY_MAX,
  WholeBodyRead,
} from "./whole_body.ts";
import { FormDataParseError, MaxTotalSizeExceededError } from "./errors.ts";
import type { FileUploadHandler } from "./file_upload.ts";
import { bodyProgress } from "../body_progress/body_progress.ts";

/**
 * Limits and file handling for {@linkcode parseFormData} and `formData()`.
 * Sizes are in bytes; `Infinity` turns a limit off. A limit exceeded throws
 * a `FormDataLimitError` subclass (status 413) naming the field or file.
 */
export interface ParseFormDataOptions {
  /**
   * Largest file, in bytes.
   *
   * @default {10485760} (10 MiB)
   */
  maxFileSize?: number;
  /**
   * Most files in one body. A file input left empty does not count here
   * (it counts against `maxFields`).
   *
   * @default {20}
   */
  maxFiles?: number;
  /**
   * Largest text field value, in bytes (UTF-8).
   *
   * @default {1048576} (1 MiB)
   */
  maxFieldSize?: number;
  /**
   * Most text fields in one body. An empty file input (a part with
   * `filename=""` and no content) counts as a field, as it adds an entry
   * without a file.
   *
   * @default {1000}
   */
  maxFields?: number;
  /**
   * Largest header block of one multipart part, in bytes.
   *
   * @default {8192} (8 KiB)
   */
  maxHeaderSize?: number;
  /**
   * Largest body, in bytes, of either content type: checked against
   * `Content-Length` before reading, then while reading.
   *
   * @default {67108864} (64 MiB)
   */
  maxTotalSize?: number;
  /**
   * Milliseconds to wait for the next chunk of the body before failing with
   * a `FormDataTimeoutError` (status 408), so a client that stalls never
   * keeps a parse waiting. `0` or `Infinity` waits forever. When
   * `methodOverride()` has already waited for the same body, the time since
   * its last byte counts: the 408 comes `idleTimeout` after the client went
   * quiet, whichever middleware was waiting. Timeouts of 4 s or more are
   * kept by a coarse clock and may end up to one second late, never early.
   *
   * @default {30000}
   */
  idleTimeout?: number;
  /**
   * Milliseconds the whole body may take to arrive, from the start of the
   * parse (or of `methodOverride()`'s wait for the body, when that ran out
   * first) to its end (upload handlers' time included), before failing with
   * a `FormDataTimeoutError` (status 408): a client that trickles the body,
   * a byte now and then within `idleTimeout`, still cannot keep a parse
   * going forever. The default allows a 64 MiB body (the default
   * `maxTotalSize`) at about 220 KiB/s; raise it with `maxTotalSize` for
   * large uploads over slow links. `0` or `Infinity` waits forever.
   *
   * @default {300000} (5 minutes)
   */
  bodyTimeout?: number;
  /**
   * Receives each uploaded file while it streams in and returns what the
   * `FormData` holds for it. Without one, files are kept in memory as
   * `File`s (bounded by `maxFileSize` and `maxFiles`).
   */
  uploadHandler?: FileUploadHandler;
}

/**
 * Parses the body of `request` into `FormData`.
 *
 * `multipart/form-data` is parsed as it streams in, by a parser that keeps
 * about one network chunk in memory; `application/x-www-form-urlencoded`
 * is read whole (up to `maxTotalSize`): a body of at most 64 KiB that
 * declares its `Content-Length` in one native read, which must finish
 * within `idleTimeout` (or `bodyTimeout`, when shorter). Any other content
 * type, and a request without a body, give an empty `FormData`. On failure
 * the body is cancelled, uploads are told through their `signal`, and a
 * {@linkcode FormDataParseError} is thrown: status 400 for a malformed
 * body, 413 for a limit, 408 for an idle or body timeout.
 *
 * @example Parse a form outside the middleware
 * ```ts
 * import { parseFormData } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const form = new FormData();
 * form.append("title", "Hello");
 * form.append("file", new File(["data"], "a.txt", { type: "text/plain" }));
 * const request = new Request("http://localhost/", { method: "POST", body: form });
 *
 * const parsed = await parseFormData(request, { maxFileSize: 1024 });
 * parsed.get("title"); // "Hello"
 * (parsed.get("file") as File).name; // "a.txt"
 * ```
 *
 * @param request The request whose body to read.
 * @param options Limits, idle timeout and upload handler.
 * @returns The parsed form.
 */
export async function parseFormData(
  request: Request,
  options: ParseFormDataOptions = {},
): Promise<FormData> {
  // Awaited so that a bad option rejects the promise instead of throwing.
  return await parseWithLimits(request, resolveLimits(options));
}

/** The body is gone before the parser ran: a bug in the app, named. */
function bodyTaken(how: string): TypeError {
  return new TypeError(
    `The request body was already ${how} before the form parser ran (request.text(), .json(), .formData(), .arrayBuffer() or body.getReader() in an earlier middleware or handler): put formData() before what reads the body, or have that code read a request.clone()`,
  );
}

/**
 * `parseFormData` with limits already resolved: `formData()` resolves them
 * once, when it is created, not on every request.
 */
export async function parseWithLimits(
  request: Request,
  limits: Limits,
): Promise<FormData> {
  return await parseWithLimitsNow(request, limits);
}

/**
 * `parseWithLimits`, with the form itself when nothing is left to wait
 * for (a body that is not a form; on Bun, a small urlencoded body that has
 * already arrived), so `formData()` can answer synchronously. Throws what
 * `parseWithLimits` rejects with.
 */
export function parseWithLimitsNow(
  request: Request,
  limits: Limits,
): FormData | Promise<FormData> {
  const parsed = parseFormNow(request, limits);
  if (parsed instanceof Promise) return parsed.then(toForm);
  return toForm(parsed);
}

function toForm(parsed: ParsedForm): FormData {
  return parsed instanceof FormData ? parsed : formFromPairs(parsed);
}

/**
 * A parsed form: a `FormData` (multipart), or a urlencoded body's names and
 * values in turn, turned into a `FormData` only when one is asked for.
 */
export type ParsedForm = FormData | FieldPairs;

/** An empty form, as pairs: no `FormData` made for it. */
const NO_FIELDS: FieldPairs = [];

/**
 * `parseWithLimitsNow`, with a urlencoded body (or no form body at all) as
 * pairs. Throws what `parseWithLimits` rejects with.
 */
export function parseFormNow(
  request: Request,
  limits: Limits,
): ParsedForm | Promise<ParsedForm> {
  return parseFormThen(request, limits, same, rethrow);
}

function same(form: ParsedForm): ParsedForm {
  return form;
}

function rethrow(error: unknown): never {
  throw error;
}

/**
 * The parsed form handed to `done`, or the error (a `FormDataParseError`,
 * or the `TypeError` of a body already taken) to `fail`: at once when
 * nothing is left to wait for, else from one callback on the body's read,
 * so `formData()` continues to the handler without promises of its own in
 * between. A urlencoded body (or no form body at all) comes as pairs, from
 * which `formData()` makes the `FormData` or the record a handler asks
 * for. What `done` throws is thrown (or rejects), not passed to `fail`.
 */
export function parseFormThen<T>(
  request: Request,
  limits: Limits,
  done: (form: ParsedForm) => T | Promise<T>,
  fail: (error: unknown) => T | Promise<T>,
): T | Promise<T> {
  return parseFormInto(new CallbackFormRead(request, limits, done, fail));
}

/**
 * A form's read, subclassed by its caller (`formData()`): `done` gets the
 * parsed form, `fail` what went wrong, as in {@linkcode parseFormThen}.
 * One object a request is the caller's state, the continuation and,
 * while a small body is awaited, the read's entry on the deadline clock.
 */
export abstract class FormRead<T> extends WholeBodyRead<T> {
  /** The request whose body is read. */
  abstract readonly request: Request;

  /** The parsed form. */
  abstract done(form: ParsedForm): T | Promise<T>;

  /** What stopped the parse. */
  abstract fail(error: unknown): T | Promise<T>;

  /** A small urlencoded body, read whole. */
  body(bytes: Uint8Array): T | Promise<T> {
    let pairs: FieldPairs;
    try {
      pairs = parseUrlEncodedPairs(bytes, this.limits);
    } catch (error) {
      return this.fail(error);
    }
    return this.done(pairs);
  }

  /** A whole-body read that failed. */
  error(error: unknown): T | Promise<T> {
    return this.fail(refusedUnread(this.request, error));
  }
}

/** {@linkcode parseFormThen}'s read: two functions. */
class CallbackFormRead<T> extends FormRead<T> {
  readonly request: Request;
  readonly #done: (form: ParsedForm) => T | Promise<T>;
  readonly #fail: (error: unknown) => T | Promise<T>;

  constructor(
    request: Request,
    limits: Limits,
    done: (form: ParsedForm) => T | Promise<T>,
    fail: (error: unknown) => T | Promise<T>,
  ) {
    super(limits);
    this.request = request;
    this.#done = done;
    this.#fail = fail;
  }

  done(form: ParsedForm): T | Promise<T> {
    return this.#done(form);
  }

  fail(error: unknown): T | Promise<T> {
    return this.#fail(error);
  }
}

/** {@linkcode parseFormThen} with the continuation as a {@linkcode FormRead}. */
export function parseFormInto<T>(read: FormRead<T>): T | Promise<T> {
  const { request, limits } = read;
  const kind = formBodyKind(request.headers.get("content-type"));
  if (kind === null) return read.done(NO_FIELDS);
  // A body that is absent is not used either, so this may come first.
  if (request.bodyUsed) return read.fail(bodyTaken("read"));
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (
    kind.kind === "urlencoded" && declared <= WHOLE_BODY_MAX &&
    declared <= limits.maxTotalSize
  ) {
    // Before `request.body`: making the stream object would take Deno off
    // its native whole-body read.
    return readWholeBodyInto(request, bodyProgress(request), read);
  }
  return parseStream(request, kind, declared, limits).then(
    (form) => read.done(form),
    (error) => read.fail(error),
  );
}

/**
 * A whole-body read that failed: refused unread when another reader holds
 * the body. (Looking first would make the stream object, and Deno's
 * whole-body read slower.)
 */
function refusedUnread(request: Request, error: unknown): unknown {
  if (!request.bodyUsed && request.body?.locked) {
    return bodyTaken("taken by a reader");
  }
  return error;
}

/** A body read as a stream: multipart, or urlencoded of unknown or large size. */
async function parseStream(
  request: Request,
  kind: FormBodyKind,
  declared: number,
  limits: Limits,
): Promise<ParsedForm> {
  if (request.body?.locked) throw bodyTaken("taken by a reader");
  if (request.body === null) {
    if (kind.kind === "multipart") {
      throw new FormDataParseError("The multipart body is empty");
    }
    return NO_FIELDS;
  }
  const progress = bodyProgress(request);
  const body = new BodyReader(
    request.body,
    progress === undefined ? limits : { ...limits, progress },
    Number.isSafeInteger(declared) ? declared : undefined,
  );
  if (declared > limits.maxTotalSize) {
    const error = new MaxTotalSizeExceededError(limits.maxTotalSize);
    await body.cancel(error);
    throw error;
  }
  if (kind.kind === "urlencoded") return parseUrlEncodedBody(body, limits);
  if (kind.boundary === undefined || kind.boundary === "") {
    const error = new FormDataParseError(
      "The multipart/form-data content type has no boundary",
    );
    await body.cancel(error);
    throw error;
  }
  return parseMultipartBody(body, kind.boundary, limits);
}
