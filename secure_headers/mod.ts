/**
 * Security headers as middleware: `secureHeaders()` adds safe defaults to
 * every response (modelled on Helmet and Hono's `secureHeaders`), and an
 * optional Content-Security-Policy with a fresh nonce per request.
 *
 * | header | default | why |
 * |---|---|---|
 * | `X-Content-Type-Options` | `nosniff` | browsers use the declared type, not a guess |
 * | `Referrer-Policy` | `strict-origin-when-cross-origin` | other sites see only the origin (`no-referrer`, Helmet's, makes browsers send `Origin: null` on same-site form posts, which Origin-checking CSRF defences refuse) |
 * | `X-Frame-Options` | `DENY` | no framing (clickjacking) |
 * | `Cross-Origin-Opener-Policy` | `same-origin` | other windows get no handle on yours |
 * | `Cross-Origin-Resource-Policy` | `same-origin` | other sites cannot embed your responses with `<img>` or `<script>` (CORS requests are unaffected) |
 * | `Origin-Agent-Cluster` | `?1` | the page gets its own agent cluster |
 * | `X-DNS-Prefetch-Control` | `off` | no DNS lookups of links before a click |
 * | `X-Permitted-Cross-Domain-Policies` | `none` | no Flash/PDF cross-domain policies |
 * | `X-XSS-Protection` | `0` | the old XSS auditor is off (it could be abused) |
 * | `Strict-Transport-Security` | `max-age=31536000; includeSubDomains`, on `https:` requests only | browsers keep to HTTPS for a year |
 * | `X-Powered-By` | removed | no free hints |
 *
 * Each is changed with a string or turned off with `false`. A header the
 * handler set itself is kept (so one route can allow framing, or send its
 * own policy), unless `overwrite: true`. `Cross-Origin-Embedder-Policy`, `Content-Security-Policy`
 * and `Permissions-Policy` are sent only when given.
 *
 * The nonce goes only where it can be used: on HTML responses
 * (`text/html`, `application/xhtml+xml`) that no shared cache may keep
 * (no `public` or `s-maxage` in `Cache-Control`). A cached page would give
 * every visitor the same nonce, and a static file cannot hold a fresh one
 * (`secureHeaders()` before `serveStatic()` would otherwise put one on
 * every `public, max-age=3600` file). Other responses get the same policy
 * without its nonce sources; a directive whose only source was the nonce
 * becomes `'none'` (`script-src 'none'`). `CspNonce` is still set for
 * every request: a handler that renders HTML reads it before its
 * response exists.
 *
 * With a nonce in the policy, the rest of the chain runs in a scope
 * (`AsyncLocalStorage`) that hands the nonce to `createHtmlResponse()` for
 * a streamed page's scripts, through the handler's awaits and timers,
 * until the chain returns its response; never another request's. On Node
 * the scope is switched off whenever no request's chain is inside it, so
 * Node's async hooks cost nothing to the requests in between.
 *
 * HSTS is sent only when the request URL is `https:`: over plain HTTP
 * browsers ignore it. Behind a proxy that ends TLS, the app sees `http:`;
 * let the proxy send HSTS.
 *
 * @example A nonce-based Content-Security-Policy
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { CspNonce, secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
 * import { html } from "@fetchkit/toolkit/html-template";
 * import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
 *
 * const router = createRouter({
 *   middleware: [secureHeaders({
 *     contentSecurityPolicy: {
 *       defaultSrc: ["'self'"],
 *       scriptSrc: ["'nonce'"],
 *       styleSrc: ["'self'", "'nonce'"],
 *       objectSrc: ["'none'"],
 *       baseUri: ["'none'"],
 *       frameAncestors: ["'none'"],
 *     },
 *   })],
 * });
 * router.get("/", ({ get }) =>
 *   createHtmlResponse(
 *     html`<script nonce="${get(CspNonce)}">console.log("allowed")</script>`,
 *   )
 * );
 * const response = await router.fetch(new Request("https://example.com/"));
 * response.headers.get("Content-Security-Policy");
 * // "default-src 'self'; script-src 'nonce-…'; style-src 'self' 'nonce-…'; ..."
 * ```
 *
 * @module
 */

