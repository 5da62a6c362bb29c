/**
 * Response compression for the fetch router: {@linkcode compress}.
 *
 * Rules:
 *
 * - Codings: `br` (quality 4 by default; 2 for a body at hand under
 *   8 KiB, see below), `zstd` (level 3) where the
 *   runtime's `node:zlib` has it, `gzip` and `deflate` (level 6). The
 *   request's `Accept-Encoding` picks one by q-value; `*` stands for any
 *   coding it does not name; among equal q-values `br` wins, then `zstd`,
 *   `gzip`, `deflate`. `identity` competes only when named with a higher
 *   q-value. No `Accept-Encoding`, or nothing acceptable (even with
 *   `identity;q=0`): the body is sent as it is, never `406`.
 * - Left alone: `HEAD`, `1xx`, `204`, `206` (a range of the uncompressed
 *   body), a body already `Content-Encoding`ed, a body smaller than
 *   `threshold` bytes, `Cache-Control: no-transform`, and types that do not
 *   compress (images, video, audio, archives, fonts other than TTF/OTF; see
 *   {@linkcode isCompressible}, or give `filter`). A body's length is its
 *   `Content-Length`, or that of the string a response helper made it from,
 *   or, for a body that is complete at once, its bytes; a stream still
 *   being produced is compressed whatever its size.
 * - A compressed answer drops `Content-Length` and `Accept-Ranges` (a body
 *   compressed in one go gets the compressed length from the server), gets
 *   `Content-Encoding`, and a strong `ETag` becomes weak (`W/"..."`): the
 *   bytes differ, the content does not. Every answer that could have been
 *   compressed gets `Vary: Accept-Encoding`, so shared caches keep the two
 *   apart; a `304` from {@linkcode etag} gets the `Vary` and the weak tag
 *   its `200` would have had. With no coding on offer (`encodings: []`, or
 *   only codings the runtime lacks, such as zstd on Node 20) nothing could
 *   be compressed, and nothing gets `Vary`.
 * - A body at hand (complete at once, up to 1 MiB) is compressed in one
 *   `node:zlib` call, the cheapest way (BENCHMARKS.md); any other is
 *   streamed: compressed as it is produced and flushed after each chunk,
 *   so server-sent events and streamed pages arrive as they are written.
 *   gzip and deflate streams use Deno's `CompressionStream`, which flushes
 *   each chunk; Node's and Bun's do not, so there `node:zlib` streams them
 *   (`CompressionStream` where `node:zlib` is missing, as in workerd).
 * - Brotli's cost per call is mostly set-up (its hash tables are cleared
 *   for every body): on Deno quality 4 costs about 1.16 M instructions
 *   for a 1.5 KB page, quality 2 about 0.64 M, for 745 bytes of output
 *   where quality 4 gives 643 (BENCHMARKS.md, "Fifth round: the whole
 *   app"). So, unless `level.br` is given, a body at hand under
 *   8 KiB (8,192 bytes) is compressed at quality 2: such a page
 *   fits a few packets either way.
 * - A body that fails while it is read ahead (before any byte is sent)
 *   throws its error to the router, which answers `500`; one that fails
 *   later ends the compressed stream with that error.
 * - Runs on Deno, Node and Bun; br and zstd need `node:zlib` (zstd: Node
 *   22.15 or later, Deno 2.3 or later) and are not offered without it.
 * - Put `compress()` before `etag()` in the middleware list, so that the
 *   entity tag is computed on the uncompressed body.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { compress } from "@fetchkit/toolkit/compress-middleware";
 *
 * const router = createRouter({ middleware: [compress()] });
 * router.get("/", () =>
 *   new Response("<p>hello</p>".repeat(200), {
 *     headers: { "Content-Type": "text/html; charset=utf-8" },
 *   }));
 *
 * const response = await router.fetch(
 *   new Request("http://localhost/", { headers: { "Accept-Encoding": "gzip" } }),
 * );
 * response.headers.get("Content-Encoding"); // "gzip"
 * const text = await new Response(
 *   response.body!.pipeThrough(new DecompressionStream("gzip")),
 * ).text();
 * ```
 *
 * @module
 */

