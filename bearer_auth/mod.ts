/**
 * Bearer token authentication (RFC 6750): requests must carry
 * `Authorization: Bearer <token>` with one of the accepted tokens, or a
 * token your `verify` function accepts; others get `401` with a
 * `WWW-Authenticate: Bearer` challenge. Tokens are compared in constant
 * time. For signed tokens (JWT), see `@fetchkit/toolkit/jwt-middleware`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
 *
 * const router = createRouter();
 * router.mount("/admin", (admin) => {
 *   admin.use(bearerAuth({ token: "a-long-random-token-from-your-secrets" }));
 *   admin.get("/stats", () => Response.json({ users: 3 }));
 * });
 * const denied = await router.fetch(new Request("http://localhost/admin/stats"));
 * denied.status; // 401
 * denied.headers.get("WWW-Authenticate"); // 'Bearer realm="api"'
 * ```
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { HttpError } from "../http_error/mod.ts";
import { markCredential } from "../cache/credential.ts";
import { digestOf, digestsEqual, quoteParam } from "../crypto/compare.ts";

/** Options of {@linkcode bearerAuth}: `token` or `verify`. */
export interface BearerAuthOptions {
  /** The accepted token, or several (during a rotation). */
  token?: string | readonly string[];
  /**
   * Decides whether a token is accepted (a database lookup, say); may be
   * async. Compare secrets in constant time when you write one.
   */
  verify?: (
    token: string,
    context: RequestContext,
  ) => boolean | Promise<boolean>;
  /**
   * The `realm` of the challenge.
   *
   * @default {"api"}
   */
  realm?: string;
  /**
   * The longest token looked at; a longer one is refused unread.
   *
   * @default {4096}
   */
  maxLength?: number;
}

/**
 * The context key of the accepted bearer token: `context.get(BearerToken)`
 * after `bearerAuth()` let the request through.
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { BearerToken } from "@fetchkit/toolkit/bearer-auth-middleware";
 *
 * const handler: Handler = ({ get }) =>
 *   new Response(`token ending ${get(BearerToken)?.slice(-4)}`);
 * ```
 */
export const BearerToken: ContextKey<string | undefined> = createContextKey<
  string
>();

// RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The token of an `Authorization: Bearer <token>` header (scheme in any
 * case): `undefined` when there is no such header, `""` when it names
 * another scheme or its token is malformed (not an RFC 6750 b64token) or
 * longer than `maxLength`.
 *
 * @example
 * ```ts
 * import { bearerTokenOf } from "@fetchkit/toolkit/bearer-auth-middleware";
 *
 * bearerTokenOf("Bearer abc.def", 4096); // "abc.def"
 * bearerTokenOf("Basic YTpi", 4096); // ""
 * bearerTokenOf(null, 4096); // undefined
 * ```
 *
 * @param header The `Authorization` header, or `null`.
 * @param maxLength The longest token accepted.
 * @returns The token, `""`, or `undefined`.
 */
export function bearerTokenOf(
  header: string | null,
  maxLength: number,
): string | undefined {
  if (header === null) return undefined;
  // Scheme names are case-insensitive (RFC 9110 §11.1).
  if (header.length < 7 || header.slice(0, 7).toLowerCase() !== "bearer ") {
    return header.trim() === "" ? undefined : "";
  }
  const token = header.slice(7).trim();
  if (token.length > maxLength || !B64TOKEN.test(token)) return "";
  return token;
}

/** A 401 answered as the router answers an HttpError (JSON when preferred). */
function unauthorized(
  challenge: string,
  message: string,
  request: Request,
): Response {
  return new HttpError(401, message, {
    headers: { "WWW-Authenticate": challenge },
  }).toResponse(request);
}

/**
 * Creates middleware that lets through requests whose `Authorization:
 * Bearer` token is accepted, and answers the others with `401`:
 *
 * - no `Authorization` header: `WWW-Authenticate: Bearer realm="api"`
 *   (RFC 6750 §3: no error code when no credentials were sent);
 * - another scheme, a malformed or too long token, or a token not
 *   accepted: `WWW-Authenticate: Bearer realm="api", error="invalid_token"`.
 *
 * The accepted token is then `context.get(BearerToken)`. A token is never
 * read from the query string or the body.
 *
 * @example Tokens from the environment, several during a rotation
 * ```ts
 * import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
 *
 * const auth = bearerAuth({ token: ["new-token-0123456789", "old-token-0123456789"] });
 * ```
 *
 * @example An async lookup
 * ```ts
 * import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
 *
 * const revoked = new Set<string>();
 * const auth = bearerAuth({
 *   verify: async (token) => token.startsWith("svc_") && !revoked.has(token),
 * });
 * ```
 *
 * @param options `token` or `verify`, and `realm`.
 * @returns The middleware.
 * @throws {TypeError} When neither or both of `token` and `verify` are
 * given, a token is empty or not a valid bearer token, or `realm` has
 * control characters.
 */
export function bearerAuth(options: BearerAuthOptions): Middleware {
  const { token, verify, realm = "api", maxLength = 4096 } = options;
  if ((token === undefined) === (verify === undefined)) {
    throw new TypeError(
      "bearerAuth() needs exactly one of `token` (the accepted tokens) and `verify` (a function)",
    );
  }
  const base = `Bearer realm=${quoteParam(realm, "bearerAuth() realm")}`;
  const invalid = `${base}, error="invalid_token"`;
  let digests: Uint8Array[] = [];
  if (token !== undefined) {
    const tokens = typeof token === "string" ? [token] : [...token];
    if (tokens.length === 0) {
      throw new TypeError("bearerAuth(): `token` lists no token");
    }
    for (const one of tokens) {
      if (typeof one !== "string" || !B64TOKEN.test(one)) {
        throw new TypeError(
          "bearerAuth(): each token must be a non-empty string of letters, digits and -._~+/ (RFC 6750 b64token)",
        );
      }
    }
    digests = tokens.map(digestOf);
  }

  async function accepted(
    given: string,
    context: RequestContext,
  ): Promise<boolean> {
    if (verify !== undefined) return (await verify(given, context)) === true;
    const digest = digestOf(given);
    // Every accepted token is compared, so the time does not tell which matched.
    let match = 0;
    for (const one of digests) match |= Number(digestsEqual(digest, one));
    return match === 1;
  }

  return async (context, next) => {
    const given = bearerTokenOf(
      context.request.headers.get("Authorization"),
      maxLength,
    );
    if (given === undefined) {
      return unauthorized(
        base,
        "Authentication required: send Authorization: Bearer <token>",
        context.request,
      );
    }
    if (given === "" || !(await accepted(given, context))) {
      return unauthorized(
        invalid,
        "The bearer token is not valid",
        context.request,
      );
    }
    context.set(BearerToken, given);
    // What comes next answers this token's holder: cache() keeps it.
    markCredential(context);
    return next();
  };
}
