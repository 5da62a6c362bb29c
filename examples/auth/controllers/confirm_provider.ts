/**
 * "Confirm with <provider>" on the confirm page: a signed-in user whose
 * account is linked to an OpenID Provider proves it is them by signing in
 * there again.
 *
 * | request | when | then |
 * | ------- | ---- | ---- |
 * | `POST /auth/confirm/provider/:provider?returnTo=` | the provider is linked to the account | a page that goes on to the provider (`Refresh`, and a link) with `prompt=login` and `max_age=0` |
 * | `POST /auth/confirm/provider/:provider` | not linked, not configured, or GitHub (no ID token) | `404` |
 * | `GET /auth/oauth/:provider/callback` (signed in) | the ID token's `sub` is the identity linked to the account, its `auth_time` at most 5 minutes old | marked (`"provider"`), `303` → `returnTo` |
 * | same | another account at the provider | `403`, the confirm page: sign in there with the account you linked |
 * | same | `auth_time` missing or older than 5 minutes (plus 30 s of clock tolerance) | `400`, the confirm page: start again, signing out at the provider first if it did not ask |
 * | same | `state` used, forged or expired; `iss`, code or ID token refused | `400`, the confirm page naming it: start again |
 * | same | the provider down | `502`, the confirm page: try later or confirm another way |
 *
 * Why a page between the button and the provider: the pages'
 * Content-Security-Policy lets forms go to the app only
 * (`form-action 'self'`), and browsers apply it to the redirect a form's
 * answer makes (see `views/confirm_provider.ts`).
 *
 * The sign-in finishes on the provider's one registered callback URL, the
 * sign-in's (`controllers/oauth.ts`), which hands a signed-in user's
 * callback here. The toolkit checks `state` (single use, bound to this
 * session), the ID token and its `auth_time` (`authorize({ maxAge: 0,
 * maxAuthAge: 300 })`); this file checks that the `sub` is the identity
 * linked to this account for this provider. `max_age=0` and
 * `prompt=login` ask the provider to sign the user in whatever session it
 * has; 5 minutes leave time for a consent screen there, and a provider
 * that ignores both and answers from an older session is refused. A
 * callback of a plain sign-in started before the user signed in
 * (another tab) marks nothing: it goes to the dashboard.
 *
 * Starts count against the sign-in's budget per client address (30 in 15
 * minutes, shared with "Sign in with <provider>").
 *
 * @module
 */