import type { Middleware } from "../router/types.ts";
import { NativeResponse } from "../response/native.ts";
import { rememberedText, utf8Length } from "../response/body_size.ts";
import { type ContentCoding, negotiate } from "./_negotiate.ts";
import { readReady } from "../response/read_ready.ts";
import {
  availableCodings,
  encode,
  encodeWhole,
  type Levels,
  ONE_SHOT_LIMIT,
} from "./_encode.ts";

export type { ContentCoding };

/**
 * The coding to send, from the request's `Accept-Encoding` and the codings
 * on offer, by the rules of {@linkcode compress}: q-values, `*` for the
 * codings not named, ties to the earlier coding in `available`, `identity`
 * only when named with a higher q-value. `undefined` means the body as it
 * is (no header, or nothing acceptable: never `406`).
 *
 * @example Choosing between precompressed files
 * ```ts
 * import { negotiateEncoding } from "@fetchkit/toolkit/compress-middleware";
 *
 * negotiateEncoding("gzip, br;q=0.9", ["br", "gzip"]); // "gzip"
 * negotiateEncoding("gzip, br", ["br", "gzip"]); // "br"
 * negotiateEncoding(null, ["br", "gzip"]); // undefined
 * ```
 *
 * @param acceptEncoding The request's `Accept-Encoding`, or `null`.
 * @param available The codings on offer, most preferred first.
 * @returns The coding, or `undefined` for none.
 */
export function negotiateEncoding(
  acceptEncoding: string | null,
  available: readonly ContentCoding[],
): ContentCoding | undefined {
  return negotiate(acceptEncoding, available);
}

/** Compression levels, by coding. */
export interface CompressLevels {
  /**
   * Brotli quality, 0 to 11, for every body. Default: 4, and 2 for a body
   * at hand under 8 KiB.
   */
  br?: number;
  /** Zstandard level, 1 to 19. @default {3} */
  zstd?: number;
  /**
   * gzip level, 1 to 9. Default: 6 (on Deno the built-in
   * `CompressionStream`, whose level is 6, unless a level is given).
   */
  gzip?: number;
  /** deflate level, 1 to 9. @default {6} */
  deflate?: number;
}

/** Bodies at hand below this many bytes: brotli quality 2 by default. */
const SMALL_BODY = 8192;
const SMALL_BODY_BR = 2;

/** Options of {@linkcode compress}. */
export interface CompressOptions {
  /**
   * Bodies with fewer bytes than this, when their length is known, are
   * sent as they are: compressing them saves little and costs the
   * compressor's set-up. @default {1024}
   */
  threshold?: number;
  /**
   * The codings to offer, a subset of `["br", "zstd", "gzip", "deflate"]`.
   * The order of preference stays br, zstd, gzip, deflate. Codings the
   * runtime lacks (zstd on Node 20) are left out. Default: all of them.
   */
  encodings?: readonly ContentCoding[];
  /** Compression levels. Defaults favour speed, for dynamic responses. */
  level?: CompressLevels;
  /**
   * Whether a response with this `Content-Type` is worth compressing.
   * Default {@linkcode isCompressible}. A response without a
   * `Content-Type` is never compressed.
   */
  filter?: (contentType: string) => boolean;
}

const COMPRESSIBLE =
  /^\s*(?:text\/[!#$%&'*+.^\w`|~-]+|[!#$%&'*+.^\w`|~-]+\/[!#$%&'*+.^\w`|~-]+\+(?:json|xml|yaml)|application\/(?:json|javascript|ecmascript|x-javascript|xml|wasm|x-ndjson|ndjson|yaml|x-yaml|toml|graphql|x-www-form-urlencoded|vnd\.ms-fontobject|x-font-ttf|x-font-otf|x-sh)|image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)|font\/(?:ttf|otf))\s*(?:;|$)/i;

const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const VARY_ACCEPT_ENCODING = /(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i;

/**
 * Whether a `Content-Type` is worth compressing: text (`text/*`, including
 * server-sent events), JSON, JavaScript, XML, YAML, WebAssembly, SVG, icons,
 * and TTF/OTF fonts. Images, video, audio, archives, PDF and WOFF fonts are
 * compressed already.
 *
 * @example
 * ```ts
 * import { isCompressible } from "@fetchkit/toolkit/compress-middleware";
 *
 * isCompressible("application/json; charset=utf-8"); // true
 * isCompressible("image/png"); // false
 * ```
 *
 * @param contentType A `Content-Type` header value.
 * @returns Whether to compress a body of that type.
 */
export function isCompressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

function checkLevel(
  name: string,
  value: number | undefined,
  min: number,
  max: number,
): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `compress(): level.${name} must be a whole number from ${min} to ${max}, got ${value}`,
    );
  }
}

