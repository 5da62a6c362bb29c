/**
 * CORS as router middleware: `cors({ origin: "https://app.example" })`.
 *
 * A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 * is answered `204` at once, before routing: no route needs an `OPTIONS`
 * handler, and the router's own `OPTIONS`/`405` answers stay for requests
 * that are not preflights. Every other request with an `Origin` runs
 * through the app and gets the CORS headers on its response (404 and 405
 * included).
 *
 * Decisions, compared with Hono's `cors()` (each row is checked by
 * `cors/hono_comparison_test.ts`):
 *
 * | case | fetchkit | Hono |
 * | --- | --- | --- |
 * | `origin: "*"` with `credentials: true` | `TypeError` when created | sends both headers (browsers refuse the response) |
 * | `Access-Control-Allow-Credentials` for an origin not allowed | not sent | sent |
 * | `OPTIONS` without `Access-Control-Request-Method` | not a preflight: routed | answered as a preflight |
 * | `Vary: Origin` when the origin list or function decides | on every response, preflights included | on every response, preflights included |
 * | `Vary` on a request without `Origin` | `Vary: Origin` when the answer depends on it | same |
 * | origin string with a path or trailing slash (`https://a.example/`) | `TypeError` when created (it could never match) | never matches |
 * | default methods | `GET, HEAD, PUT, PATCH, POST, DELETE` | the same plus `QUERY` |
 * | `allowHeaders` not given | echoes `Access-Control-Request-Headers` | same |
 * | origin RegExp | must start with `^` and end with `$` (`TypeError` otherwise), tested as `^(?:pattern)$`; `g`/`y` flags dropped | no RegExp option (a function) |
 *
 * Not covered: a response made from an error thrown by a handler
 * (`500`, or `onError`) is built after all middleware has returned, so it
 * carries no CORS headers; set them in `onError` if clients must read it.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { cors } from "@fetchkit/toolkit/cors-middleware";
 *
 * const router = createRouter({
 *   middleware: [cors({ origin: ["https://app.example"], credentials: true })],
 * });
 * router.post("/api/items", () => Response.json({ ok: true }, { status: 201 }));
 *
 * const preflight = await router.fetch(
 *   new Request("http://localhost/api/items", {
 *     method: "OPTIONS",
 *     headers: {
 *       Origin: "https://app.example",
 *       "Access-Control-Request-Method": "POST",
 *     },
 *   }),
 * );
 * preflight.status; // 204
 * preflight.headers.get("Access-Control-Allow-Origin"); // "https://app.example"
 * ```
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import type { Middleware } from "../router/types.ts";
import { NativeResponse } from "../response/native.ts";
import { editHeaders } from "../response/edit_headers.ts";

/**
 * Which origins may read responses: `"*"` (any, without credentials), one
 * origin, a list of origins and patterns, or a function that decides.
 */
export type CorsOrigin =
  | string
  | RegExp
  | readonly (string | RegExp)[]
  | ((origin: string, context: RequestContext) => boolean | Promise<boolean>);

/** Options of {@linkcode cors}. */
export interface CorsOptions {
  /**
   * The allowed origins: `"*"` (default), an origin such as
   * `"https://app.example"` (scheme, host and port; no path), a `RegExp`
   * that must match the whole `Origin` header, a list of those, or a
   * function of the origin and the request context that returns `true` to
   * allow it.
   *
   * A RegExp must match the whole origin: one that does not start with
   * `^` and end with `$` is refused when `cors()` is created (unanchored,
   * `/https:\/\/app\.example/` also matches
   * `https://app.example.evil.example`), and it is tested as
   * `^(?:pattern)$`, so each branch of an alternation (`|`) matches whole
   * origins too. For subdomains write the scheme out:
   * `/^https:\/\/[a-z0-9-]+\.app\.example$/`. Its `g` and `y` flags are
   * dropped (they make `test()` depend on the previous call); others
   * (`i`) are kept.
   */
  origin?: CorsOrigin;
  /** `Access-Control-Allow-Methods`. Default `GET, HEAD, PUT, PATCH, POST, DELETE`. */
  methods?: readonly string[];
  /**
   * `Access-Control-Allow-Headers`. Default: the headers the preflight
   * asks for (`Access-Control-Request-Headers`), echoed.
   */
  allowHeaders?: readonly string[];
  /** `Access-Control-Expose-Headers`: response headers scripts may read. */
  exposeHeaders?: readonly string[];
  /**
   * Let the browser send cookies and read the response
   * (`Access-Control-Allow-Credentials: true`). Default `false`; cannot
   * be combined with `origin: "*"`.
   */
  credentials?: boolean;
  /** `Access-Control-Max-Age`: seconds a preflight may be cached. */
  maxAge?: number;
}

