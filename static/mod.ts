/**
 * Static files as router middleware: `serveStatic({ root: "public" })`.
 *
 * Files are streamed from disk (Deno's file API on Deno, `node:fs` on Node
 * and Bun; a file is never read whole into memory, except one that fits in
 * a single 64 KiB chunk of the stream, which is read with one call) with
 * `Content-Type` from the extension, `Content-Length`, `ETag` and `Last-Modified`, `Cache-Control`,
 * `X-Content-Type-Options: nosniff`, `304 Not Modified` for
 * `If-None-Match` / `If-Modified-Since`, `412 Precondition Failed` for
 * `If-Match` / `If-Unmodified-Since`, single byte ranges (`206`, `416`,
 * `If-Range`) and `HEAD`. (On Bun a file larger than 64 KiB goes out
 * chunked: Bun drops `Content-Length` from a stream body, and Bun's own lazy
 * file body, which keeps it, would open the path again when sent, after the
 * check that it lies inside `root`.) Preconditions are evaluated in the order of
 * RFC 9110 §13.2.2: `If-Match` (strong comparison; `If-Unmodified-Since`
 * is ignored when it is there), then `If-Unmodified-Since`, then
 * `If-None-Match` (which wins over `If-Modified-Since`), then `If-Range`,
 * as Go's `http.ServeContent` and `@std/http`'s `serveDir` do.
 *
 * Decisions (where Hono, Oak and Express differ):
 *
 * - A file that is not there (or a directory without an index file, or a
 *   dotfile) falls through to `next()`, so routes still answer the path.
 * - A path that tries to leave the root is answered `404 Not Found` at once
 *   and never reaches the file system nor later routes: a `.` or `..`
 *   segment (raw or encoded as `%2e`), an encoded slash (`%2f`), a
 *   backslash (raw or `%5c`), a NUL byte (`%00`), an empty segment (`//`),
 *   a malformed escape, or a symbolic link whose target is outside `root`.
 *   Mount with a `prefix` (such as `/assets`) to keep these rules away
 *   from your routes' parameters.
 * - A directory path without its trailing slash is redirected (`301`) to
 *   the path with one when the directory has an index file, so relative
 *   links in the page resolve as the author meant (as Express does).
 * - `Range` with several ranges is answered `200` with the whole file (a
 *   server may ignore Range; this keeps `multipart/byteranges` out). A
 *   malformed Range is ignored the same way; a range that starts past the
 *   end is `416` with a `Content-Range` that gives the file's size.
 * - Only `GET` and `HEAD` are served; other methods go to `next()`.
 * - As router middleware it runs before routing, so a file shadows a route
 *   with the same path.
 * - Dotfiles (any segment starting with `.`) are not served unless
 *   `dotfiles: true`; that includes `/.well-known/`.
 * - The file system calls are synchronous (a few µs each on a local disk,
 *   against tens of µs for the async forms' thread-pool hop): serve from a
 *   local disk, not a slow network mount. Needs `--allow-read` for `root`.
 * - With `precompressed`, a `.br`, `.zst` or `.gz` file beside the one
 *   asked for is served in its place to a client that accepts its coding
 *   (`Content-Encoding`, `Vary: Accept-Encoding`, an `ETag` of its own).
 * - Runs on Deno, Node >= 20.16 and Bun. On a runtime without a file
 *   system (Cloudflare Workers) `serveStatic()` throws an `Error` saying so.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { serveStatic } from "@fetchkit/toolkit/static-middleware";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/app.css`, "body { margin: 0 }");
 *
 * const router = createRouter({
 *   middleware: [serveStatic({ root, prefix: "/assets", maxAge: 3600 })],
 * });
 * router.get("/", () => new Response("home"));
 *
 * const response = await router.fetch(new Request("http://localhost/assets/app.css"));
 * response.headers.get("Content-Type"); // "text/css; charset=utf-8"
 * await response.text(); // "body { margin: 0 }"
 * await Deno.remove(root, { recursive: true });
 * ```
 *
 * @module
 */

import type { Middleware, Next } from "../router/types.ts";
import type { RequestContext } from "../router/context.ts";
import { pathnameOf } from "../url_path/url_path.ts";
import { lookupPath, normalizePrefix } from "./_path.ts";
import { parseRange } from "./_range.ts";
import {
  etagOf,
  notModified,
  preconditionFailed,
  rangeApplies,
} from "./_conditional.ts";
import { contentTypeOf } from "./_mime.ts";
import {
  type FileInfo,
  isNotFound,
  joinSegments,
  openReadSync,
  pathSeparator,
  type ReadHandle,
  realPathSync,
  statSync,
} from "../runtime/fs.ts";
import { NativeResponse } from "../response/native.ts";
import { negotiateEncoding } from "../compress/mod.ts";