import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { editHeaders } from "../response/edit_headers.ts";
import { createNonce } from "./_nonce.ts";
import { runWithCspNonce } from "../runtime/csp_nonce_scope.ts";

/**
 * The context key of this request's CSP nonce (the bare base64 value), set
 * when the policy uses the source `"'nonce'"`; `undefined` otherwise.
 * Write it into `<script nonce="...">` and `<style nonce="...">`.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { CspNonce } from "@fetchkit/toolkit/secure-headers-middleware";
 * import { html } from "@fetchkit/toolkit/html-template";
 * import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
 *
 * const page: Handler = ({ get }) =>
 *   createHtmlResponse(html`<script nonce="${get(CspNonce)}">start()</script>`);
 * ```
 */
export const CspNonce: ContextKey<string | undefined> = createContextKey<
  string
>();

/**
 * A Content-Security-Policy: directive names (camelCase such as
 * `scriptSrc`, or as written, `"script-src"`) to their sources. The source
 * `"'nonce'"` becomes `'nonce-<value>'`, fresh on every request; an empty
 * list gives a directive without sources (`upgradeInsecureRequests: []`).
 */
export type ContentSecurityPolicy = Record<string, readonly string[]>;

/** Options of {@linkcode secureHeaders}: a string sets a header, `false` leaves it out. */
export interface SecureHeadersOptions {
  /**
   * `X-Content-Type-Options`.
   *
   * @default {"nosniff"}
   */
  xContentTypeOptions?: string | false;
  /**
   * `Referrer-Policy`.
   *
   * @default {"strict-origin-when-cross-origin"}
   */
  referrerPolicy?: string | false;
  /**
   * `X-Frame-Options`.
   *
   * @default {"DENY"}
   */
  xFrameOptions?: string | false;
  /**
   * `Cross-Origin-Opener-Policy`.
   *
   * @default {"same-origin"}
   */
  crossOriginOpenerPolicy?: string | false;
  /**
   * `Cross-Origin-Resource-Policy`.
   *
   * @default {"same-origin"}
   */
  crossOriginResourcePolicy?: string | false;
  /**
   * `Cross-Origin-Embedder-Policy`: off unless given, e.g. `"require-corp"`
   * (it blocks cross-origin resources that do not opt in).
   */
  crossOriginEmbedderPolicy?: string | false;
  /**
   * `Origin-Agent-Cluster`.
   *
   * @default {"?1"}
   */
  originAgentCluster?: string | false;
  /**
   * `X-DNS-Prefetch-Control`.
   *
   * @default {"off"}
   */
  xDnsPrefetchControl?: string | false;
  /**
   * `X-Permitted-Cross-Domain-Policies`.
   *
   * @default {"none"}
   */
  xPermittedCrossDomainPolicies?: string | false;
  /**
   * `X-XSS-Protection`.
   *
   * @default {"0"}
   */
  xXssProtection?: string | false;
  /**
   * `Strict-Transport-Security`, sent on `https:` requests only.
   *
   * @default {"max-age=31536000; includeSubDomains"}
   */
  strictTransportSecurity?: string | false;
  /** `Permissions-Policy`, as written, e.g. `"camera=(), geolocation=()"`. */
  permissionsPolicy?: string;
  /** `Content-Security-Policy`; the source `"'nonce'"` gets a fresh nonce per request. */
  contentSecurityPolicy?: ContentSecurityPolicy;
  /** `Content-Security-Policy-Report-Only`, the same way (they share the nonce). */
  contentSecurityPolicyReportOnly?: ContentSecurityPolicy;
  /**
   * Replace headers the handler set itself. By default a handler's own
   * `X-Frame-Options`, CSP and so on are kept (one route may allow
   * framing); `true` always sends this middleware's values, and saves the
   * check for each header (about 40 ns each).
   *
   * @default {false}
   */
  overwrite?: boolean;
  /**
   * Remove `X-Powered-By` from responses.
   *
   * @default {true}
   */
  removePoweredBy?: boolean;
}

