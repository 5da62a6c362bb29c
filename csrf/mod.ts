/**
 * Cross-site request forgery protection from the headers browsers send,
 * with no token in forms: `csrf()` refuses an unsafe request (any method
 * but `GET`, `HEAD` and `OPTIONS`) that a browser made on behalf of
 * another site.
 *
 * - `Sec-Fetch-Site` (sent by every current browser) decides first:
 *   `same-origin` and `none` (typed in the address bar, a bookmark) pass;
 *   `cross-site` and `same-site` are refused. `same-site` is refused too
 *   because a sibling subdomain (`evil.example.com` against
 *   `app.example.com`) is another origin and may be less trusted; list it
 *   in `allowedOrigins` to let it through.
 * - Without `Sec-Fetch-Site` (older browsers), a request whose `Origin`
 *   header is present and whose host differs from the request's `Host`
 *   (or URL host) is refused. `Origin: null` is refused.
 * - With neither header the request passes: it did not come from a
 *   browser that could be tricked into sending it (curl, server-to-server).
 *
 * Hosts are compared, not schemes, so an app behind a TLS-terminating
 * proxy (where the request URL says `http:` and the browser `https:`)
 * still works. Refused requests get `403 Forbidden` (or `onRejected`'s
 * answer). This is the approach of Go's `http.CrossOriginProtection` and
 * of the OWASP cheat sheet's "Fetch Metadata" defence; it relies on cookies
 * being `SameSite=Lax` or stricter for browsers that send neither header.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { csrf } from "@fetchkit/toolkit/csrf-middleware";
 *
 * const router = createRouter({ middleware: [csrf()] });
 * router.post("/transfer", () => new Response("done"));
 *
 * const attack = new Request("http://bank.example/transfer", {
 *   method: "POST",
 *   headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
 * });
 * (await router.fetch(attack)).status; // 403
 * ```
 *
 * @module
 */
import type { Middleware } from "../router/types.ts";
import type { RequestContext } from "../router/context.ts";
import { NativeResponse } from "../response/native.ts";

/** Options of {@linkcode csrf}. */
export interface CsrfOptions {
  /**
   * Other origins whose unsafe requests are trusted, written as a browser
   * sends `Origin`: scheme, host and port, no path
   * (`"https://admin.example.com"`).
   */
  allowedOrigins?: readonly string[];
  /** Answers a refused request. Default: `403` with the text `Forbidden`. */
  onRejected?: (context: RequestContext) => Response | Promise<Response>;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function forbidden(): Response {
  return new NativeResponse("Forbidden", {
    status: 403,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Length": "9",
    },
  });
}

function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(
      `csrf(): allowedOrigins entry "${origin}" is not a URL such as "https://app.example.com"`,
    );
  }
  if (url.origin === "null" || url.origin !== origin) {
    throw new TypeError(
      `csrf(): allowedOrigins entry "${origin}" must be an origin (scheme, host, port; no path or trailing slash), such as "${url.origin}"`,
    );
  }
  return origin;
}

/** The host the request was sent to: the `Host` header, else the URL's. */
function requestHost(context: RequestContext): string {
  // context.url is parsed once per request and shared with the handler.
  return context.request.headers.get("host") ?? context.url.host;
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * Creates the CSRF middleware. Put it in the router's middleware, before
 * anything that acts on the body, so a refused request costs nothing.
 *
 * @example Trust a second origin
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { csrf } from "@fetchkit/toolkit/csrf-middleware";
 *
 * const router = createRouter({
 *   middleware: [csrf({ allowedOrigins: ["https://admin.example.com"] })],
 * });
 * ```
 *
 * @param options Trusted origins and the answer to refused requests.
 * @returns The middleware.
 * @throws {TypeError} When an `allowedOrigins` entry is not an origin.
 */
export function csrf(options: CsrfOptions = {}): Middleware {
  const allowed = new Set((options.allowedOrigins ?? []).map(checkOrigin));
  const reject = options.onRejected ?? forbidden;

  function crossOrigin(context: RequestContext): boolean {
    const headers = context.request.headers;
    const origin = headers.get("origin");
    if (origin !== null && allowed.has(origin)) return false;
    const site = headers.get("sec-fetch-site");
    if (site !== null) return site !== "same-origin" && site !== "none";
    if (origin === null) return false;
    return hostOf(origin) !== requestHost(context);
  }

  return (context, next) => {
    if (SAFE_METHODS.has(context.request.method) || !crossOrigin(context)) {
      return next();
    }
    return reject(context);
  };
}
