/**
 * Method override: lets an HTML form, which can only send GET and POST,
 * reach PUT, PATCH and DELETE routes.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
 *
 * const router = createRouter({ middleware: [methodOverride()] });
 * router.delete("/posts/:id", ({ params }) => new Response(`deleted ${params.id}`));
 * // <form method="post" action="/posts/1">
 * //   <input type="hidden" name="_method" value="DELETE">
 * // </form>
 * ```
 *
 * @module
 */

import type { Middleware } from "./types.ts";
import type { RequestContext } from "./context.ts";
import { NativeResponse } from "../response/native.ts";
import { requestWithBody } from "../runtime/request_copy.ts";
import { noteBodyProgress } from "../body_progress/body_progress.ts";
import { DEFAULTS } from "../form_data/limits.ts";
import { declaredLength, tooLarge } from "../validation/read_body.ts";

/** Options of {@linkcode methodOverride}. */
export interface MethodOverrideOptions {
  /**
   * The form field that carries the method.
   *
   * @default {"_method"}
   */
  fieldName?: string;
  /**
   * How long to wait, in milliseconds, for the start of a form body that
   * `formData()` has not parsed yet, so this middleware can never hang a
   * request. When the wait ends first, the field is looked for in what has
   * arrived (a slow upload that sent the field first keeps its override);
   * a client that stalled before sending it gets none (the request goes on
   * as POST, and the body's own reader reports the stall). The wait counts
   * toward `formData()`'s `idleTimeout` and `bodyTimeout`: a client that
   * sends nothing gets its 408 after `idleTimeout`, not after this wait
   * plus `idleTimeout`, or after this wait when it is the longer: keep it
   * no longer than `idleTimeout` (30 s by default).
   *
   * @default {10000}
   */
  timeout?: number;
  /**
   * Largest form body a `POST` may declare (`Content-Length`), in bytes.
   * A larger one is refused with `413` at once, before any wait for the
   * body, so a client that declares more than it sends cannot hold the
   * request for `timeout`. Set it to the form limit of your routes (the
   * `maxTotalSize` of their `formData()`), which run only after this
   * middleware has read the method. Default: the form parser's own
   * `maxTotalSize` default, 64 MiB.
   *
   * @default {67108864}
   */
  maxBodyBytes?: number;
}

const OVERRIDABLE = new Set(["PUT", "PATCH", "DELETE"]);

/**
 * How much of a body is read to look for the field. Forms put the hidden
 * field first (it is written before the other inputs), so a prefix suffices,
 * and a large upload is never buffered twice.
 */
const MAX_PREFIX_BYTES = 64 * 1024;

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Reads up to `MAX_PREFIX_BYTES` of `body`, one branch of the request's body;
 * the request the rest of the chain reads holds the other, unread.
 */
