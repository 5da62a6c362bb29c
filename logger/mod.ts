/**
 * Request logger middleware: one line per request, built from a format
 * string with `%token` placeholders.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { logger } from "@fetchkit/toolkit/logger-middleware";
 *
 * const router = createRouter({ middleware: [logger()] });
 * // [19/Nov/2025:14:32:10 +0000] GET /users/123 200 1234
 * ```
 *
 * Every token taken from the request (method, URL parts, `Referer`,
 * `User-Agent`) has its control characters escaped as text (`\x1b`,
 * `\x0a`, `\u2028`), as common log formats do, so a client cannot send
 * terminal escape sequences to the console or forge log lines.
 *
 * **Secrets in paths.** A link that carries a secret in its path (a
 * password reset or email verification token) would otherwise be written
 * to the log while it is live, undoing a store that keeps only its hash.
 * Name those routes in `redactPathParams`: their parameters are logged
 * as the parameter's name, in `%path`, `%pathname`, `%url` and
 * `%referer` (a page of such a route sends its URL as the next request's
 * `Referer`), and in JSON lines. Matching is looser than the router's
 * (any letter case, percent-encoded letters, extra or trailing `/`), so
 * a request that misses the route still hides the token.
 *
 * @example Keep reset and verification tokens out of the log
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { logger } from "@fetchkit/toolkit/logger-middleware";
 *
 * const lines: string[] = [];
 * const router = createRouter({
 *   middleware: [
 *     logger({
 *       redactPathParams: ["/password/reset/:token", "/email/verify/:token"],
 *       log: (line) => lines.push(line),
 *     }),
 *   ],
 * });
 * router.get("/password/reset/:token", () => new Response("Choose a password"));
 * await router.fetch(new Request("http://localhost/password/reset/q8Zc0sYV3rTq1m9k"));
 * lines[0]; // "[29/Nov/2026:08:00:00 +0000] GET /password/reset/:token 200 -"
 * ```
 *
 * @module
 */

import type { Middleware } from "../router/types.ts";
import {
  compileFormat,
  compileJson,
  defaultJsonFields,
  type LoggedResponse,
} from "./_format.ts";
import { stdoutIsColorTerminal } from "../runtime/color.ts";
import { compileRedactor } from "./_redact.ts";

/** Options of {@linkcode logger}. */
export interface LoggerOptions {
  /**
   * The line to log, with tokens replaced per request:
   *
   * | token | replaced by |
   * |---|---|
   * | `%date` | start time, `dd/Mon/yyyy:HH:mm:ss ±zzzz`, local time (Apache common log format) |
   * | `%dateISO` | start time in ISO 8601 (UTC) |
   * | `%duration` | time to the response, in milliseconds (monotonic clock, up to 3 decimals) |
   * | `%contentLength` | response `Content-Length` header, or the byte size of a string body made by the toolkit (`createHtmlResponse`, `createJsonResponse`, the router's own answers) |
   * | `%contentType` | response `Content-Type` header |
   * | `%host` | request URL host (with a non-default port) |
   * | `%hostname` | request URL hostname |
   * | `%ip` | client address (`context.remoteAddr`; see the router's `trustProxy`) |
   * | `%method` | request method as sent (before any method override) |
   * | `%path` | request pathname plus search |
   * | `%pathname` | request pathname |
   * | `%port` | request URL port, or the scheme's default (80, 443) |
   * | `%query` | request search string, with its `?` (same as `%search`) |
   * | `%referer` | request `Referer` header |
   * | `%requestId` | the request id set by `requestId()` (`@fetchkit/toolkit/request-id-middleware`) |
   * | `%search` | request search string, with its `?` |
   * | `%status` | response status code |
   * | `%statusText` | response status text, or the standard one for the status |
   * | `%traceId` | the trace id of the request's span (`tracing()` from `@fetchkit/toolkit/tracing-middleware`, or Deno's own under `OTEL_DENO=true`) |
   * | `%url` | full request URL |
   * | `%userAgent` | request `User-Agent` header |
   *
   * An absent or empty value (no Referer, no Content-Length, no search)
   * prints `-`. Note that `Content-Length` is usually added by the server
   * when it sends the body, so for a `new Response(...)` of your own it is
   * `-` unless the handler set it.
   *
   * A token is `%` followed by a token name and no further letter:
   * `%` with all the letters after it must name a token, so `%dateISO` is
   * the ISO date, and `%foo` or `%durationms` (a token run into text) is
   * an unknown token: `logger()` throws a `TypeError` naming it and the
   * known tokens. Write `%duration ms` or `%duration-ms` instead. Any other
   * `%` (`100%`, `% `, `%%`) is literal text.
   *
   * `"json"` logs one JSON object per line instead, with the tokens named
   * in `fields` as properties (`"status"`, `"duration"`, ...), `null` for
   * an absent value, and `status`, `duration` and `contentLength` as
   * numbers.
   *
   * @default {"[%date] %method %path %status %contentLength"}
   */
  format?: string;
  /**
   * With `format: "json"`: the properties of each line, as token names
   * (without `%`).
   *
   * @default {["dateISO", "method", "path", "status", "duration", "contentLength", "ip", "userAgent", "referer", "requestId", "traceId"]}
   */
  fields?: readonly string[];
  /**
   * Receives each line, once the response is ready (or the handler threw).
   *
   * @default {console.log}
   */
  log?: (message: string) => void;
  /**
   * ANSI colors: the status by class (2xx green, 3xx cyan, 4xx yellow, 5xx
   * red) and the method in bold. `'auto'` colors when `NO_COLOR` is not set
   * and standard output is a terminal; `true` always colors.
   *
   * @default {"auto"} with the default `log`; `false` with your own `log`,
   * which may not write to a terminal.
   */
  colors?: boolean | "auto";
  /**
   * Route patterns whose `:parameters` are never logged
   * (`["/password/reset/:token"]`): a matching request's path is logged
   * with the parameter's name in their place, in every token that shows
   * the path, the URL or the `Referer`. See the module docs.
   *
   * @default {[]}
   */
  redactPathParams?: readonly string[];
}

