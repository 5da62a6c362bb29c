/**
 * Sign-in with OpenID Connect and OAuth 2 providers: the authorization
 * code flow with PKCE (S256), for confidential clients (with a secret)
 * and public ones (PKCE alone).
 *
 * Two calls, each in one handler:
 *
 * - `authorize(context, { returnTo })` answers with the redirect to the
 *   provider. It keeps a fresh `state`, PKCE `code_verifier` and `nonce`
 *   (32 random bytes each) in the session, under `_oauth`, for 10 minutes
 *   (`ttl`); at most 5 sign-ins per session are pending at once (the
 *   oldest is dropped).
 * - `callback(context)` on the `redirectUri` route takes that entry out
 *   of the session (single use: a second callback with the same `state`
 *   is refused), then checks in order: `state`; the provider's `error`
 *   (`access_denied`...); `iss` (RFC 9207: must be the issuer when sent,
 *   and must be sent when the provider says it sends it); the code
 *   exchange with the verifier (a used, expired or foreign code, or a
 *   wrong verifier, is the provider's `invalid_grant`); the ID token: its
 *   signature with the provider's JWKS (`jose`), `iss`, `aud` (and `azp`),
 *   `exp` and `iat` (30 s of clock tolerance), and the `nonce`. It returns
 *   `{ claims, tokens, returnTo }`, or throws an {@linkcode OAuthError}, an
 *   `HttpError` 400 whose message names what failed and whose `reason`
 *   says it for code. A provider that cannot be reached or answers
 *   nonsense is an `HttpError` `502` (discovery, the token endpoint, its
 *   keys at `jwks_uri`, a `5xx` from its user API), so an app can tell an
 *   outage ("try again later") from a refused sign-in.
 *
 * Re-authentication ("sudo mode"): `authorize(context, { maxAge: 0,
 * params: { prompt: "login" } })` asks the provider to make the user sign
 * in again (`max_age`, OpenID Connect Core §3.1.2.1), and `callback()`
 * then requires the ID token's `auth_time` and refuses one older than
 * `maxAuthAge` (default `maxAge`) plus the clock tolerance, or missing,
 * as an {@linkcode OAuthError} with reason `"auth_time"` (so a provider
 * that ignores `max_age` is caught). The result's `maxAge` says the
 * sign-in asked for it. Compare `claims.sub` with the identity linked to
 * the signed-in user yourself. {@linkcode checkAuthTime} is the same
 * check, for claims at hand.
 *
 * The callback's `state`, `code`, `iss`, `error`, `error_description`
 * and `error_uri` must each come at most once (RFC 6749 §3.1): a
 * repeated one is refused before anything else is looked at. The ID
 * token's `iat` may not be later than now plus the clock tolerance.
 *
 * Requests to the provider (discovery, the token endpoint, `userinfo`,
 * the keys at `jwks_uri`, and `fetchUser`'s through the `fetch` it is
 * given) never follow a redirect: a `3xx` is a `502`, since following
 * the token request's would hand the code, the PKCE verifier and a secret
 * sent in the body to wherever it points. Each answer is read up to
 * 1 MiB, and one deadline (`providerTimeout`, 10 s) covers its headers and
 * its whole body; more, or later, is a `502`. A `5xx` from the token
 * endpoint is a `502` whatever error its body names, and a `200` whose body
 * is not a JSON object (`null`) is a `502` too.
 *
 * The session is whatever `session()` stores under the context key
 * `session` (as `idempotency()` takes it); sign the user in after
 * `callback()` with a new session id (`session.regenerateId(true)`).
 * Catch {@linkcode OAuthError} in the callback handler and answer a page
 * (`error.toResponse()` or your own): `session()` saves nothing for a
 * handler that throws, so a thrown one leaves the used sign-in in the
 * stored session until its `ttl` (refused again all the same: the
 * provider's codes are single use).
 *
 * Providers: `issuer` alone is an OpenID Provider, found by discovery
 * (`/.well-known/openid-configuration`, fetched on first use and kept a
 * day); explicit `authorizationEndpoint` and `tokenEndpoint` make a plain
 * OAuth 2 provider, whose user comes from `userinfoEndpoint` or
 * `fetchUser`. Presets: {@linkcode google}, {@linkcode microsoft} (Entra
 * ID), {@linkcode github} (no ID token: the user comes from its API) and
 * {@linkcode oidc} (any other). Every provider URL must be `https`; plain
 * `http` is accepted on loopback only (127.0.0.1, `::1`, `localhost`).
 *
 * Claims: an OpenID Provider's come from the verified ID token; when the
 * scopes ask for `email` or `profile` and the ID token has no `email`,
 * the `userinfo` endpoint is read too (its `sub` must match). Link
 * accounts by email only when `email_verified` is `true`.
 *
 * The provider's answer comes back in the callback URL's query (the
 * default `response_mode=query`): `form_post` is not supported, since a
 * `SameSite=Lax` session cookie is not sent with a cross-site POST.
 *
 * `returnTo` is kept only when it is a path on this origin (`/x`, not
 * `//x`, `/\x` or `https://...`, at most 2048 characters); otherwise it
 * is dropped and `callback()` returns `undefined` for it.
 *
 * Written on `jose` (already a dependency) rather than `oauth4webapi`:
 * BENCHMARKS.md ("OAuth sign-in") has the install sizes and the time per
 * callback of both.
 *
 * @example Sign in with any OpenID Provider
 * ```ts ignore
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
 * import { createOAuthClient, google, OAuthError } from "@fetchkit/toolkit/oauth";
 * import { redirect } from "@fetchkit/toolkit/response/redirect";
 *
 * const Sessions = createContextKey<Session>();
 * const googleClient = createOAuthClient({
 *   ...google(),
 *   clientId: Deno.env.get("GOOGLE_CLIENT_ID")!,
 *   clientSecret: Deno.env.get("GOOGLE_CLIENT_SECRET"),
 *   redirectUri: "https://app.example.com/auth/google/callback",
 *   session: Sessions,
 * });
 * const router = createRouter({
 *   middleware: [session(Sessions, createCookieSessionStorage({ cookie: { secrets: ["…32+ characters…"] } }))],
 * });
 * router.post("/auth/google", (context) =>
 *   googleClient.authorize(context, { returnTo: context.url.searchParams.get("returnTo") ?? undefined }));
 * router.get("/auth/google/callback", async (context) => {
 *   let result;
 *   try {
 *     result = await googleClient.callback(context);
 *   } catch (error) {
 *     if (error instanceof OAuthError) return error.toResponse(context.request);
 *     throw error;
 *   }
 *   const { claims, returnTo } = result;
 *   const current = context.get(Sessions)!;
 *   current.regenerateId(true);
 *   current.set("sub", claims.sub);
 *   return redirect(returnTo ?? "/", 303);
 * });
 * ```
 *
 * @example Re-authenticate a signed-in user ("sudo mode")
 * ```ts ignore
 * import { markReauthenticated } from "@fetchkit/toolkit/reauth-middleware";
 *
 * // A form posts here; the provider must ask the user to sign in again.
 * router.post("/confirm/google", (context) =>
 *   googleClient.authorize(context, {
 *     returnTo: "/settings",
 *     maxAge: 0, // max_age=0; callback() then checks auth_time
 *     maxAuthAge: 300, // accept a sign-in there up to 5 minutes old
 *     params: { prompt: "login" },
 *   }));
 * // In the callback, for a signed-in user:
 * const { claims, maxAge, returnTo } = await googleClient.callback(context);
 * if (maxAge !== undefined && claims.sub === linkedGoogleSubOf(currentUser)) {
 *   markReauthenticated(context.get(Sessions)!, "provider");
 * }
 * ```
 *
 * @module
 */