const DEFAULTS: [keyof SecureHeadersOptions, string, string | undefined][] = [
  ["xContentTypeOptions", "X-Content-Type-Options", "nosniff"],
  ["referrerPolicy", "Referrer-Policy", "strict-origin-when-cross-origin"],
  ["xFrameOptions", "X-Frame-Options", "DENY"],
  ["crossOriginOpenerPolicy", "Cross-Origin-Opener-Policy", "same-origin"],
  ["crossOriginResourcePolicy", "Cross-Origin-Resource-Policy", "same-origin"],
  ["crossOriginEmbedderPolicy", "Cross-Origin-Embedder-Policy", undefined],
  ["originAgentCluster", "Origin-Agent-Cluster", "?1"],
  ["xDnsPrefetchControl", "X-DNS-Prefetch-Control", "off"],
  [
    "xPermittedCrossDomainPolicies",
    "X-Permitted-Cross-Domain-Policies",
    "none",
  ],
  ["xXssProtection", "X-XSS-Protection", "0"],
  ["permissionsPolicy", "Permissions-Policy", undefined],
];
const HSTS = "max-age=31536000; includeSubDomains";
const NONCE_SOURCE = "'nonce'";
const DIRECTIVE = /^[a-z][a-z-]*$/;
// No separators, quotes that end early, or controls inside a source.
// deno-lint-ignore no-control-regex -- refusing control characters is the point
const BAD_SOURCE = /[;,\s\x00-\x1f\x7f]/;

/**
 * A policy compiled to text pieces, with a nonce between each pair, and
 * the policy without its nonce sources, for responses that cannot use one.
 */
interface CompiledPolicy {
  pieces: string[];
  withoutNonce: string;
}

/** Compiles a policy; see {@linkcode CompiledPolicy}. */
function compilePolicy(
  option: string,
  policy: ContentSecurityPolicy,
): CompiledPolicy {
  if (typeof policy !== "object" || policy === null) {
    throw new TypeError(
      `secureHeaders(): ${option} must be an object of directive: sources[]`,
    );
  }
  const pieces: string[] = [];
  let text = "";
  let plain = "";
  for (const [key, sources] of Object.entries(policy)) {
    const directive = key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
    if (!DIRECTIVE.test(directive)) {
      throw new TypeError(
        `secureHeaders(): ${option} has a directive name that is not one: ${
          JSON.stringify(key)
        }`,
      );
    }
    if (!Array.isArray(sources)) {
      throw new TypeError(
        `secureHeaders(): ${option}.${key} must be a list of sources, such as ["'self'"]`,
      );
    }
    text += (text === "" && pieces.length === 0 ? "" : "; ") + directive;
    plain += (plain === "" ? "" : "; ") + directive;
    let kept = 0;
    for (const source of sources) {
      if (
        typeof source !== "string" || source === "" || BAD_SOURCE.test(source)
      ) {
        throw new TypeError(
          `secureHeaders(): ${option}.${key} has a source that is not one: ${
            JSON.stringify(source)
          } (no spaces, ";" or ",")`,
        );
      }
      if (source === NONCE_SOURCE) {
        pieces.push(text + " 'nonce-");
        text = "'";
      } else {
        text += " " + source;
        plain += " " + source;
        kept++;
      }
    }
    // A directive whose only source was the nonce allows nothing without it.
    if (kept === 0 && sources.length > 0) plain += " 'none'";
  }
  pieces.push(text);
  return { pieces, withoutNonce: plain };
}

const NO_NAMES: readonly string[] = [];

