/**
 * The bounded body reader under `readBody()` and `parseJson()`: `formData()`'s
 * own readers (`BodyReader`, and `readWholeBody` for a small declared body),
 * so one set of idle and whole-body timeouts, on the one shared watchdog
 * timer, covers every body. Their form errors are turned into `HttpError`s
 * that speak of `maxBytes`.
 *
 * @module
 */

import { HttpError } from "../http_error/mod.ts";
import { BodyReader } from "../form_data/body_reader.ts";
import { DEFAULTS, type Limits } from "../form_data/limits.ts";
import { readWholeBodyThen } from "../form_data/whole_body.ts";
import { bodyProgress } from "../body_progress/body_progress.ts";
import {
  FormDataParseError,
  FormDataTimeoutError,
  MaxTotalSizeExceededError,
} from "../form_data/errors.ts";

/** Limits of a body read; see `ReadBodyOptions`. */
export interface BodyLimits {
  maxBytes: number;
  idleTimeout: number;
  bodyTimeout: number;
}

/** The limits, and the same as the form readers take them. */
export interface ResolvedLimits extends BodyLimits {
  form: Limits;
}

/**
 * The largest declared body read in one native read (about twice the speed
 * of a chunked read for 100 KB in process): it must arrive whole within
 * `idleTimeout`, which at the default 30 s asks a client for 9 KB/s.
 */
export const WHOLE_READ_MAX = 256 * 1024;

/** 1 MiB: the default `maxBytes`. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Fills in defaults; a negative, NaN or non-number limit is a `RangeError`
 * naming the option (a bug in the caller, not the client's fault).
 */
export function resolveBodyLimits(
  options: Partial<BodyLimits> | undefined,
  caller: string,
): ResolvedLimits {
  if (
    options === undefined ||
    (options.maxBytes === undefined && options.idleTimeout === undefined &&
      options.bodyTimeout === undefined)
  ) {
    return defaultLimits ??= resolve(undefined, caller);
  }
  return resolve(options, caller);
}

let defaultLimits: ResolvedLimits | undefined;

function resolve(
  options: Partial<BodyLimits> | undefined,
  caller: string,
): ResolvedLimits {
  const maxBytes = limit(
    options?.maxBytes,
    DEFAULT_MAX_BYTES,
    "maxBytes",
    caller,
  );
  const idleTimeout = limit(
    options?.idleTimeout,
    DEFAULTS.idleTimeout,
    "idleTimeout",
    caller,
  );
  const bodyTimeout = limit(
    options?.bodyTimeout,
    DEFAULTS.bodyTimeout,
    "bodyTimeout",
    caller,
  );
  return {
    maxBytes,
    idleTimeout,
    bodyTimeout,
    form: {
      ...DEFAULTS,
      maxTotalSize: maxBytes,
      idleTimeout,
      bodyTimeout,
      uploadHandler: undefined,
    },
  };
}

function limit(
  value: number | undefined,
  fallback: number,
  name: string,
  caller: string,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new RangeError(
      `${caller} option ${name} must be a number >= 0, got ${String(value)}`,
    );
  }
  return value;
}

/** The 413 for a body past `maxBytes`. */
export function tooLarge(maxBytes: number, declared?: number): HttpError {
  return new HttpError(
    413,
    declared === undefined
      ? `Request body is larger than maxBytes (${maxBytes} bytes)`
      : `Request body is larger than maxBytes (${maxBytes} bytes): Content-Length declares ${declared} bytes`,
  );
}

/**
 * `Content-Length` as a number: `undefined` when absent, `NaN` when it is not
 * a decimal byte count (`abc`, `-1`, `1e3`, `10, 12`).
 */
export function declaredLength(request: Request): number | undefined {
  const header = request.headers.get("content-length");
  if (header === null) return undefined;
  // A loop over the digits, not `trim()` and a regular expression (a
  // third of the cost of this call on every body read, on Deno): the same
  // values accepted.
  let start = 0, end = header.length;
  while (start < end && isBlank(header.charCodeAt(start))) start++;
  while (end > start && isBlank(header.charCodeAt(end - 1))) end--;
  if (end === start || end - start > 15) return NaN;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = header.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return value;
}

/** What `String.prototype.trim()` takes off a header value (a ByteString). */
function isBlank(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160;
}

/**
 * Reads `request`'s body whole, at most `maxBytes` of it: a declared length
 * past the limit is refused before reading; a body that declares at most
 * {@linkcode WHOLE_READ_MAX} is read in one native read; any other is counted while it is read,
 * whatever `Content-Length` says (absent, wrong, non-numeric, chunked), so
 * no more than the limit plus one network chunk is ever held.
 * Past the limit is 413 even when the length also mismatches; otherwise a
 * length that does not match the body is 400.
 */
