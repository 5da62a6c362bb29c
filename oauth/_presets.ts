import type { OAuthTokens, TokenAuthMethod } from "./_token.ts";
import { gitHubUser, type OAuthClaims } from "./_user.ts";

/**
 * What a provider preset fills in; spread it into
 * `createOAuthClient({ ...google(), clientId, ... })`, and override any
 * part after it.
 */
export interface OAuthProviderPreset {
  /** A display name for buttons: "Google". */
  name: string;
  /** The OpenID Provider's issuer (discovery). */
  issuer?: string;
  /** Plain OAuth 2: the authorization endpoint. */
  authorizationEndpoint?: string;
  /** Plain OAuth 2: the token endpoint. */
  tokenEndpoint?: string;
  /** Where claims are read with the access token. */
  userinfoEndpoint?: string;
  /** The scopes asked for. */
  scopes: string[];
  /** The issuer is a pattern with `{tenantid}` (Microsoft's `common`). */
  multiTenant?: boolean;
  /** How the client secret is sent. */
  tokenEndpointAuthMethod?: TokenAuthMethod;
  /** Adjusts the claims (Microsoft: `email_verified` from `xms_edov`). */
  mapClaims?: (claims: OAuthClaims) => OAuthClaims;
  /** Reads the user with the access token (GitHub). */
  fetchUser?: (
    tokens: OAuthTokens,
    fetch: typeof globalThis.fetch,
  ) => Promise<OAuthClaims>;
}

const OIDC_SCOPES = ["openid", "email", "profile"];

/**
 * Google (OpenID Connect, discovered from `https://accounts.google.com`).
 * Its ID token carries `email` and `email_verified`.
 *
 * @example
 * ```ts
 * import { google } from "@fetchkit/toolkit/oauth";
 *
 * console.log(google().issuer); // "https://accounts.google.com"
 * ```
 */
export function google(): OAuthProviderPreset {
  return {
    name: "Google",
    issuer: "https://accounts.google.com",
    scopes: [...OIDC_SCOPES],
  };
}

/**
 * Microsoft Entra ID (OpenID Connect, v2.0 endpoints). `tenant` is a
 * tenant id or domain for one organization; `common` (the default),
 * `organizations` and `consumers` admit many tenants, and the ID token's
 * issuer is then checked as the pattern with the token's own `tid`.
 * Entra sends no `email_verified`, and its `email` is whatever the
 * tenant typed: the preset sets `email_verified` to `true` only when the
 * optional claim `xms_edov` ("email domain owner verified") is true. Add
 * `xms_edov` (and `email`) under "Token configuration" in the app
 * registration, or every Entra email counts as unverified.
 *
 * @example
 * ```ts
 * import { microsoft } from "@fetchkit/toolkit/oauth";
 *
 * console.log(microsoft({ tenant: "contoso.onmicrosoft.com" }).issuer);
 * // "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0"
 * ```
 */
export function microsoft(
  options: { tenant?: string } = {},
): OAuthProviderPreset {
  const tenant = options.tenant ?? "common";
  return {
    name: "Microsoft",
    issuer: `https://login.microsoftonline.com/${
      encodeURIComponent(tenant)
    }/v2.0`,
    scopes: [...OIDC_SCOPES],
    multiTenant: ["common", "organizations", "consumers"].includes(tenant),
    mapClaims: (claims) => ({
      ...claims,
      email_verified: claims.xms_edov === true || claims.xms_edov === "1" ||
        claims.xms_edov === 1,
    }),
  };
}

/**
 * GitHub (plain OAuth 2: no ID token). The user is read from its API
 * (`/user`, and `/user/emails` for the primary address and whether it is
 * verified) and returned as OpenID claims (`sub` is the numeric user id).
 * `baseUrl` and `apiUrl` point at GitHub Enterprise Server.
 *
 * @example
 * ```ts
 * import { github } from "@fetchkit/toolkit/oauth";
 *
 * console.log(github().scopes); // [ "read:user", "user:email" ]
 * ```
 */
export function github(
  options: { baseUrl?: string; apiUrl?: string } = {},
): OAuthProviderPreset {
  const base = (options.baseUrl ?? "https://github.com").replace(/\/$/, "");
  const api = (options.apiUrl ?? "https://api.github.com").replace(/\/$/, "");
  return {
    name: "GitHub",
    authorizationEndpoint: `${base}/login/oauth/authorize`,
    tokenEndpoint: `${base}/login/oauth/access_token`,
    scopes: ["read:user", "user:email"],
    tokenEndpointAuthMethod: "client_secret_post",
    fetchUser: (tokens, fetcher) => gitHubUser(api, tokens, fetcher),
  };
}

/**
 * Any OpenID Provider (Keycloak, Auth0, Okta, Authentik, Dex...), found
 * through `issuer`'s `/.well-known/openid-configuration`.
 *
 * @example
 * ```ts
 * import { oidc } from "@fetchkit/toolkit/oauth";
 *
 * console.log(oidc("https://sso.example.com/realms/staff").scopes);
 * // [ "openid", "email", "profile" ]
 * ```
 */
export function oidc(issuer: string, name = "OpenID"): OAuthProviderPreset {
  return { name, issuer, scopes: [...OIDC_SCOPES] };
}