/**
 * What one `forEach` over a response's headers found: the names (each
 * once, lowercased), and the two values the nonce depends on. A response
 * has a few headers, and a `has()` or `get()` per name (on Node's undici
 * `Headers`: a brand check, a ByteString conversion, a name regex and a
 * `toLowerCase` each) cost more than one walk of them.
 */
let seenNames: string[] = [];
let seenType: string | null = null;
let seenCacheControl: string | null = null;
function see(value: string, name: string): void {
  seenNames.push(name);
  // forEach gives each name once, its values joined as get() joins them.
  if (name === "content-type") seenType = value;
  else if (name === "cache-control") seenCacheControl = value;
}

/**
 * Whether one walk beats a look-up per name: on Deno `has()` and `get()`
 * are a short loop over the header list in JavaScript, and `forEach`
 * sorts and combines the list first (the page measured about 1 % more
 * with the walk there); on Node and Bun each look-up is a conversion and
 * a native or regular-expression check.
 */
const WALK = (globalThis as { Deno?: unknown }).Deno === undefined;

/**
 * Reads `headers` into `seenNames` (those of `names` it has, or all of
 * them), `seenType` and `seenCacheControl`.
 */
function readHeaders(
  headers: Headers,
  names: readonly string[],
): readonly string[] {
  seenNames = [];
  seenType = null;
  seenCacheControl = null;
  if (WALK) {
    headers.forEach(see);
  } else {
    for (let i = 0; i < names.length; i++) {
      if (headers.has(names[i])) seenNames.push(names[i]);
    }
    seenType = headers.get("content-type");
    seenCacheControl = headers.get("cache-control");
  }
  return seenNames;
}

const SHARED_CACHE = /(?:^|[\s,])(?:public|s-maxage)\b/i;

/**
 * Whether a response can carry a fresh nonce: an HTML page (the only kind
 * that holds `<script nonce>`) that no shared cache may keep, since a
 * cached copy would hand every visitor the same nonce (and a static file
 * cannot hold a fresh one anyway). Its `Content-Type` and `Cache-Control`.
 */
function takesNonce(type: string | null, cacheControl: string | null): boolean {
  if (type === null) return false;
  const start = type.trimStart().slice(0, 21).toLowerCase();
  if (
    !start.startsWith("text/html") && !start.startsWith("application/xhtml+xml")
  ) return false;
  return cacheControl === null || !SHARED_CACHE.test(cacheControl);
}

/** The header text for one response: `pieces` joined by `nonce`. */
function fillPolicy(policy: CompiledPolicy, nonce: string | undefined): string {
  const pieces = policy.pieces;
  if (pieces.length === 1) return pieces[0];
  if (nonce === undefined) return policy.withoutNonce;
  let text = pieces[0];
  for (let i = 1; i < pieces.length; i++) text += nonce + pieces[i];
  return text;
}

/**
 * Creates middleware that adds security headers to every response; see the
 * module docs for the defaults and why.
 *
 * @example Defaults
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
 *
 * const router = createRouter({ middleware: [secureHeaders()] });
 * router.get("/", () => new Response("hello"));
 * const response = await router.fetch(new Request("http://localhost/"));
 * response.headers.get("X-Frame-Options"); // "DENY"
 * response.headers.get("Strict-Transport-Security"); // null: not https
 * ```
 *
 * @example Changing and turning off defaults
 * ```ts
 * import { secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
 *
 * const middleware = secureHeaders({
 *   xFrameOptions: "SAMEORIGIN",
 *   crossOriginResourcePolicy: false, // images embedded by other sites
 *   strictTransportSecurity: "max-age=63072000; includeSubDomains; preload",
 *   permissionsPolicy: "camera=(), microphone=(), geolocation=()",
 * });
 * ```
 *
 * @param options Header values, `false` to leave one out, and the CSP.
 * @returns The middleware.
 * @throws {TypeError} When a header value is not a string or `false`, or a
 * CSP directive or source is malformed.
 */
