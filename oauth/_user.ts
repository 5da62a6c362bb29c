/** Reading the user from a provider's API: OpenID `userinfo` and GitHub's. */
import { OAuthError } from "./_errors.ts";
import { badGateway, jsonObject } from "./_fetch.ts";
import type { OAuthTokens } from "./_token.ts";

/**
 * Who signed in, as the provider says: OpenID Connect's standard claims
 * (`sub`, `email`, `email_verified`, `name`, `picture`...) plus any other
 * the provider sends.
 */
export interface OAuthClaims {
  /** The provider's stable id of the user; unique per provider only. */
  sub: string;
  /** The user's email address, verified or not (see `email_verified`). */
  email?: string;
  /** `true` only when the provider vouches the user owns `email`. */
  email_verified?: boolean;
  /** The full name, for display. */
  name?: string;
  /** A handle (`octocat`); not unique, never an identifier. */
  preferred_username?: string;
  /** The URL of a profile picture. */
  picture?: string;
  /** Any other claim the provider sent. */
  [claim: string]: unknown;
}

/**
 * GET `url` with the access token (`fetcher` is guarded: no redirects,
 * 1 MiB, one deadline); the JSON object (or list), an
 * {@linkcode OAuthError} for a refused token, or a `502`.
 */
export async function getJson(
  url: string,
  tokens: OAuthTokens,
  fetcher: typeof fetch,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const response = await fetcher(url, {
    headers: {
      Accept: "application/json",
      ...headers,
      Authorization: `Bearer ${tokens.accessToken}`,
    },
  });
  // The provider failing is a 502 (as for its other endpoints); a 4xx
  // (a token it refuses) stays the sign-in's 400.
  if (response.status >= 500) {
    await response.body?.cancel();
    throw badGateway(`${url} answered ${response.status}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new OAuthError(
      "user",
      `Could not read the user: ${url} answered ${response.status}`,
    );
  }
  // A 200 of nonsense (`null`, not JSON) is the provider's fault: a 502.
  return await jsonObject(response, url);
}

/** `body` as claims: it must carry a `sub` (a number is made a string). */
export function asClaims(body: Record<string, unknown>): OAuthClaims {
  const sub = body.sub;
  if (
    (typeof sub !== "string" || sub === "") && typeof sub !== "number"
  ) {
    throw new OAuthError("user", "The provider's user has no sub");
  }
  return { ...body, sub: String(sub) } as OAuthClaims;
}

/** GitHub's user as OpenID claims, its email only if verified and primary. */
export async function gitHubUser(
  apiUrl: string,
  tokens: OAuthTokens,
  fetcher: typeof fetch,
): Promise<OAuthClaims> {
  const headers = {
    Accept: "application/vnd.github+json",
    "User-Agent": "fetchkit-toolkit-oauth",
    "X-GitHub-Api-Version": "2022-11-28",
  };
  const user = await getJson(`${apiUrl}/user`, tokens, fetcher, headers);
  // /user's email is only the public one, verified or not; the primary
  // address and whether it is verified come from /user/emails.
  let email: { email?: unknown; verified?: unknown } | undefined;
  try {
    const list = await getJson(
      `${apiUrl}/user/emails`,
      tokens,
      fetcher,
      headers,
    ) as unknown;
    if (Array.isArray(list)) {
      email = list.find((entry) => entry?.primary === true);
    }
  } catch {
    // Without the user:email scope: no email.
  }
  return {
    sub: String(user.id),
    name: typeof user.name === "string" && user.name
      ? user.name
      : String(user.login),
    preferred_username: String(user.login),
    picture: typeof user.avatar_url === "string" ? user.avatar_url : undefined,
    profile: typeof user.html_url === "string" ? user.html_url : undefined,
    email: typeof email?.email === "string" ? email.email : undefined,
    email_verified: email?.verified === true,
  };
}
