/** Checks of the options, the session and the answer's `iss`. */
import type { AnyContextKey, RequestContext } from "../router/mod.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { toBase64Url } from "../runtime/base64.ts";
import { OAuthError } from "./_errors.ts";
import type { Metadata } from "./_metadata.ts";
import type { SessionLike } from "./_transactions.ts";
import { providerUrl } from "./_urls.ts";
import type { OAuthClientOptions } from "./types.ts";

/** The scopes asked for when none are given. */
export const DEFAULT_SCOPES = ["openid", "email", "profile"];

/** The S256 PKCE challenge of `verifier`. */
export function challengeOf(verifier: string): string {
  return toBase64Url(sha256(new TextEncoder().encode(verifier)));
}

export function sessionOf(
  context: RequestContext,
  key: AnyContextKey,
): SessionLike {
  const value = context.get(key) as SessionLike | undefined;
  if (typeof value?.get !== "function" || typeof value.set !== "function") {
    throw new TypeError(
      "OAuth: no session under the `session` key; run session() before this route",
    );
  }
  return value;
}

export function checkOptions(options: OAuthClientOptions): void {
  if (typeof options.clientId !== "string" || options.clientId === "") {
    throw new TypeError("OAuth: clientId is required");
  }
  if (options.session === undefined) {
    throw new TypeError(
      "OAuth: session is required (the context key given to session())",
    );
  }
  try {
    new URL(options.redirectUri);
  } catch {
    throw new TypeError(
      `OAuth: redirectUri must be an absolute URL: "${options.redirectUri}"`,
    );
  }
  const explicit = options.authorizationEndpoint !== undefined ||
    options.tokenEndpoint !== undefined;
  if (
    explicit &&
    (options.authorizationEndpoint === undefined ||
      options.tokenEndpoint === undefined)
  ) {
    throw new TypeError(
      "OAuth: give both authorizationEndpoint and tokenEndpoint, or neither",
    );
  }
  if (!explicit && options.issuer === undefined) {
    throw new TypeError(
      "OAuth: give issuer (OpenID Connect) or authorizationEndpoint and tokenEndpoint",
    );
  }
  if (options.issuer !== undefined) providerUrl(options.issuer, "issuer");
  const openid = (options.scopes ?? DEFAULT_SCOPES).includes("openid");
  if (openid && options.issuer === undefined) {
    throw new TypeError("OAuth: the openid scope needs issuer");
  }
  if (
    !openid && options.userinfoEndpoint === undefined &&
    options.fetchUser === undefined && options.issuer === undefined
  ) {
    throw new TypeError(
      "OAuth: without the openid scope, give userinfoEndpoint or fetchUser to read the user",
    );
  }
  const timeout = options.providerTimeout;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new TypeError(
      `OAuth: providerTimeout must be seconds (> 0), not ${timeout}`,
    );
  }
  for (const name of ["ttl", "clockTolerance"] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new TypeError(
        `OAuth: ${name} must be seconds (>= 0), not ${value}`,
      );
    }
  }
}

/**
 * RFC 9207: `iss` of the answer must be the issuer when sent (the
 * issuer's pattern for a multi-tenant one), and must be sent when the
 * provider says it always sends it.
 */
export function checkIss(
  provider: Metadata,
  configured: string | undefined,
  iss: string | null,
): void {
  const expected = provider.issuer ?? configured;
  if (iss === null) {
    if (provider.authorization_response_iss_parameter_supported === true) {
      throw new OAuthError(
        "iss",
        "The provider's answer lacks iss, which it says it always sends (RFC 9207)",
      );
    }
    return;
  }
  if (expected === undefined) return;
  const pattern = expected.includes("{tenantid}")
    ? new RegExp(
      "^" + expected.split("{tenantid}").map(escapeRegExp).join("[^/]+") +
        "$",
    )
    : undefined;
  if (pattern ? !pattern.test(iss) : iss !== expected) {
    throw new OAuthError(
      "iss",
      `The answer's iss "${
        iss.slice(0, 200)
      }" is not the provider's issuer "${expected}" (RFC 9207)`,
    );
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