import type { RequestContext } from "../router/mod.ts";
import { NativeResponse } from "../response/native.ts";
import {
  challengeOf,
  checkIss,
  checkOptions,
  DEFAULT_SCOPES,
  sessionOf,
} from "./_checks.ts";
import { OAuthError, type OAuthErrorReason } from "./_errors.ts";
import { checkAuthTime, checkSeconds } from "./_auth_time.ts";
import { guardFetch } from "./_fetch.ts";
import { keySets, verifyIdToken } from "./_id_token.ts";
import { discovery, explicitMetadata, type Metadata } from "./_metadata.ts";
import {
  exchangeCode,
  type OAuthTokens,
  randomToken,
  type TokenAuthMethod,
} from "./_token.ts";
import { type Pending, putPending, takePending } from "./_transactions.ts";
import { localPath } from "./_urls.ts";
import { asClaims, getJson, type OAuthClaims } from "./_user.ts";

export { OAuthError, type OAuthErrorReason } from "./_errors.ts";
export { checkAuthTime, type CheckAuthTimeOptions } from "./_auth_time.ts";
export type { OAuthClaims } from "./_user.ts";
export type { OAuthTokens, TokenAuthMethod } from "./_token.ts";
export {
  github,
  google,
  microsoft,
  type OAuthProviderPreset,
  oidc,
} from "./_presets.ts";
export type {
  AuthorizeOptions,
  OAuthClient,
  OAuthClientOptions,
  OAuthResult,
} from "./types.ts";
import type {
  AuthorizeOptions,
  OAuthClient,
  OAuthClientOptions,
  OAuthResult,
} from "./types.ts";

