/**
 * The code exchange at the token endpoint (RFC 6749 4.1.3 with the PKCE
 * verifier of RFC 7636), and the provider's answer read into tokens.
 */
import { toBase64Url } from "../runtime/base64.ts";
import { OAuthError } from "./_errors.ts";
import { badGateway, jsonObject } from "./_fetch.ts";

/** What the token endpoint handed out. */
export interface OAuthTokens {
  /** The access token, for the provider's APIs. */
  accessToken: string;
  /** `Bearer`, as the provider spelled it. */
  tokenType: string;
  /** Seconds the access token lives, when the provider said. */
  expiresIn?: number;
  /** Present when the provider issues one (`offline_access`...). */
  refreshToken?: string;
  /** The raw ID token (OpenID Connect providers). */
  idToken?: string;
  /** The scopes granted, when the provider said. */
  scope?: string;
}

/** How the client authenticates at the token endpoint. */
export type TokenAuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "none";

/** One exchange. */
export interface Exchange {
  tokenEndpoint: string;
  code: string;
  verifier: string;
  redirectUri: string;
  clientId: string;
  clientSecret?: string;
  method: TokenAuthMethod;
  /** Guarded (see `_fetch.ts`): no redirects, 1 MiB, one deadline. */
  fetch: typeof fetch;
}

const encode = (value: string) =>
  encodeURIComponent(value).replace(/%20/g, "+");

/** Exchanges the code; an OAuth error answer is a 400 naming it. */
export async function exchangeCode(exchange: Exchange): Promise<OAuthTokens> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
    code_verifier: exchange.verifier,
  });
  const headers: Record<string, string> = {
    Accept: "application/json",
    "Content-Type": "application/x-www-form-urlencoded",
  };
  if (exchange.method === "client_secret_basic") {
    // RFC 6749 2.3.1: both parts form-encoded before Base64.
    const pair = `${encode(exchange.clientId)}:${
      encode(exchange.clientSecret ?? "")
    }`;
    headers.Authorization = "Basic " +
      btoa(String.fromCharCode(...new TextEncoder().encode(pair)));
  } else {
    body.set("client_id", exchange.clientId);
    if (exchange.method === "client_secret_post") {
      body.set("client_secret", exchange.clientSecret ?? "");
    }
  }
  const response = await exchange.fetch(exchange.tokenEndpoint, {
    method: "POST",
    headers,
    body,
  });
  // A provider failing is an outage, whatever error its body names.
  if (response.status >= 500) {
    await response.body?.cancel();
    throw badGateway(`the token endpoint answered ${response.status}`);
  }
  const answer = await jsonObject(response, "the token endpoint");
  // GitHub answers an error with 200, so the body decides.
  if (typeof answer.error === "string") {
    const description = typeof answer.error_description === "string"
      ? ` (${answer.error_description.slice(0, 200)})`
      : "";
    throw new OAuthError(
      "code",
      `The provider refused the code: ${
        answer.error.slice(0, 100)
      }${description}`,
      { providerError: answer.error },
    );
  }
  if (!response.ok || typeof answer.access_token !== "string") {
    throw badGateway(
      `the token endpoint answered ${response.status} without an access token`,
    );
  }
  const tokenType = typeof answer.token_type === "string"
    ? answer.token_type
    : "Bearer";
  return {
    accessToken: answer.access_token,
    tokenType,
    expiresIn: typeof answer.expires_in === "number"
      ? answer.expires_in
      : undefined,
    refreshToken: typeof answer.refresh_token === "string"
      ? answer.refresh_token
      : undefined,
    idToken: typeof answer.id_token === "string" ? answer.id_token : undefined,
    scope: typeof answer.scope === "string" ? answer.scope : undefined,
  };
}

/** 32 random bytes, base64url: a state, nonce or PKCE verifier. */
export function randomToken(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}
