// The bounded body reader under `readBody()`, `parseJson()` and
// `bodyLimit()`'s 413: `formData()`'s own `BodyReader`, so one set of idle and
// whole-body timeouts (on the one shared watchdog timer) covers every body.
// Its form errors are turned into `HttpError`s that speak of `maxBytes`.

import { HttpError } from "../http_error/mod.ts";
import { BodyReader } from "../form_data/_body.ts";
import { DEFAULTS } from "../form_data/_limits.ts";
import { bodyProgress } from "../form_data/body_progress.ts";
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

/** 1 MiB: the default `maxBytes`. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Fills in defaults; a negative, NaN or non-number limit is a `RangeError`
 * naming the option (a bug in the caller, not the client's fault).
 */
export function resolveBodyLimits(
  options: Partial<BodyLimits> | undefined,
  caller: string,
): BodyLimits {
  return {
    maxBytes: limit(options?.maxBytes, DEFAULT_MAX_BYTES, "maxBytes", caller),
    idleTimeout: limit(
      options?.idleTimeout,
      DEFAULTS.idleTimeout,
      "idleTimeout",
      caller,
    ),
    bodyTimeout: limit(
      options?.bodyTimeout,
      DEFAULTS.bodyTimeout,
      "bodyTimeout",
      caller,
    ),
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
  const value = header.trim();
  return /^\d{1,15}$/.test(value) ? Number(value) : NaN;
}

/**
 * Reads `request`'s body whole, at most `maxBytes` of it: a declared length
 * past the limit is refused before reading, and the stream is counted while
 * it is read, whatever `Content-Length` says (absent, wrong, non-numeric,
 * chunked), so no more than the limit plus one network chunk is ever held.
 * Past the limit is 413 even when the length also mismatches; otherwise a
 * length that does not match the body is 400.
 */
export async function readBytes(
  request: Request,
  limits: BodyLimits,
): Promise<Uint8Array> {
  if (request.bodyUsed) {
    throw new TypeError(
      "The request body was already read: read it once, with one reader",
    );
  }
  const declared = declaredLength(request);
  const stream = request.body;
  if (declared !== undefined && declared > limits.maxBytes) {
    const error = tooLarge(limits.maxBytes, declared);
    if (stream !== null) await stream.cancel(error).catch(() => {});
    throw error;
  }
  if (stream === null) return checkLength(new Uint8Array(0), declared);
  const progress = bodyProgress(request);
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

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The bytes as UTF-8 text, a leading byte order mark dropped; 400 naming the
 * byte offset of the first invalid sequence.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
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