export function secureHeaders(options: SecureHeadersOptions = {}): Middleware {
  const fixed: [string, string][] = [];
  for (const [option, header, value] of DEFAULTS) {
    const given = options[option];
    const chosen = given === undefined ? value : given;
    if (chosen === undefined || chosen === false) continue;
    if (typeof chosen !== "string" || /[\r\n]/.test(chosen)) {
      throw new TypeError(
        `secureHeaders(): ${option} must be a header value or false, got ${
          JSON.stringify(chosen)
        }`,
      );
    }
    fixed.push([header, chosen]);
  }
  const hsts = options.strictTransportSecurity ?? HSTS;
  if (hsts !== false && (typeof hsts !== "string" || /[\r\n]/.test(hsts))) {
    throw new TypeError(
      `secureHeaders(): strictTransportSecurity must be a header value or false, got ${
        JSON.stringify(hsts)
      }`,
    );
  }
  const csp = options.contentSecurityPolicy === undefined
    ? undefined
    : compilePolicy("contentSecurityPolicy", options.contentSecurityPolicy);
  const cspReport = options.contentSecurityPolicyReportOnly === undefined
    ? undefined
    : compilePolicy(
      "contentSecurityPolicyReportOnly",
      options.contentSecurityPolicyReportOnly,
    );
  const usesNonce = (csp?.pieces.length ?? 0) > 1 ||
    (cspReport?.pieces.length ?? 0) > 1;
  const removePoweredBy = options.removePoweredBy ?? true;
  const overwrite = options.overwrite ?? false;
  const count = fixed.length;
  const lowerNames = fixed.map(([name]) => name.toLowerCase());
  // Every name apply() asks about, for the look-ups (see WALK).
  const asked = [
    ...lowerNames,
    "strict-transport-security",
    "content-security-policy",
    "content-security-policy-report-only",
  ];

  /** Sets each header whose name is not in `own` (the handler's). */
  function apply(
    headers: Headers,
    https: boolean,
    nonce: string | undefined,
    own: readonly string[],
  ): void {
    for (let i = 0; i < count; i++) {
      const pair = fixed[i];
      if (!own.includes(lowerNames[i])) headers.set(pair[0], pair[1]);
    }
    if (
      https && hsts !== false &&
      !own.includes("strict-transport-security")
    ) {
      headers.set("Strict-Transport-Security", hsts);
    }
    if (
      csp !== undefined &&
      !own.includes("content-security-policy")
    ) {
      headers.set("Content-Security-Policy", fillPolicy(csp, nonce));
    }
    if (
      cspReport !== undefined &&
      !own.includes("content-security-policy-report-only")
    ) {
      headers.set(
        "Content-Security-Policy-Report-Only",
        fillPolicy(cspReport, nonce),
      );
    }
    if (removePoweredBy) headers.delete("X-Powered-By");
  }

  return async function secureHeaders(context, next) {
    let nonce: string | undefined;
    if (usesNonce) {
      nonce = createNonce();
      context.set(CspNonce, nonce);
    }
    const https = context.request.url.startsWith("https:");
    // createHtmlResponse() finds the nonce for a streamed page's scripts.
    const response = nonce === undefined
      ? await next()
      : await runWithCspNonce(nonce, next);
    // One pass over the handler's headers: the names it set (kept unless
    // `overwrite`) and what decides whether the nonce can be used.
    let own = NO_NAMES;
    let used: string | undefined;
    if (!overwrite || nonce !== undefined) {
      const names = readHeaders(
        response.headers,
        overwrite ? NO_NAMES : asked,
      );
      if (!overwrite) own = names;
      if (nonce !== undefined && takesNonce(seenType, seenCacheControl)) {
        used = nonce;
      }
    }
    return editHeaders(
      response,
      (headers) => apply(headers, https, used, own),
      0,
    );
  };
}