import type {
  Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { OAuthError } from "@fetchkit/toolkit/oauth";
import type { PasskeyStore } from "../passkeys.ts";
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { markReauthenticated } from "@fetchkit/toolkit/reauth-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CurrentUser, Session } from "../context.ts";
import { requireAuth } from "../middleware.ts";
import type { IdentityStore } from "../oauth.ts";
import {
  canConfirm,
  type ProviderClient,
  type ProviderClients,
} from "../oauth_clients.ts";
import { safeReturnTo } from "../return_to.ts";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { confirmPage } from "../views/confirm.ts";
import { continueToProviderPage } from "../views/confirm_provider.ts";
import { notFoundPage } from "../views/errors.ts";
import type { ProviderButton } from "../views/oauth.ts";
import { OAUTH_ADDRESS_LIMIT, OAUTH_WINDOW_MS } from "./oauth.ts";

/** The oldest sign-in at the provider accepted: 5 minutes, in seconds. */
export const PROVIDER_CONFIRM_MAX_AUTH_AGE = 300;

/** What "Confirm with <provider>" works with. */
export interface ProviderConfirmDeps {
  clients: ProviderClients;
  identities: IdentityStore;
  passkeyStore: PasskeyStore;
  limits: RateLimitStore;
}

/** The confirm page's provider part, for `confirm.ts` and `oauth.ts`. */
export interface ProviderConfirm {
  /** The providers linked to `user` that can confirm (the buttons). */
  linked(user: User): Promise<ProviderButton[]>;
  /** `POST /auth/confirm/provider/:provider`. */
  start: { middleware: Middleware[]; handler: Handler };
  /** The provider's callback for a signed-in user. */
  finish(context: RequestContext, entry: ProviderClient): Promise<Response>;
}

type Handler = (context: RequestContext) => Promise<Response>;

/** `returnTo` of the query when it is a local path, else the security page. */
function returnToOf(value: string | null | undefined): string {
  return value === null || value === undefined
    ? routes.security.href()
    : safeReturnTo(value);
}

/** "Confirm with <provider>" for the app's configured providers. */
export function createProviderConfirm(
  deps: ProviderConfirmDeps,
): ProviderConfirm {
  const { clients, identities, passkeyStore } = deps;

  async function linked(user: User): Promise<ProviderButton[]> {
    if (clients.size === 0) return [];
    const ids = new Set(
      (await identities.listByUser(user.id)).map((link) => link.provider),
    );
    return [...clients.values()]
      .filter(({ provider }) => ids.has(provider.id) && canConfirm(provider))
      .map(({ provider }) => ({ id: provider.id, name: provider.name }));
  }

  /** The confirm page again, saying what went wrong and what to do. */
  async function refuse(
    context: RequestContext,
    returnTo: string,
    error: string,
    status: number,
  ): Promise<Response> {
    const user = context.get(CurrentUser)!;
    return confirmPage(user, {
      returnTo,
      hasPassword: !user.passwordUnusable,
      hasPasskeys: (await passkeyStore.listByUser(user.id)).length > 0,
      providers: await linked(user),
      error,
      status,
    });
  }

  const perAddress = rateLimit({
    name: "oauth-address",
    limit: OAUTH_ADDRESS_LIMIT,
    windowMs: OAUTH_WINDOW_MS,
    store: deps.limits,
    onLimit: (context) =>
      refuse(
        context,
        returnToOf(context.url.searchParams.get("returnTo")),
        "Too many sign-in attempts. Try again in a few minutes.",
        429,
      ),
  });

  async function start(context: RequestContext): Promise<Response> {
    const user = context.get(CurrentUser)!;
    const entry = clients.get(context.params.provider ?? "");
    if (
      !entry ||
      !(await linked(user)).some(({ id }) => id === entry.provider.id)
    ) {
      return notFoundPage(user);
    }
    const returnTo = returnToOf(context.url.searchParams.get("returnTo"));
    let answer: Response;
    try {
      answer = await entry.client.authorize(context, {
        returnTo,
        // Sign in there again whatever session it has (OpenID Connect
        // Core §3.1.2.1); callback() checks auth_time.
        maxAge: 0,
        maxAuthAge: PROVIDER_CONFIRM_MAX_AUTH_AGE,
        params: { prompt: "login" },
      });
    } catch (error) {
      return unreachable(context, returnTo, entry, error);
    }
    const location = answer.headers.get("Location")!;
    return continueToProviderPage(user, entry.provider.name, location);
  }

  function unreachable(
    context: RequestContext,
    returnTo: string,
    entry: ProviderClient,
    error: unknown,
  ): Promise<Response> {
    if (!(error instanceof HttpError) || error.status !== 502) throw error;
    console.error(`${entry.provider.name} confirmation: ${error.message}`);
    return refuse(
      context,
      returnTo,
      `${entry.provider.name} is not answering right now. Try again in a few minutes, or confirm another way.`,
      502,
    );
  }

  async function finish(
    context: RequestContext,
    entry: ProviderClient,
  ): Promise<Response> {
    const { provider, client } = entry;
    const user = context.get(CurrentUser)!;
    const again = `Press “Confirm with ${provider.name}” to start again.`;
    let result;
    try {
      result = await client.callback(context);
    } catch (error) {
      const fallback = routes.security.href();
      if (!(error instanceof OAuthError)) {
        return await unreachable(context, fallback, entry, error);
      }
      if (error.providerError === "access_denied") {
        return await refuse(
          context,
          fallback,
          `Confirming with ${provider.name} was cancelled. ${again}`,
          400,
        );
      }
      const advice = error.reason === "auth_time"
        ? ` If ${provider.name} did not ask you to sign in, sign out there first.`
        : "";
      return await refuse(
        context,
        fallback,
        `Confirming with ${provider.name} failed: ${error.message}. ${again}${advice}`,
        400,
      );
    }
    // A plain sign-in started before this user signed in (another tab):
    // it proves nothing about now.
    if (result.maxAge === undefined) return redirect(routes.dashboard.href());
    const returnTo = returnToOf(result.returnTo);
    const owner = await identities.find(provider.id, result.claims.sub);
    if (owner !== user.id) {
      return await refuse(
        context,
        returnTo,
        `That is not the ${provider.name} account linked to ${user.email}. ` +
          `${again} Then sign in there with the account you linked ` +
          `(sign out of ${provider.name} first if it picks another one).`,
        403,
      );
    }
    markReauthenticated(context.get(Session)!, "provider");
    return redirect(returnTo, 303);
  }

  return {
    linked,
    start: { middleware: [requireAuth(), perAddress], handler: start },
    finish,
  };
}
