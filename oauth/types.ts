/**
 * The sign-in client's public types: its options, `authorize()`'s options,
 * what `callback()` returns and the client itself. `mod.ts` and the
 * private checks (`_checks.ts`) both read them here, so imports run one
 * way: no part imports `mod.ts`.
 *
 * @module
 */
import type { AnyContextKey, RequestContext } from "../router/mod.ts";
import type { OAuthTokens, TokenAuthMethod } from "./_token.ts";
import type { OAuthClaims } from "./_user.ts";

/** Options of {@linkcode createOAuthClient}. */
export interface OAuthClientOptions {
  /** A display name ("Google"); presets set it. Not used by the client. */
  name?: string;
  /**
   * The OpenID Provider's issuer: its discovery document is read from
   * `issuer + "/.well-known/openid-configuration"` unless both endpoints
   * below are given. Needed for the `openid` scope.
   */
  issuer?: string;
  /** Plain OAuth 2: the authorization endpoint (with `tokenEndpoint`). */
  authorizationEndpoint?: string;
  /** Plain OAuth 2: the token endpoint (with `authorizationEndpoint`). */
  tokenEndpoint?: string;
  /** Where claims are read with the access token (OpenID `userinfo`). */
  userinfoEndpoint?: string;
  /** The provider's keys, when not discovered. */
  jwksUri?: string;
  /**
   * Reads the user with the access token, for providers with neither an
   * ID token nor a `userinfo` endpoint (GitHub's preset sets it). The
   * `fetch` it is given follows no redirect (a `3xx` is a `502`), reads
   * at most 1 MiB and holds to `providerTimeout`.
   */
  fetchUser?: (
    tokens: OAuthTokens,
    fetch: typeof globalThis.fetch,
  ) => Promise<OAuthClaims>;
  /**
   * Adjusts the claims before `callback()` returns them (the Microsoft
   * preset sets `email_verified` from Entra's `xms_edov`).
   */
  mapClaims?: (claims: OAuthClaims) => OAuthClaims;
  /**
   * The discovered issuer holds `{tenantid}`, filled from each ID token's
   * `tid` (Microsoft's `common`); the preset sets it.
   */
  multiTenant?: boolean;
  /** The client id the provider gave the app. */
  clientId: string;
  /** The client secret; leave it out for a public client (PKCE alone). */
  clientSecret?: string;
  /**
   * How the secret is sent. Default: `client_secret_basic` when the
   * provider lists it or lists nothing, else `client_secret_post`;
   * `none` without a secret.
   */
  tokenEndpointAuthMethod?: TokenAuthMethod;
  /** The callback URL, exactly as registered with the provider. */
  redirectUri: string;
  /** Default `["openid", "email", "profile"]`. */
  scopes?: string[];
  /** The context key `session()` stores the session under. */
  session: AnyContextKey;
  /** More authorization request parameters (`prompt`, `hd`, `login_hint`). */
  authorizationParams?: Record<string, string>;
  /**
   * Seconds a started sign-in may take.
   *
   * @default {600}
   */
  ttl?: number;
  /**
   * Seconds of clock skew allowed on the ID token's `exp` and `iat`.
   *
   * @default {30}
   */
  clockTolerance?: number;
  /**
   * Seconds a provider request may take, its whole body included; a
   * request that takes longer is a `502`.
   *
   * @default {10}
   */
  providerTimeout?: number;
  /**
   * The `fetch` for every provider request. Default `globalThis.fetch`.
   * It is called with `redirect: "manual"` and a deadline `signal`; its
   * answer is read up to 1 MiB.
   */
  fetch?: typeof globalThis.fetch;
}

/** Options of {@linkcode OAuthClient.authorize}. */
export interface AuthorizeOptions {
  /** A local path to come back to; anything else is dropped. */
  returnTo?: string;
  /** More authorization request parameters for this sign-in. */
  params?: Record<string, string>;
  /**
   * Seconds: ask the provider to authenticate the user again when their
   * last sign-in there is older (sent as `max_age`, OpenID Connect Core
   * §3.1.2.1; `0` always asks, like `prompt=login`, which you may send
   * too in `params`). `callback()` then requires the ID token's
   * `auth_time` and refuses it when older than `maxAuthAge` (default
   * `maxAge`) plus `clockTolerance`, with reason `"auth_time"`: a
   * provider that ignores `max_age` is caught. Needs the `openid` scope.
   * Use it to re-authenticate a signed-in user ("sudo mode").
   */
  maxAge?: number;
  /**
   * Seconds: the oldest `auth_time` `callback()` accepts when `maxAge` is
   * given, for the time a user may spend at the provider between signing
   * in and coming back (a consent screen). Default `maxAge`.
   */
  maxAuthAge?: number;
}

/** What {@linkcode OAuthClient.callback} returns. */
export interface OAuthResult {
  /** Who signed in. */
  claims: OAuthClaims;
  /** The tokens from the token endpoint. */
  tokens: OAuthTokens;
  /** The local path given to `authorize()`, if it was one. */
  returnTo: string | undefined;
  /**
   * The `maxAge` given to `authorize()` for this sign-in, when one was:
   * its ID token's `auth_time` was checked (see `maxAuthAge`). An app
   * that re-authenticates through its sign-in callback tells the two
   * apart by it. (Optional in the type, so results made by hand, such as
   * a test's stand-in client, need not set it.)
   */
  maxAge?: number;
}

/** A client for one provider; see the module docs. */
export interface OAuthClient {
  /**
   * The redirect to the provider (`302`, or `303` for a non-GET request),
   * with a new sign-in kept in the session.
   */
  authorize(
    context: RequestContext,
    options?: AuthorizeOptions,
  ): Promise<Response>;
  /**
   * Checks the provider's answer on the callback route and returns who
   * signed in; throws {@linkcode OAuthError} (400) naming what failed.
   */
  callback(context: RequestContext): Promise<OAuthResult>;
}
