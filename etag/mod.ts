/**
 * Entity tags and `304 Not Modified` for the fetch router: {@linkcode etag}.
 *
 * Rules (RFC 9110 §8.8.3, §13, §15.4.5):
 *
 * - Only `GET` and `HEAD` answered `200` are tagged; other statuses ignore
 *   the preconditions (§13.2.1).
 * - The tag is the SHA-1 of the body, base64url, quoted: `"5Xw...Q"`
 *   (`W/"..."` with `weak: true`), hashed while the body is read. An
 *   `ETag` the handler set is kept and used as it is.
 * - Which bodies are tagged, decided by what the response says, not by
 *   I/O timing wherever the response lets it: a body the toolkit made from
 *   a string, and a body that declares a `Content-Length` of at most
 *   `maxBytes` (a file served with its size: read whole, however slowly
 *   it comes), always; a body over `maxBytes` (declared or counted) and a
 *   `text/event-stream`, never. A stream of unknown length is read while
 *   its chunks are at hand: one made in memory (a string or bytes given to
 *   `new Response()`) is tagged, one still being produced (a page streamed
 *   while it is produced) passes through untagged so time to first byte
 *   does not change. Whether an I/O-fed stream of unknown length (a file
 *   without `Content-Length`) is at hand depends on the disk: give such a
 *   body its `Content-Length` to have it tagged every time. Untagged
 *   answers are sent as they are, whatever the preconditions.
 * - Preconditions in the order of §13.2.2: `If-Match` (strong comparison:
 *   a weak tag never matches; `*` matches) else `If-Unmodified-Since`
 *   (against `Last-Modified`), failing with `412 Precondition Failed`;
 *   then `If-None-Match` (weak comparison: `W/"x"` matches `"x"`; a list
 *   matches when any member does; `*` matches) else `If-Modified-Since`
 *   (against `Last-Modified`), answered `304 Not Modified`. Dates count
 *   only when the answer has `Last-Modified`; unparsable ones are ignored.
 * - A `304` has no body and, of the `200`'s headers, only `Cache-Control`,
 *   `Content-Location`, `Date`, `ETag`, `Expires`, `Vary` (§15.4.5) and
 *   `Set-Cookie` (a cookie the page sets must still reach the browser).
 *   `HEAD` is answered the same way.
 * - Put `etag()` after `compress()` in the middleware list: the tag is
 *   then that of the uncompressed body, which `compress()` marks weak.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { etag } from "@fetchkit/toolkit/etag-middleware";
 *
 * const router = createRouter({ middleware: [etag()] });
 * router.get("/", () => new Response("hello"));
 *
 * const first = await router.fetch(new Request("http://localhost/"));
 * const tag = first.headers.get("ETag")!; // '"qvTGHdzF6KLavt4PO0gs2a6pQ00"'
 * const again = await router.fetch(
 *   new Request("http://localhost/", { headers: { "If-None-Match": tag } }),
 * );
 * again.status; // 304
 * ```
 *
 * @module
 */

import type { Middleware } from "../router/types.ts";
import { NativeResponse } from "../response/native.ts";
import { editHeaders } from "../response/edit_headers.ts";
import { rememberedText, utf8Length } from "../response/body_size.ts";
import { readReady, readWhole } from "../response/read_ready.ts";
import { declaredLength } from "./_whole.ts";
import { createBodyHash } from "./_hash.ts";
import { evaluate } from "./_conditional.ts";

/** Options of {@linkcode etag}. */
export interface EtagOptions {
  /** Make weak tags (`W/"..."`). @default {false} */
  weak?: boolean;
  /**
   * Largest body hashed, in bytes: a larger body is sent untagged (it is
   * held in memory while it is hashed). @default {1048576}
   */
  maxBytes?: number;
}

/** The headers a `304` keeps (RFC 9110 §15.4.5), and `Set-Cookie`. */
const KEPT = [
  "cache-control",
  "content-location",
  "date",
  "etag",
  "expires",
  "vary",
] as const;

/**
 * Marks a `304` with the `200` it stands for, so that `compress()` outside
 * can give it the `Vary` and weak `ETag` it gives that `200` (RFC 9110
 * §15.4.5: the headers the `200` would have had). A registered symbol:
 * the two folders share no module.
 */
const STANDS_FOR = Symbol.for("fetchkit.notModified.standsFor");

/** What `compress()` needs to know of the `200` behind a `304`. */
interface StandsFor {
  readonly headers: Headers;
  /** The body's length in bytes, when known. */
  readonly length: number | undefined;
  /** The string the body was made from, when the toolkit made it. */
  readonly text: string | undefined;
}