/**
 * Adds `Vary: Accept-Encoding` in place, keeping the body as it is (a
 * string body stays on `Deno.serve`'s fast path); a response with
 * immutable headers (from `fetch()`) is copied instead.
 */
function withVary(response: Response): Response {
  try {
    response.headers.append("Vary", "Accept-Encoding");
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.append("Vary", "Accept-Encoding");
    return new NativeResponse(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}

/** Set by `etag()` on its `304`s: the `200` each stands for. */
const STANDS_FOR = Symbol.for("fetchkit.notModified.standsFor");

interface StandsFor {
  readonly headers: Headers;
  /** The body's length in bytes, when known. */
  readonly length: number | undefined;
  /** The string the body was made from, when the toolkit made it. */
  readonly text: string | undefined;
}

const ALL_CODINGS: readonly ContentCoding[] = ["br", "zstd", "gzip", "deflate"];

/**
 * Compresses responses with the best coding the client accepts. See the
 * module docs for what is left alone and which headers change.
 *
 * @example Only gzip and brotli, brotli at a higher quality
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { compress } from "@fetchkit/toolkit/compress-middleware";
 *
 * const router = createRouter({
 *   middleware: [compress({ encodings: ["br", "gzip"], level: { br: 6 } })],
 * });
 * router.get("/data", () => Response.json({ items: Array(500).fill("item") }));
 *
 * const response = await router.fetch(
 *   new Request("http://localhost/data", {
 *     headers: { "Accept-Encoding": "gzip, deflate, br" },
 *   }),
 * );
 * response.headers.get("Content-Encoding"); // "br"
 * response.headers.get("Vary"); // "Accept-Encoding"
 * await response.body?.cancel();
 * ```
 *
 * @param options Threshold, codings, levels and the type filter.
 * @returns The middleware.
 * @throws {RangeError} When `threshold` is not a whole number ≥ 0, or a
 * level is out of its range.
 * @throws {TypeError} When `encodings` names an unknown coding.
 */
export function compress(options: CompressOptions = {}): Middleware {
  const threshold = options.threshold ?? 1024;
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    throw new RangeError(
      `compress(): threshold must be a whole number of bytes >= 0, got ${threshold}`,
    );
  }
  const wanted = options.encodings ?? ALL_CODINGS;
  for (const coding of wanted) {
    if (!ALL_CODINGS.includes(coding)) {
      throw new TypeError(
        `compress(): unknown coding "${coding}" in encodings; use br, zstd, gzip or deflate`,
      );
    }
  }
  const level = options.level ?? {};
  checkLevel("br", level.br, 0, 11);
  checkLevel("zstd", level.zstd, 1, 19);
  checkLevel("gzip", level.gzip, 1, 9);
  checkLevel("deflate", level.deflate, 1, 9);
  const levels: Levels = {
    br: level.br ?? 4,
    zstd: level.zstd ?? 3,
    gzip: level.gzip,
    deflate: level.deflate,
  };
  // Small bodies at brotli quality 2 unless a quality was chosen (see
  // the module docs).
  const smallLevels: Levels = level.br === undefined
    ? { ...levels, br: SMALL_BODY_BR }
    : levels;
  const codings = availableCodings().filter((coding) =>
    wanted.includes(coding)
  );
  const filter = options.filter ?? isCompressible;
  // Nothing on offer (`encodings: []`, or only codings this runtime lacks,
  // such as zstd on Node 20): no answer can vary with Accept-Encoding, so
  // none gets `Vary: Accept-Encoding`, which would split shared caches'
  // entries for nothing.
  if (codings.length === 0) return (_context, next) => next();

  /**
   * The body's length as far as the threshold needs it: `Content-Length`,
   * else from the string the body was made from (counted in bytes only
   * when it is short: a string is never fewer bytes than characters), else
   * `undefined`.
   */
  function lengthOf(
    headers: Headers,
    text: string | undefined,
  ): number | undefined {
    const declared = headers.get("content-length");
    if (declared !== null) return Number(declared);
    if (text === undefined) return undefined;
    return text.length >= threshold ? text.length : utf8Length(text);
  }

  /** Whether a body with these headers and length is to be compressed. */
  function worthIt(headers: Headers, length: number | undefined): boolean {
    if (headers.has("content-encoding")) return false;
    const type = headers.get("content-type");
    if (type === null || !filter(type)) return false;
    const cacheControl = headers.get("cache-control");
    if (cacheControl !== null && NO_TRANSFORM.test(cacheControl)) return false;
    return length === undefined || length >= threshold;
  }

  /**
   * A `304` from `etag()` gets what its `200` would have got: `Vary`, and
   * the weak tag when that `200` would have been compressed (RFC 9110
   * §15.4.5). Other `304`s are left alone.
   */
  function notModified(request: Request, response: Response): Response {
    const of = (response as { [STANDS_FOR]?: StandsFor })[STANDS_FOR];
    if (
      of === undefined ||
      !worthIt(of.headers, of.length ?? lengthOf(of.headers, of.text))
    ) {
      return response;
    }
    const headers = response.headers;
    const vary = headers.get("vary");
    if (vary === null || !VARY_ACCEPT_ENCODING.test(vary)) {
      headers.append("Vary", "Accept-Encoding");
    }
    const coding = negotiate(request.headers.get("accept-encoding"), codings);
    const etag = headers.get("etag");
    if (coding !== undefined && etag !== null && etag.startsWith('"')) {
      headers.set("ETag", `W/${etag}`);
    }
    return response;
  }

  return async function compress(context, next) {
    const response = await next();
    // The request's method: HEAD answers carry no body to compress.
    if (context.request.method === "HEAD") return response;
    const { status } = response;
    if (status === 304) return notModified(context.request, response);
    if (status < 200 || status === 204 || status === 206) return response;
    const headers = response.headers;
    const text = rememberedText(response);
    if (!worthIt(headers, lengthOf(headers, text))) return response;

    // From here the answer depends on Accept-Encoding.
    const coding = negotiate(
      context.request.headers.get("accept-encoding"),
      codings,
    );
    const vary = headers.get("vary");
    const addVary = vary === null || !VARY_ACCEPT_ENCODING.test(vary);
    if (coding === undefined) {
      return addVary ? withVary(response) : response;
    }
    const copy = new Headers(headers);
    copy.delete("content-length");
    copy.delete("accept-ranges");
    copy.set("Content-Encoding", coding);
    if (addVary) copy.append("Vary", "Accept-Encoding");
    const etag = copy.get("etag");
    if (etag !== null && etag.startsWith('"')) copy.set("ETag", `W/${etag}`);
    const init = { status, statusText: response.statusText, headers: copy };
    // A body at hand is compressed in one call (cheaper than a stream).
    if (text !== undefined && text.length <= ONE_SHOT_LIMIT) {
      const whole = encodeWhole(
        text,
        coding,
        // Characters, not bytes (no count of the bytes needed): under
        // 8,192 characters is at most 24 KiB.
        text.length < SMALL_BODY ? smallLevels : levels,
      );
      if (whole !== undefined) return new NativeResponse(whole, init);
    }
    // Reading .body turns a string body into a stream: only now.
    const body = response.body;
    if (body === null) return response;
    const collected = await readReady(body, ONE_SHOT_LIMIT);
    if ("stream" in collected) {
      return new NativeResponse(encode(collected.stream, coding, levels), init);
    }
    const bytes = collected.whole;
    if (bytes.byteLength < threshold) {
      // Small after all: as it is (it never varies).
      return new NativeResponse(bytes, {
        status,
        statusText: response.statusText,
        headers,
      });
    }
    const whole = encodeWhole(
      bytes,
      coding,
      bytes.byteLength < SMALL_BODY ? smallLevels : levels,
    );
    return new NativeResponse(
      whole ?? encode(new Blob([bytes]).stream(), coding, levels),
      init,
    );
  };
}