/** Callback parameters that may come once only (RFC 6749 §3.1). */
const SINGLE_PARAMS: [string, OAuthErrorReason][] = [
  ["state", "state"],
  ["code", "code"],
  ["iss", "iss"],
  ["error", "provider"],
  ["error_description", "provider"],
  ["error_uri", "provider"],
];

/**
 * Creates a sign-in client for one provider.
 *
 * @example A plain OAuth 2 provider (GitHub)
 * ```ts
 * import { createContextKey } from "@fetchkit/toolkit/fetch-router";
 * import { createOAuthClient, github } from "@fetchkit/toolkit/oauth";
 *
 * const Session = createContextKey();
 * const client = createOAuthClient({
 *   ...github(),
 *   clientId: "Iv1.0123456789abcdef",
 *   clientSecret: "a-secret",
 *   redirectUri: "http://localhost:8000/auth/github/callback",
 *   session: Session,
 * });
 * console.log(typeof client.authorize); // "function"
 * ```
 *
 * @param options The provider, the client's registration and the session key.
 * @returns The client, with `authorize()` and `callback()`.
 * @throws {TypeError} When an option is missing or a provider URL is
 * plain `http` off loopback.
 */
export function createOAuthClient(options: OAuthClientOptions): OAuthClient {
  checkOptions(options);
  const timeoutMs = Math.max(
    1,
    Math.round((options.providerTimeout ?? 10) * 1000),
  );
  // No redirects, 1 MiB, one deadline over headers and body.
  const fetcher = guardFetch(
    options.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs,
  );
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  const openid = scopes.includes("openid");
  const ttlMs = (options.ttl ?? 600) * 1000;
  const clockTolerance = options.clockTolerance ?? 30;
  const explicit = options.authorizationEndpoint !== undefined;
  const metadata: () => Promise<Metadata> = explicit
    ? (() => {
      const fixed = Promise.resolve(explicitMetadata({
        issuer: options.issuer,
        authorization_endpoint: options.authorizationEndpoint!,
        token_endpoint: options.tokenEndpoint!,
        userinfo_endpoint: options.userinfoEndpoint,
        jwks_uri: options.jwksUri,
      }));
      return () => fixed;
    })()
    : discovery(options.issuer!, {
      fetch: fetcher,
      multiTenant: options.multiTenant,
    });
  const keys = keySets(fetcher, timeoutMs);
  // Which client started a sign-in: several share one session.
  const clientTag = `${
    options.issuer ?? options.authorizationEndpoint
  } ${options.clientId}`;

  function authMethod(provider: Metadata): TokenAuthMethod {
    if (options.tokenEndpointAuthMethod) return options.tokenEndpointAuthMethod;
    if (options.clientSecret === undefined) return "none";
    const listed = provider.token_endpoint_auth_methods_supported;
    return !listed || listed.includes("client_secret_basic")
      ? "client_secret_basic"
      : "client_secret_post";
  }

  async function authorize(
    context: RequestContext,
    authorizeOptions: AuthorizeOptions = {},
  ): Promise<Response> {
    const session = sessionOf(context, options.session);
    const { maxAge, maxAuthAge } = authorizeOptions;
    if (maxAge !== undefined || maxAuthAge !== undefined) {
      checkSeconds("authorize", "maxAge", maxAge);
      if (!Number.isInteger(maxAge)) {
        throw new RangeError(
          `authorize(): maxAge must be whole seconds (it is sent as max_age), got ${maxAge}`,
        );
      }
      if (maxAuthAge !== undefined) {
        checkSeconds("authorize", "maxAuthAge", maxAuthAge);
      }
      if (!openid) {
        throw new TypeError(
          "authorize(): maxAge needs the openid scope (auth_time comes in the ID token)",
        );
      }
    }
    const provider = await metadata();
    const state = randomToken();
    const pending: Pending = {
      verifier: randomToken(),
      nonce: randomToken(),
      client: clientTag,
      expires: Date.now() + ttlMs,
    };
    const returnTo = localPath(authorizeOptions.returnTo);
    if (returnTo !== undefined) pending.returnTo = returnTo;
    if (maxAge !== undefined) {
      pending.maxAge = maxAge;
      pending.maxAuthAge = maxAuthAge ?? maxAge;
    }
    putPending(session, state, pending, Date.now());

    const url = new URL(provider.authorization_endpoint);
    const params = url.searchParams;
    for (
      const [name, value] of Object.entries({
        ...options.authorizationParams,
        ...authorizeOptions.params,
      })
    ) params.set(name, value);
    params.set("response_type", "code");
    params.set("client_id", options.clientId);
    params.set("redirect_uri", options.redirectUri);
    params.set("scope", scopes.join(" "));
    params.set("state", state);
    params.set("code_challenge", challengeOf(pending.verifier));
    params.set("code_challenge_method", "S256");
    if (openid) params.set("nonce", pending.nonce);
    if (maxAge !== undefined) params.set("max_age", String(maxAge));
    return new NativeResponse(null, {
      status: context.request.method === "GET" ? 302 : 303,
      headers: {
        Location: url.href,
        "Cache-Control": "no-store",
        "Content-Length": "0",
      },
    });
  }

  async function userOf(
    provider: Metadata,
    tokens: OAuthTokens,
    pending: Pending,
  ): Promise<OAuthClaims> {
    if (openid) {
      if (tokens.idToken === undefined) {
        throw new OAuthError("id_token", "The provider sent no ID token");
      }
      if (provider.jwks_uri === undefined) {
        throw new TypeError("OAuth: the provider has no jwks_uri");
      }
      const claims = await verifyIdToken(
        tokens.idToken,
        keys(provider.jwks_uri),
        {
          issuer: provider.issuer ?? options.issuer!,
          clientId: options.clientId,
          nonce: pending.nonce,
          algorithms: (provider.id_token_signing_alg_values_supported ??
            ["RS256"]).filter((alg) => alg !== "none" && !alg.startsWith("HS")),
          clockToleranceSeconds: clockTolerance,
        },
      ) as OAuthClaims;
      if (pending.maxAge !== undefined) {
        // The ID token's own auth_time: not one from userinfo, merged below.
        checkAuthTime(claims, {
          maxAge: pending.maxAuthAge ?? pending.maxAge,
          clockTolerance,
        });
      }
      const wantsMore = scopes.includes("email") || scopes.includes("profile");
      if (
        wantsMore && claims.email === undefined &&
        provider.userinfo_endpoint !== undefined
      ) {
        const extra = asClaims(
          await getJson(provider.userinfo_endpoint, tokens, fetcher),
        );
        if (extra.sub !== claims.sub) {
          throw new OAuthError(
            "user",
            "The userinfo sub is not the ID token's",
          );
        }
        return { ...extra, ...claims };
      }
      return claims;
    }
    if (options.fetchUser) return await options.fetchUser(tokens, fetcher);
    if (provider.userinfo_endpoint === undefined) {
      throw new TypeError("OAuth: no way to read the user");
    }
    return asClaims(await getJson(provider.userinfo_endpoint, tokens, fetcher));
  }

  async function callback(context: RequestContext): Promise<OAuthResult> {
    const session = sessionOf(context, options.session);
    const query = context.url.searchParams;
    for (const [name, reason] of SINGLE_PARAMS) {
      if (query.getAll(name).length > 1) {
        throw new OAuthError(
          reason,
          `The provider's answer has ${name} more than once (RFC 6749 §3.1)`,
        );
      }
    }
    const state = query.get("state");
    if (state === null || state === "") {
      throw new OAuthError("state", "The provider's answer has no state");
    }
    const taken = takePending(session, state, Date.now());
    if (taken === "expired") {
      throw new OAuthError(
        "state",
        `The sign-in expired (it must finish within ${
          ttlMs / 1000
        } s); please start again`,
      );
    }
    if (taken === undefined || taken.client !== clientTag) {
      throw new OAuthError(
        "state",
        "The state does not match a sign-in started in this session (wrong, used or expired)",
      );
    }
    const provider = await metadata();
    checkIss(provider, options.issuer, query.get("iss"));
    const error = query.get("error");
    if (error !== null) {
      const description = query.get("error_description");
      throw new OAuthError(
        "provider",
        `The provider refused the sign-in: ${error.slice(0, 100)}${
          description ? ` (${description.slice(0, 200)})` : ""
        }`,
        { providerError: error },
      );
    }
    const code = query.get("code");
    if (code === null || code === "") {
      throw new OAuthError("code", "The provider's answer has no code");
    }
    const tokens = await exchangeCode({
      tokenEndpoint: provider.token_endpoint,
      code,
      verifier: taken.verifier,
      redirectUri: options.redirectUri,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      method: authMethod(provider),
      fetch: fetcher,
    });
    const claims = await userOf(provider, tokens, taken);
    return {
      claims: options.mapClaims ? options.mapClaims(claims) : claims,
      tokens,
      returnTo: taken.returnTo,
      maxAge: taken.maxAge,
    };
  }

  return { authorize, callback };
}