/** The `304` for a `200` with these headers, tag and body. */
function notModified(
  headers: Headers,
  tag: string,
  length: number | undefined,
  text: string | undefined,
): Response {
  const kept = new Headers();
  for (const name of KEPT) {
    const value = headers.get(name);
    if (value !== null) kept.set(name, value);
  }
  kept.set("ETag", tag);
  for (const cookie of headers.getSetCookie()) {
    kept.append("Set-Cookie", cookie);
  }
  const response = new NativeResponse(null, {
    status: 304,
    statusText: "Not Modified",
    headers: kept,
  });
  (response as { [STANDS_FOR]?: StandsFor })[STANDS_FOR] = {
    headers,
    length,
    text,
  };
  return response;
}

const PRECONDITION_FAILED = "Precondition Failed";

/** The `412` for an `If-Match` or `If-Unmodified-Since` that fails. */
function preconditionFailed(tag: string): Response {
  return new NativeResponse(PRECONDITION_FAILED, {
    status: 412,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Length": String(PRECONDITION_FAILED.length),
      ETag: tag,
    },
  });
}

function rebuilt(response: Response, body: BodyInit | null): Response {
  return new NativeResponse(body, {
    status: response.status,
    statusText: response.statusText,
    headers: new Headers(response.headers),
  });
}

function setTag(headers: Headers, tag: string): void {
  headers.set("ETag", tag);
}

/** `response` with the `ETag` header, copied if its headers are immutable. */
function withTag(response: Response, tag: string): Response {
  return editHeaders(response, setTag, tag);
}

/**
 * Tags `200` answers to `GET` and `HEAD` with an entity tag made from the
 * body, answers `304 Not Modified` when the request's `If-None-Match`
 * names it, and `412 Precondition Failed` when its `If-Match` does not.
 * See the module docs for the rules.
 *
 * @example Weak tags, bodies up to 256 KiB
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { etag } from "@fetchkit/toolkit/etag-middleware";
 *
 * const router = createRouter({
 *   middleware: [etag({ weak: true, maxBytes: 256 * 1024 })],
 * });
 * router.get("/items", () => Response.json([1, 2, 3]));
 *
 * const response = await router.fetch(new Request("http://localhost/items"));
 * response.headers.get("ETag")?.startsWith('W/"'); // true
 * ```
 *
 * @param options Weak tags, and the largest body hashed.
 * @returns The middleware.
 * @throws {RangeError} When `maxBytes` is not a whole number ≥ 0.
 */
export function etag(options: EtagOptions = {}): Middleware {
  const weak = options.weak ?? false;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(
      `etag(): maxBytes must be a whole number of bytes >= 0, got ${maxBytes}`,
    );
  }
  const prefix = weak ? 'W/"' : '"';

  return async function etag(context, next) {
    const response = await next();
    const method = context.request.method;
    if ((method !== "GET" && method !== "HEAD") || response.status !== 200) {
      return response;
    }
    const request = context.request.headers;
    const lastModified = response.headers.get("last-modified");
    const own = response.headers.get("etag");
    if (own !== null) {
      const outcome = evaluate(request, own, lastModified);
      if (outcome === "send") return response;
      // A body left unread may hold a file open.
      const text = rememberedText(response);
      if (text === undefined) response.body?.cancel().catch(() => {});
      return outcome === "not-modified"
        ? notModified(response.headers, own, undefined, text)
        : preconditionFailed(own);
    }
    const type = response.headers.get("content-type");
    if (type !== null && /^\s*text\/event-stream/i.test(type)) {
      return response;
    }
    const hash = createBodyHash();
    const text = rememberedText(response);
    let bytes: Uint8Array<ArrayBuffer> | undefined;
    if (text !== undefined) {
      // A body the toolkit made from a string: hash the string, keep the
      // response (its string body is what Deno.serve sends fastest).
      if (
        text.length > maxBytes ||
        (text.length * 3 > maxBytes && utf8Length(text) > maxBytes)
      ) {
        return response;
      }
      hash.update(text);
    } else {
      const body = response.body;
      if (body !== null) {
        const declared = declaredLength(response.headers);
        if (declared !== undefined && declared > maxBytes) return response;
        const onChunk = (chunk: Uint8Array) => hash.update(chunk);
        // A declared length: finite, and within maxBytes: read it whole,
        // whatever the I/O timing, so the same answer is always tagged.
        const read = declared !== undefined
          ? await readWhole(body, Math.min(declared, maxBytes), onChunk)
          : await readReady(body, maxBytes, onChunk);
        if ("stream" in read) return rebuilt(response, read.stream);
        bytes = read.whole;
      } else {
        bytes = new Uint8Array(0);
      }
    }
    const tag = `${prefix}${await hash.digest()}"`;
    const outcome = evaluate(request, tag, lastModified);
    if (outcome === "not-modified") {
      return notModified(response.headers, tag, bytes?.byteLength, text);
    }
    if (outcome === "precondition-failed") return preconditionFailed(tag);
    if (bytes === undefined) return withTag(response, tag);
    const tagged = rebuilt(response, bytes);
    tagged.headers.set("ETag", tag);
    return tagged;
  };
}