export async function readBytes(
  request: Request,
  limits: ResolvedLimits,
): Promise<Uint8Array> {
  return await readBytesThen(request, limits, same);
}

function same(bytes: Uint8Array): Uint8Array {
  return bytes;
}

/**
 * {@linkcode readBytes}, with `done` run on the bytes: for a small declared
 * body, inside the read's own callback, or at once when the bytes are there
 * already (Bun, or Node under `serve()`), so that `parseJson` adds no
 * promise of its own to the read's. It may throw (a body already read, a
 * length past the limit, what `done` throws) or return a rejected promise:
 * callers take both.
 */
export function readBytesThen<T>(
  request: Request,
  limits: ResolvedLimits,
  done: (bytes: Uint8Array) => T | Promise<T>,
): T | Promise<T> {
  if (request.bodyUsed) {
    throw new TypeError(
      "The request body was already read: read it once, with one reader",
    );
  }
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limits.maxBytes) {
    return refuseDeclared(request, tooLarge(limits.maxBytes, declared));
  }
  const progress = bodyProgress(request);
  if (
    declared !== undefined && declared <= WHOLE_READ_MAX &&
    declared <= limits.maxBytes
  ) {
    // One native read, as `formData()` does for a small form: HTTP servers
    // (Deno, Node, Bun) end a body at its declared length, so this holds at
    // most that. Only a `Request` built in process with a stream longer
    // than its `Content-Length` is read whole before it is refused.
    return readWholeBodyThen(
      request,
      limits.form,
      progress,
      (bytes) => done(checkLength(bytes, declared)),
      (error) => {
        throw readError(error, limits.maxBytes);
      },
    );
  }
  return readStreamed(request, limits, declared, progress).then(done);
}

async function refuseDeclared(
  request: Request,
  error: unknown,
): Promise<never> {
  await request.body?.cancel(error).catch(() => {});
  throw error;
}

async function readStreamed(
  request: Request,
  limits: ResolvedLimits,
  declared: number | undefined,
  progress: ReturnType<typeof bodyProgress>,
): Promise<Uint8Array> {
  // Only now: making the stream object takes Deno off the native read.
  const stream = request.body;
  if (stream === null) return checkLength(new Uint8Array(0), declared);
  const reader = new BodyReader(
    stream,
    {
      maxTotalSize: limits.maxBytes,
      idleTimeout: limits.idleTimeout,
      bodyTimeout: limits.bodyTimeout,
      progress,
    },
    Number.isSafeInteger(declared) ? declared : undefined,
  );
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk === null) break;
      chunks.push(chunk);
    }
  } catch (error) {
    await reader.cancel(error);
    throw readError(error, limits.maxBytes);
  }
  return checkLength(concat(chunks, reader.total), declared);
}

function checkLength(
  bytes: Uint8Array,
  declared: number | undefined,
): Uint8Array {
  if (declared === undefined || declared === bytes.length) return bytes;
  if (Number.isNaN(declared)) {
    throw new HttpError(
      400,
      "Content-Length is not a decimal byte count",
    );
  }
  throw new HttpError(
    400,
    `Request body is ${bytes.length} bytes but Content-Length declares ${declared}`,
  );
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** The form reader's errors, as the HTTP errors of a plain body. */
function readError(error: unknown, maxBytes: number): unknown {
  if (error instanceof MaxTotalSizeExceededError) {
    return tooLarge(maxBytes);
  }
  if (error instanceof FormDataTimeoutError) {
    return new HttpError(408, error.message, { cause: error });
  }
  if (error instanceof FormDataParseError) {
    return new HttpError(
      400,
      "The request body stream failed before the body was complete",
      { cause: error.cause },
    );
  }
  return error;
}

// The lenient decoder has a fast path for ASCII that the fatal one lacks
// (about 3 against 37 µs for 100 KB in Deno): decode leniently, and only a
// text with U+FFFD in it, which an invalid sequence becomes, is decoded
// again to tell a sent U+FFFD from a bad byte.
const lenient = new TextDecoder("utf-8");
const fatal = new TextDecoder("utf-8", { fatal: true });

/**
 * The bytes as UTF-8 text, a leading byte order mark dropped; 400 naming the
 * byte offset of the first invalid sequence.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const text = lenient.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return fatal.decode(bytes);
  } catch {
    throw new HttpError(
      400,
      `Request body is not valid UTF-8 (first bad byte at offset ${
        invalidUtf8Offset(bytes)
      })`,
    );
  }
}

/** Offset of the first byte that starts or breaks an invalid sequence. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) {
      return i;
    }
    i += need + 1;
  }
  return n;
}