const DEFAULT_METHODS = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

type OriginCheck = (
  origin: string,
  context: RequestContext,
) => boolean | Promise<boolean>;

function checkOrigin(value: string): string {
  if (value === "*") {
    throw new TypeError(
      'cors(): "*" cannot be part of a list; use origin: "*" alone',
    );
  }
  if (value === "null") return value;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    // reported below
  }
  if (parsed === undefined || parsed.origin !== value) {
    throw new TypeError(
      `cors(): origin "${value}" is not an origin (scheme://host[:port], no path or trailing slash)${
        parsed && parsed.origin !== "null"
          ? `; did you mean "${parsed.origin}"?`
          : ""
      }`,
    );
  }
  return value;
}

function originCheck(origin: CorsOrigin): OriginCheck {
  if (typeof origin === "function") return origin;
  const list = typeof origin === "string" || origin instanceof RegExp
    ? [origin]
    : origin;
  if (!Array.isArray(list)) {
    throw new TypeError(
      "cors(): origin must be a string, a RegExp, a list of them or a function",
    );
  }
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  let longest = 0;
  for (const item of list as readonly unknown[]) {
    if (typeof item === "string") {
      exact.add(checkOrigin(item));
      longest = Math.max(longest, item.length);
    } else if (item instanceof RegExp) patterns.push(wholeOrigin(item));
    else {
      throw new TypeError(
        `cors(): an origin must be a string or a RegExp, got ${typeof item}`,
      );
    }
  }
  return (value) =>
    // A longer origin than any listed is not hashed.
    (value.length <= longest && exact.has(value)) ||
    patterns.some((pattern) => pattern.test(value));
}

// An unescaped `$` at the end.
const ENDS_WITH_DOLLAR = /(?:^|[^\\])(?:\\\\)*\$$/;

/**
 * A copy of `pattern` that must match the whole origin, without `g` or `y`:
 * unanchored, `/https:\/\/app\.example/` also matches
 * `https://app.example.evil.example`; with `g` or `y`, `test()` starts at
 * the last match's end, so one origin would be allowed and refused in turn.
 */
function wholeOrigin(pattern: RegExp): RegExp {
  // Refused rather than anchored silently: a suffix pattern such as
  // /\.app\.example$/ would then never match, and nobody would know why.
  if (
    !pattern.source.startsWith("^") || !ENDS_WITH_DOLLAR.test(pattern.source)
  ) {
    throw new TypeError(
      `cors(): the origin pattern ${pattern} must match the whole origin: start it with ^ and end it with $ (unanchored, it also matches origins that merely contain it, such as https://app.example.evil.example), e.g. /^https:\/\/[a-z0-9-]+\.app\.example$/`,
    );
  }
  return new RegExp(
    `^(?:${pattern.source})$`,
    pattern.flags.replace(/[gy]/g, ""),
  );
}

function tokenList(name: string, values: readonly string[]): string {
  for (const value of values) {
    if (typeof value !== "string" || !TOKEN.test(value)) {
      throw new TypeError(
        `cors(): ${name} must list header or method names, got "${value}"`,
      );
    }
  }
  return values.join(", ");
}

/** Adds `names` to a response's Vary header, once each. */
function addVary(headers: Headers, names: string): void {
  const current = headers.get("vary");
  if (current === null) {
    headers.set("Vary", names);
    return;
  }
  const present = current.toLowerCase().split(",").map((name) => name.trim());
  if (present.includes("*")) return;
  const missing = names.split(", ").filter((name) =>
    !present.includes(name.toLowerCase())
  );
  if (missing.length > 0) {
    headers.set("Vary", `${current}, ${missing.join(", ")}`);
  }
}