// What a line says about a request whose handler threw: the router answers
// it with a 500 (or its `onError` does) after the error passes through here.
const FAILED: LoggedResponse = {
  status: 500,
  statusText: "Internal Server Error",
  headers: new Headers(),
};

function useColors(colors: boolean | "auto"): boolean {
  if (colors !== "auto") return colors;
  return stdoutIsColorTerminal();
}

/**
 * Creates middleware that logs one line per request. Put it first in the
 * router's `middleware`, so that it also sees 404s and times everything.
 *
 * The format is parsed once, here; each request only fills in the values.
 * When a later middleware or the handler throws, the request is still
 * logged, with status 500, and the error is rethrown for the router's error
 * handling.
 *
 * @example Default format
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { logger } from "@fetchkit/toolkit/logger-middleware";
 *
 * const router = createRouter({ middleware: [logger()] });
 * router.get("/", () => new Response("home"));
 * // logs: [21/Nov/2026:19:27:05 +0000] GET / 200 -
 * ```
 *
 * @example A custom format and destination
 * ```ts
 * import { logger } from "@fetchkit/toolkit/logger-middleware";
 *
 * const lines: string[] = [];
 * const middleware = logger({
 *   format: "%method %path -> %status in %duration ms",
 *   log: (line) => lines.push(line),
 * });
 * ```
 *
 * @example JSON lines, with the trace id
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { logger } from "@fetchkit/toolkit/logger-middleware";
 * import { tracing } from "@fetchkit/toolkit/tracing-middleware";
 *
 * const router = createRouter({
 *   middleware: [logger({ format: "json", fields: ["method", "path", "status", "duration", "traceId"] }), tracing()],
 * });
 * // {"method":"GET","path":"/","status":200,"duration":0.412,"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"}
 * ```
 *
 * @param options The format, the log function and colors.
 * @returns The middleware.
 * @throws {TypeError} When the format has an unknown token, `fields`
 * an unknown field, or `redactPathParams` a pattern without a
 * `:parameter`.
 */
export function logger(options: LoggerOptions = {}): Middleware {
  const {
    format = "[%date] %method %path %status %contentLength",
    log = console.log,
  } = options;
  const colors = options.colors ?? (options.log ? false : "auto");
  if (options.fields !== undefined && format !== "json") {
    throw new TypeError('logger(): `fields` goes with format: "json"');
  }
  const redact = compileRedactor(options.redactPathParams);
  const { render, usesTime, usesDuration } = format === "json"
    ? compileJson(options.fields ?? defaultJsonFields, redact)
    : compileFormat(format, useColors(colors), redact);

  return async (context, next) => {
    const time = usesTime ? Date.now() : 0;
    const start = usesDuration ? performance.now() : 0;
    let response: Response;
    try {
      response = await next();
    } catch (error) {
      const duration = usesDuration ? performance.now() - start : 0;
      log(render(context, FAILED, time, duration));
      throw error;
    }
    const duration = usesDuration ? performance.now() - start : 0;
    log(render(context, response, time, duration));
    return response;
  };
}
