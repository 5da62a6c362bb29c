/**
 * One OAuth client per configured provider, shared by the sign-in
 * (`controllers/oauth.ts`) and the confirm page's "Confirm with
 * <provider>" (`controllers/confirm_provider.ts`): both finish on the one
 * callback URL registered with the provider
 * (`PUBLIC_URL/auth/oauth/<id>/callback`), and one client keeps one
 * discovery document and one key set per provider.
 *
 * @module
 */
import { createOAuthClient, type OAuthClient } from "@fetchkit/toolkit/oauth";
import { Session } from "./context.ts";
import type { OAuthProvider } from "./oauth.ts";
import { routes } from "./routes.ts";

/** A configured provider and its client. */
export interface ProviderClient {
  provider: OAuthProvider;
  client: OAuthClient;
}

/** The clients by provider id (`oidc`, `google`...). */
export type ProviderClients = ReadonlyMap<string, ProviderClient>;

/** A client for each of `providers`, calling back to `publicUrl`. */
export function createProviderClients(
  providers: readonly OAuthProvider[],
  publicUrl: string,
): ProviderClients {
  const clients = new Map<string, ProviderClient>();
  for (const provider of providers) {
    clients.set(provider.id, {
      provider,
      client: createOAuthClient({
        ...provider.options,
        redirectUri: publicUrl +
          routes.oauth.callback.href({ provider: provider.id }),
        session: Session,
      }),
    });
  }
  return clients;
}

/**
 * Whether `provider` can confirm a signed-in user: only an OpenID
 * Provider says in its signed ID token when the user last signed in
 * (`auth_time`); GitHub's plain OAuth 2 does not, so it is not offered.
 */
export function canConfirm(provider: OAuthProvider): boolean {
  return (provider.options.scopes ?? ["openid"]).includes("openid");
}