/** Options of {@linkcode serveStatic}. */
export interface ServeStaticOptions {
  /**
   * The folder to serve: a path (relative to the working directory) or a
   * `file:` URL such as `new URL("./public", import.meta.url)`. It must
   * exist when `serveStatic()` is called.
   */
  root: string | URL;
  /**
   * The URL path the folder is served under, as it appears in the URL
   * (percent-encoded). Default `/`: `root/app.css` is `/app.css`; with
   * `/assets` it is `/assets/app.css`.
   */
  prefix?: string;
  /** The file served for a directory, or `false` for none. Default `index.html`. */
  index?: string | false;
  /** `Cache-Control` `max-age` in seconds. Default `0` (revalidate each time). */
  maxAge?: number;
  /**
   * Adds `immutable` to `Cache-Control`: for file names that change with
   * their content (`app.3f2a1c.js`). Default `false`.
   */
  immutable?: boolean;
  /** Serve files and folders whose name starts with `.`. Default `false`. */
  dotfiles?: boolean;
  /**
   * More content types by extension (without the dot), or replacements:
   * `{ glb: "model/gltf-binary" }`.
   */
  mimeTypes?: Record<string, string>;
  /**
   * Serve a compressed sibling of a file when the client accepts its
   * coding: `app.js.br` (brotli), `app.js.zst` (zstd) or `app.js.gz`
   * (gzip) for `app.js`, chosen by `Accept-Encoding` as
   * `compress()` chooses (br, then zstd, then gzip among equal q-values).
   * The answer keeps the type of `app.js`, adds `Content-Encoding` and
   * `Vary: Accept-Encoding` (the plain file gets `Vary` too when a sibling
   * exists) and has an entity tag of its own. `true` offers all three;
   * a list offers those. Build the siblings at deploy time, at the highest
   * levels (`brotli -q 11`, `gzip -9`): they cost nothing per request.
   * Default `false`.
   */
  precompressed?: boolean | readonly PrecompressedCoding[];
}

/** A coding `serveStatic()` can serve from a precompressed sibling file. */
export type PrecompressedCoding = "br" | "zstd" | "gzip";

const SIBLING_EXTENSION: Record<PrecompressedCoding, string> = {
  br: ".br",
  zstd: ".zst",
  gzip: ".gz",
};

const PRECOMPRESSED_ORDER: readonly PrecompressedCoding[] = [
  "br",
  "zstd",
  "gzip",
];

type Found =
  | { readonly path: string; readonly info: FileInfo }
  | "outside"
  | undefined;

function plain(body: string, status: number): Response {
  return new NativeResponse(body, {
    status,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Length": String(body.length),
    },
  });
}

/**
 * A file's readable stream reads 64 KiB chunks. A body no larger than one
 * chunk is read with one read call into a buffer of its size instead: the
 * same memory, and `Deno.serve` writes a byte body about twice as fast as a
 * stream (measured with wrk, see BENCHMARKS.md).
 */
const CHUNK = 64 * 1024;

const FEATURE = "serveStatic()";

/** Reads `length` bytes (at most {@linkcode CHUNK}) and closes the file. */
function readSmall(file: ReadHandle, length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const read = file.readSync(bytes.subarray(filled));
    if (read === null) break; // the file shrank since stat()
    filled += read;
  }
  file.close();
  return filled === length ? bytes : bytes.slice(0, filled);
}

function resolveRoot(root: string | URL): string {
  let real: string;
  try {
    real = realPathSync(root, FEATURE);
  } catch (error) {
    throw new TypeError(
      `serveStatic(): root "${String(root)}" cannot be read: ${
        (error as Error).message
      }`,
    );
  }
  if (!statSync(real, FEATURE).isDirectory) {
    throw new TypeError(
      `serveStatic(): root "${String(root)}" is not a directory`,
    );
  }
  return real;
}

/**
 * Serves files below `root` as router middleware. See the module docs for
 * the rules on paths, ranges and caching.
 *
 * @example Fingerprinted assets cached for a year, the rest revalidated
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { serveStatic } from "@fetchkit/toolkit/static-middleware";
 *
 * const root = await Deno.makeTempDir();
 * const router = createRouter({
 *   middleware: [
 *     serveStatic({ root, prefix: "/build", maxAge: 31536000, immutable: true }),
 *     serveStatic({ root }),
 *   ],
 * });
 * await Deno.remove(root);
 * ```
 *
 * @param options The folder, URL prefix, index file and caching.
 * @returns The middleware.
 * @throws {TypeError} When `root` is not a readable directory, or
 * `prefix` does not start with `/`.
 * @throws {RangeError} When `maxAge` is not a whole number of seconds ≥ 0.
 */