/**
 * Answers CORS preflights and adds CORS headers to responses, as router
 * middleware (so it runs before routing).
 *
 * @example Any origin, no cookies (public API)
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { cors } from "@fetchkit/toolkit/cors-middleware";
 *
 * const router = createRouter({ middleware: [cors()] });
 * router.get("/api/status", () => Response.json({ up: true }));
 * const response = await router.fetch(
 *   new Request("http://localhost/api/status", {
 *     headers: { Origin: "https://elsewhere.example" },
 *   }),
 * );
 * response.headers.get("Access-Control-Allow-Origin"); // "*"
 * ```
 *
 * @example Origins decided per request, with cookies
 * ```ts
 * import { cors } from "@fetchkit/toolkit/cors-middleware";
 *
 * const middleware = cors({
 *   origin: (origin) => origin.endsWith(".example.com"),
 *   credentials: true,
 *   exposeHeaders: ["X-Request-Id"],
 *   maxAge: 600,
 * });
 * ```
 *
 * @param options Origins, methods, headers, credentials and max age.
 * @returns The middleware.
 * @throws {TypeError} When `origin` is `"*"` (or lists it) together with
 * `credentials: true`, when an origin string is not a bare origin, or
 * when a method or header name is not a token.
 * @throws {RangeError} When `maxAge` is not a whole number of seconds ≥ 0.
 */
export function cors(options: CorsOptions = {}): Middleware {
  const { origin = "*", credentials = false, maxAge } = options;
  if (origin === "*" && credentials) {
    throw new TypeError(
      'cors(): origin "*" cannot be used with credentials: true (browsers refuse it); list the allowed origins or pass a function',
    );
  }
  if (
    maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0)
  ) {
    throw new RangeError(
      `cors(): maxAge must be a whole number of seconds >= 0, got ${maxAge}`,
    );
  }
  const anyOrigin = origin === "*";
  const allowed = anyOrigin ? undefined : originCheck(origin);
  const methods = tokenList("methods", options.methods ?? DEFAULT_METHODS);
  const allowHeaders = options.allowHeaders === undefined
    ? undefined
    : tokenList("allowHeaders", options.allowHeaders);
  const exposeHeaders = tokenList("exposeHeaders", options.exposeHeaders ?? []);

  function preflight(allowOrigin: string | undefined, request: Request) {
    const headers = new Headers({ "Content-Length": "0" });
    const vary: string[] = anyOrigin ? [] : ["Origin"];
    if (allowOrigin !== undefined) {
      headers.set("Access-Control-Allow-Origin", allowOrigin);
      if (credentials) headers.set("Access-Control-Allow-Credentials", "true");
      headers.set("Access-Control-Allow-Methods", methods);
      let requested = allowHeaders;
      if (requested === undefined) {
        requested = request.headers.get("access-control-request-headers") ??
          undefined;
        vary.push("Access-Control-Request-Headers");
      }
      if (requested) headers.set("Access-Control-Allow-Headers", requested);
      if (maxAge !== undefined) {
        headers.set("Access-Control-Max-Age", String(maxAge));
      }
    }
    if (vary.length > 0) headers.set("Vary", vary.join(", "));
    return new NativeResponse(null, { status: 204, headers });
  }

  return async function cors(context, next) {
    const { request } = context;
    const requestOrigin = request.headers.get("origin");
    let allowOrigin: string | undefined;
    if (requestOrigin !== null) {
      if (anyOrigin) allowOrigin = "*";
      else if (await allowed!(requestOrigin, context)) {
        allowOrigin = requestOrigin;
      }
      if (
        request.method === "OPTIONS" &&
        request.headers.has("access-control-request-method")
      ) {
        return preflight(allowOrigin, request);
      }
    }
    const response = await next();
    if (allowOrigin === undefined && anyOrigin) return response;
    return editHeaders(response, (headers) => {
      if (allowOrigin !== undefined) {
        headers.set("Access-Control-Allow-Origin", allowOrigin);
        if (credentials) {
          headers.set("Access-Control-Allow-Credentials", "true");
        }
        if (exposeHeaders) {
          headers.set("Access-Control-Expose-Headers", exposeHeaders);
        }
      }
      if (!anyOrigin) addVary(headers, "Origin");
    }, undefined);
  };
}