async function readPrefix(
  request: Request,
  body: ReadableStream<Uint8Array>,
  timeout: number,
): Promise<{ bytes: Uint8Array; complete: boolean } | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = false;
  const startedAt = performance.now();
  let lastDataAt = startedAt;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) =>
    timer = setTimeout(resolve, timeout, "expired")
  );
  try {
    while (size < MAX_PREFIX_BYTES) {
      const step = await Promise.race([reader.read(), expired]);
      if (step === "expired") {
        // A slow or stalled client: the field is looked for in what came,
        // and the form parser's timeouts count from this wait, not from
        // its own start.
        noteBodyProgress(request, { bytes: size, startedAt, lastDataAt });
        break;
      }
      const { done, value } = step;
      if (done) {
        complete = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
      lastDataAt = performance.now();
    }
  } catch {
    // A broken body is for whoever reads the real one to report.
    return undefined;
  } finally {
    clearTimeout(timer);
    // Cancelling our copy leaves the request's own body flowing.
    if (!complete) reader.cancel().catch(() => {});
  }
  // One chunk can carry more than the limit (Bun reads a whole in-memory
  // body at once): what lies past it is not looked at, however it came.
  if (size > MAX_PREFIX_BYTES) complete = false;
  const bytes = new Uint8Array(Math.min(size, MAX_PREFIX_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    if (offset === bytes.byteLength) break;
    const part = chunk.subarray(0, bytes.byteLength - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return { bytes, complete };
}

function fromUrlEncoded(
  bytes: Uint8Array,
  complete: boolean,
  fieldName: string,
): string | null {
  let text = utf8.decode(bytes);
  if (!complete) {
    // Keep whole pairs only: the last one may be cut short.
    const end = text.lastIndexOf("&");
    if (end === -1) return null;
    text = text.slice(0, end);
  }
  return new URLSearchParams(text).get(fieldName);
}

async function fromMultipart(
  bytes: Uint8Array,
  complete: boolean,
  contentType: string,
  fieldName: string,
): Promise<string | null> {
  let body: Uint8Array<ArrayBuffer> = bytes as Uint8Array<ArrayBuffer>;
  if (!complete) {
    const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
    if (match === null) return null;
    const boundary = match[1] ?? match[2];
    // Cut at the last delimiter in the prefix, then close the body there,
    // so that every part before it parses whole. Latin-1 keeps one character
    // per byte, so string indexes are byte offsets.
    const end = latin1.decode(bytes).lastIndexOf(`\r\n--${boundary}`);
    if (end === -1) return null;
    const closing = encoder.encode(`\r\n--${boundary}--\r\n`);
    body = new Uint8Array(end + closing.byteLength);
    body.set(bytes.subarray(0, end));
    body.set(closing, end);
  }
  try {
    const form = await new NativeResponse(body, {
      headers: { "Content-Type": contentType },
    }).formData();
    const value = form.get(fieldName);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

async function readField(
  context: RequestContext,
  fieldName: string,
  timeout: number,
): Promise<string | null> {
  // A formData() middleware that ran earlier has parsed the body already.
  if (context.has(FormData)) {
    const value = context.get(FormData)?.get(fieldName);
    return typeof value === "string" ? value : null;
  }
  const request = context.request;
  if (request.body === null || request.bodyUsed) return null;
  const contentType = request.headers.get("Content-Type") ?? "";
  const semicolon = contentType.indexOf(";");
  const mediaType =
    (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim()
      .toLowerCase();
  if (
    mediaType !== "application/x-www-form-urlencoded" &&
    mediaType !== "multipart/form-data"
  ) {
    return null;
  }
  // Two branches of the body: one to peek at, one for the rest of the
  // chain, whose request is a copy holding it (see requestWithBody).
  const [peek, rest] = request.body.tee();
  const copy = requestWithBody(request, rest);
  (context as { request: Request }).request = copy;
  const prefix = await readPrefix(copy, peek, timeout);
  if (prefix === undefined) return null;
  return mediaType === "multipart/form-data"
    ? fromMultipart(prefix.bytes, prefix.complete, contentType, fieldName)
    : fromUrlEncoded(prefix.bytes, prefix.complete, fieldName);
}

/**
 * Router middleware that lets an HTML form reach PUT, PATCH and DELETE
 * routes. For a `POST` request only, it takes the method from the
 * `X-HTTP-Method-Override` header or, without that header, from the form
 * field `fieldName` (default `_method`) of an urlencoded or multipart body,
 * and sets `context.method`, which the router then uses to pick the route.
 * Only `PUT`, `PATCH` and `DELETE` (in any letter case) are accepted; any
 * other value is ignored.
 *
 * The body is not consumed: the field is read from an already parsed
 * `FormData` in the context (a `formData()` router middleware placed
 * before this one), or else from a copy of the first 64 KiB of the body,
 * so later middleware and the handler still read the whole body. Put the
 * hidden field first in the form, as usual, so that it falls within those
 * 64 KiB even when files follow.
 *
 * Add it to the router's `middleware` (it has to run before routing).
 *
 * @example A delete button in an HTML form
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
 *
 * const router = createRouter({ middleware: [methodOverride()] });
 * router.delete("/posts/:id", ({ params }) => new Response(`deleted ${params.id}`));
 *
 * const response = await router.fetch(
 *   new Request("http://localhost/posts/7", {
 *     method: "POST",
 *     body: new URLSearchParams({ _method: "DELETE" }),
 *   }),
 * );
 * await response.text(); // "deleted 7"
 * ```
 *
 * A `POST` whose declared `Content-Length` is over `maxBodyBytes` is
 * answered `413` (its message names the limit and the declared length)
 * before anything is read (no wait).
 *
 * @param options `fieldName`: the form field to read; `timeout`; `maxBodyBytes`.
 * @returns The middleware.
 */
export function methodOverride(
  options: MethodOverrideOptions = {},
): Middleware {
  const {
    fieldName = "_method",
    timeout = 10_000,
    maxBodyBytes = DEFAULTS.maxTotalSize,
  } = options;
  if (!(maxBodyBytes >= 0)) {
    throw new RangeError(
      `methodOverride() maxBodyBytes must be a number of bytes >= 0, got ${
        String(maxBodyBytes)
      }`,
    );
  }
  return async (context) => {
    if (context.method !== "POST") return;
    const override = context.headers.get("X-HTTP-Method-Override");
    if (override === null && context.request.body !== null) {
      const declared = declaredLength(context.request);
      if (declared !== undefined && declared > maxBodyBytes) {
        const error = tooLarge(maxBodyBytes, declared);
        await context.request.body.cancel(error).catch(() => {});
        // Answered here (text, or JSON for a client that prefers it), not
        // thrown: an app's error boundary may make any throw a 500.
        return error.toResponse(context.request);
      }
    }
    const wanted = override ??
      await readField(context, fieldName, timeout);
    if (wanted === null) return;
    const method = wanted.trim().toUpperCase();
    if (OVERRIDABLE.has(method)) context.method = method;
  };
}