export function serveStatic(options: ServeStaticOptions): Middleware {
  const config = resolveOptions(options);
  return function serveStatic(context, next) {
    const method = context.method;
    if (method !== "GET" && method !== "HEAD") return next();
    return serveFile(config, context, next);
  };
}

/** `serveStatic()`'s options, checked and resolved once. */
interface StaticConfig {
  readonly root: string;
  readonly sep: string;
  /** `root` with a trailing separator. */
  readonly rootDir: string;
  readonly prefix: string;
  readonly index: string | false;
  readonly cacheControl: string;
  readonly dotfiles: boolean;
  readonly mimeTypes: Record<string, string> | undefined;
  /** The codings offered from sibling files, in order of preference. */
  readonly precompressed: readonly PrecompressedCoding[];
}

function resolveOptions(options: ServeStaticOptions): StaticConfig {
  const root = resolveRoot(options.root);
  const sep = pathSeparator();
  const maxAge = options.maxAge ?? 0;
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new RangeError(
      `serveStatic(): maxAge must be a whole number of seconds >= 0, got ${maxAge}`,
    );
  }
  if (Array.isArray(options.precompressed)) {
    for (const coding of options.precompressed) {
      if (!PRECOMPRESSED_ORDER.includes(coding)) {
        throw new TypeError(
          `serveStatic(): unknown precompressed coding "${coding}"; use br, zstd or gzip`,
        );
      }
    }
  }
  return {
    root,
    sep,
    rootDir: root.endsWith(sep) ? root : root + sep,
    prefix: normalizePrefix(options.prefix ?? "/"),
    index: options.index ?? "index.html",
    cacheControl: `public, max-age=${maxAge}${
      options.immutable ? ", immutable" : ""
    }`,
    dotfiles: options.dotfiles ?? false,
    mimeTypes: options.mimeTypes,
    precompressed: options.precompressed === true
      ? PRECOMPRESSED_ORDER
      : options.precompressed
      ? PRECOMPRESSED_ORDER.filter((coding) =>
        (options.precompressed as readonly string[]).includes(coding)
      )
      : [],
  };
}

// Synchronous on purpose: on a local disk these calls take a few µs,
// while an async one waits 10-70 µs for its thread-pool hop (measured;
// see BENCHMARKS.md). Hono's serveStatic for Deno does the same.
function find(config: StaticConfig, segments: readonly string[]): Found {
  const { root, rootDir, sep } = config;
  let path: string;
  try {
    path = realPathSync(joinSegments(root, segments, sep), FEATURE);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  // Symbolic links may point anywhere: judge where they land.
  if (path !== root && !path.startsWith(rootDir)) return "outside";
  return { path, info: statSync(path, FEATURE) };
}

/**
 * Answers a GET or HEAD from the file its path names below the prefix, a
 * directory's index file or a redirect to the directory's `/` form; passes
 * anything else on to `next`.
 */
function serveFile(
  config: StaticConfig,
  context: RequestContext,
  next: Next,
): Response | Promise<Response> {
  const { url } = context.request;
  const lookup = lookupPath(pathnameOf(url), config.prefix);
  if (lookup.kind === "skip") return next();
  if (lookup.kind === "refuse") return plain("Not Found", 404);
  const { segments } = lookup;
  if (
    !config.dotfiles && segments.some((segment) => segment.startsWith("."))
  ) {
    return next();
  }
  const { index } = config;
  // The type follows the name asked for, not a symbolic link's target.
  let name = segments[segments.length - 1];
  let fileSegments = segments;
  let found = find(config, segments);
  if (found === "outside") return plain("Not Found", 404);
  if (found === undefined) return next();
  if (found.info.isDirectory) {
    if (index === false) return next();
    fileSegments = [...segments, index];
    found = find(config, fileSegments);
    name = index;
    if (found === "outside") return plain("Not Found", 404);
    if (found === undefined || !found.info.isFile) return next();
    if (!lookup.directory) {
      let location: string;
      try {
        const { pathname, search } = context.url;
        location = `${pathname}/${search}`;
      } catch {
        return next(); // a Host that URL refuses: no Location to give
      }
      return new NativeResponse(null, {
        status: 301,
        headers: { Location: location, "Content-Length": "0" },
      });
    }
  } else if (!found.info.isFile || lookup.directory) {
    return next(); // a FIFO or device; or "/file.txt/"
  }
  if (config.precompressed.length > 0) {
    return sendPrecompressed(config, context.request, {
      fileSegments,
      file: found,
      name,
    });
  }
  return sendFile(config, context.request, {
    path: found.path,
    info: found.info,
    name,
  });
}

/** The best sibling the client accepts, or the file itself; with Vary. */
function sendPrecompressed(
  config: StaticConfig,
  request: Request,
  { fileSegments, file, name }: {
    fileSegments: readonly string[];
    file: { readonly path: string; readonly info: FileInfo };
    name: string;
  },
): Response {
  const last = fileSegments.length - 1;
  const siblings = new Map<
    PrecompressedCoding,
    { readonly path: string; readonly info: FileInfo }
  >();
  for (const coding of config.precompressed) {
    const sibling = find(config, [
      ...fileSegments.slice(0, last),
      fileSegments[last] + SIBLING_EXTENSION[coding],
    ]);
    if (
      sibling !== undefined && sibling !== "outside" && sibling.info.isFile
    ) {
      siblings.set(coding, sibling);
    }
  }
  if (siblings.size === 0) {
    return sendFile(config, request, {
      path: file.path,
      info: file.info,
      name,
    });
  }
  const coding = negotiateEncoding(
    request.headers.get("accept-encoding"),
    [...siblings.keys()],
  ) as PrecompressedCoding | undefined;
  const chosen = coding === undefined ? file : siblings.get(coding)!;
  return sendFile(config, request, {
    path: chosen.path,
    info: chosen.info,
    name,
    coding: coding ?? null,
  });
}

/** A file's answer: 200, 206, 304, 412 or 416, with its validators. */
function sendFile(
  { cacheControl, mimeTypes }: StaticConfig,
  request: Request,
  { path, info, name, coding }: {
    path: string;
    info: FileInfo;
    /** The name asked for, which gives the content type. */
    name: string;
    /** `undefined`: no siblings; `null`: the plain file of one that has them. */
    coding?: PrecompressedCoding | null;
  },
): Response {
  const { size, mtime } = info;
  const plainTag = etagOf(size, mtime);
  // Each coding its own tag: the bytes differ.
  const etag = coding ? `${plainTag.slice(0, -1)}-${coding}"` : plainTag;
  const lastModified = mtime?.toUTCString();
  const headers = new Headers({
    ETag: etag,
    "Cache-Control": cacheControl,
    // Browsers take the Content-Type as given, never a guess from the
    // bytes: an uploaded `.txt` that holds HTML stays text.
    "X-Content-Type-Options": "nosniff",
  });
  if (lastModified !== undefined) headers.set("Last-Modified", lastModified);
  if (coding !== undefined) headers.set("Vary", "Accept-Encoding");
  if (preconditionFailed(request.headers, etag, mtime)) {
    const body = "Precondition Failed";
    headers.set("Content-Type", "text/plain; charset=utf-8");
    headers.set("Content-Length", String(body.length));
    return new NativeResponse(body, { status: 412, headers });
  }
  if (notModified(request.headers, etag, mtime)) {
    return new NativeResponse(null, { status: 304, headers });
  }
  headers.set("Content-Type", contentTypeOf(name, mimeTypes));
  if (coding) headers.set("Content-Encoding", coding);
  headers.set("Accept-Ranges", "bytes");
  let start = 0;
  let length = size;
  let status = 200;
  const rangeHeader = request.headers.get("range");
  if (
    rangeHeader !== null && rangeApplies(request.headers, etag, lastModified)
  ) {
    const range = parseRange(rangeHeader, size);
    if (range === "unsatisfiable") {
      headers.set("Content-Range", `bytes */${size}`);
      headers.set("Content-Length", "0");
      headers.delete("Content-Type");
      return new NativeResponse(null, { status: 416, headers });
    }
    if (range !== undefined) {
      status = 206;
      start = range.start;
      length = range.end - range.start + 1;
      headers.set("Content-Range", `bytes ${start}-${range.end}/${size}`);
    }
  }
  headers.set("Content-Length", String(length));
  // request.method, not context.method: the router strips HEAD bodies by it.
  if (request.method === "HEAD" || length === 0) {
    return new NativeResponse(null, { status, headers });
  }
  const file = openReadSync(path, start, FEATURE);
  let body: BodyInit;
  try {
    body = length <= CHUNK
      ? readSmall(file, length)
      : file.stream(status === 200 ? undefined : length);
  } catch (error) {
    file.close();
    throw error;
  }
  return new NativeResponse(body, { status, headers });
}
