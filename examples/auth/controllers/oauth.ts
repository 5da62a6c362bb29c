/**
 * "Sign in with <provider>", as this state table says.
 *
 * | from  | request                                 | when                                   | then                                          |
 * | ----- | --------------------------------------- | -------------------------------------- | --------------------------------------------- |
 * | guest | `GET /auth/oauth/:provider`             | provider configured                    | → the provider (state, PKCE, nonce in the session) |
 * | guest | `GET /auth/oauth/:provider/callback`    | identity linked before                 | new session id, `userId`, → `returnTo`        |
 * | guest | `GET /auth/oauth/:provider/callback`    | verified email of an account verified here too | identity linked, signed in, notice |
 * | guest | `GET /auth/oauth/:provider/callback`    | verified email of an account not verified here | `403` login page: how to verify it, nothing linked |
 * | guest | `GET /auth/oauth/:provider/callback`    | verified email, no account             | user made from the claims, linked, signed in  |
 * | guest | `GET /auth/oauth/:provider/callback`    | email unverified or missing            | `403` login page saying why                   |
 * | guest | `GET /auth/oauth/:provider/callback`    | state, iss, code or ID token refused   | `400` login page naming what failed           |
 * | user  | `GET /auth/oauth/:provider/callback`    | "Confirm with <provider>" under way    | finished by `confirm_provider.ts` (its table) |
 * | user  | `GET /auth/oauth/:provider/callback`    | a sign-in started before signing in    | `302` → dashboard, nothing marked             |
 * | user  | `GET /auth/oauth/:provider`             | any                                    | `302` → dashboard                             |
 * | any   | either                                  | provider down or answering nonsense    | `502` login page naming the provider          |
 * | any   | either                                  | provider not configured                | `404`                                         |
 * | any   | either                                  | over 30 requests per address in 15 min (15 sign-ins) | `429` login page, `Retry-After` |
 *
 * **Linking by email needs both sides verified.** Registration mails a
 * link to the address (`controllers/email.ts`), and until it is opened
 * nobody has shown that whoever set the account's password owns the
 * address: anyone can register someone else's address and wait (account
 * pre-takeover). So a provider's verified email joins an existing account
 * only when the account's address is verified here too (or the account
 * was made by a provider sign-in, which verified it). Otherwise nothing
 * is linked and the login page says what to do: log in with the password
 * and open the verification link, or, for an owner who never set that
 * password, "Forgot password?" (the reset link goes to the address, and
 * using it verifies the address and ends every session of whoever
 * registered it). This is the rule of Better Auth, Auth.js and Django
 * allauth.
 *
 * Signed-in users starting a sign-in are sent to their dashboard, as on
 * the login page; the callback is shared with "Confirm with <provider>"
 * (one callback URL is registered with each provider). The
 * callback answers a page rather than throwing, so the session saves the
 * used sign-in's removal (see `@fetchkit/toolkit/oauth`).
 *
 * @module
 */
import type {
  Controller,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { type OAuthClaims, OAuthError } from "@fetchkit/toolkit/oauth";
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { CurrentUser, Session } from "../context.ts";
import { requireGuest } from "../middleware.ts";
import {
  createProviderClients,
  type ProviderClient,
  type ProviderClients,
} from "../oauth_clients.ts";
import type { ProviderConfirm } from "./confirm_provider.ts";
import type { IdentityStore, OAuthProvider, ProviderId } from "../oauth.ts";
import type { Passwords } from "../passwords.ts";
import { signIn } from "../sign_in.ts";
import { startTwoFactor, type TwoFactorStore } from "../two_factor.ts";
import { safeReturnTo } from "../return_to.ts";
import { routes } from "../routes.ts";
import { EmailInUseError, type User, type UserStore } from "../users.ts";
import { loginPage } from "../views/auth.ts";
import { notFoundPage } from "../views/errors.ts";
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from "./forms.ts";

/** Sign-ins started or finished per client address... */
export const OAUTH_ADDRESS_LIMIT = 30;
/** ...per 15 minutes. */
export const OAUTH_WINDOW_MS = 15 * 60 * 1000;

/** What the controller works with. */
export interface OAuthDeps {
  users: UserStore;
  passwords: Passwords;
  identities: IdentityStore;
  providers: readonly OAuthProvider[];
  /** The app's origin: callback URLs are `<publicUrl>/auth/oauth/<id>/callback`. */
  publicUrl: string;
  limits: RateLimitStore;
  /** Users with two-factor authentication on get a second step. */
  twoFactor?: TwoFactorStore;
  /** The providers' clients, when shared (default: made here). */
  clients?: ProviderClients;
  /**
   * Finishes "Confirm with <provider>" for a signed-in user on the
   * callback (`controllers/confirm_provider.ts`); without it a signed-in
   * user's callback goes to the dashboard.
   */
  confirm?: ProviderConfirm;
}

/** Why an unverified email cannot sign in (shown on the login page). */
export function unverifiedEmail(name: string, email?: string): string {
  return `${name} has not verified ${
    email ? `that ${email} is yours` : "an email address for you"
  }, so it cannot open an account here. Verify the address at ${name}, ` +
    "or sign in with your password.";
}

/** Why a provider is not linked to an account not verified here. */
export function unverifiedAccount(name: string, email: string): string {
  return `An account with ${email} exists here, but its address has not ` +
    `been verified yet, so ${name} was not linked to it. If the account is ` +
    "yours, log in with its password and open the link we mailed (your " +
    'profile sends a new one). If you never set that password, use "Forgot ' +
    `password?": the link goes to ${email}, and using it verifies the ` +
    `address. Then sign in with ${name} again.`;
}

/** The controller for `routes.oauth`. */
export function oauthController(
  deps: OAuthDeps,
): Controller<typeof routes.oauth> {
  const { users, identities } = deps;
  const buttons = deps.providers.map(({ id, name }) => ({ id, name }));
  const clients = deps.clients ??
    createProviderClients(deps.providers, deps.publicUrl);
  const clientOf = (context: RequestContext) =>
    clients.get(context.params.provider ?? "");
  const refuse = (error: string, status: number) =>
    loginPage({ error, status, providers: buttons });
  // The client throws a 502 HttpError when the provider cannot be reached
  // or answers nonsense: a page saying so, not "something went wrong",
  // and an answer (not a throw) so the session saves the used state.
  const unreachable = (provider: OAuthProvider, error: unknown) => {
    if (!(error instanceof HttpError) || error.status !== 502) throw error;
    // For the operator (the page says only that the provider is down):
    // which URL failed and how; no secret is in either.
    console.error(`${provider.name} sign-in: ${error.message}`);
    return refuse(
      `${provider.name} is not answering right now. Try again in a few minutes, or sign in with your password.`,
      502,
    );
  };

  const perAddress = rateLimit({
    name: "oauth-address",
    limit: OAUTH_ADDRESS_LIMIT,
    windowMs: OAUTH_WINDOW_MS,
    store: deps.limits,
    onLimit: () =>
      refuse("Too many sign-in attempts. Try again in a few minutes.", 429),
  });

  /** A random password nobody knows, hashed. */
  const unusablePassword = () =>
    deps.passwords.hash(crypto.randomUUID() + crypto.randomUUID());

  /** The user for these claims: linked, found by verified email, or new. */
  async function userFor(
    id: ProviderId,
    name: string,
    claims: OAuthClaims,
  ): Promise<{ user: User; notice?: string } | { refused: string }> {
    const linked = await identities.find(id, claims.sub);
    const known = linked === null ? null : await users.findById(linked);
    if (known) return { user: known };
    const email = typeof claims.email === "string" ? claims.email : undefined;
    if (
      !email || claims.email_verified !== true ||
      email.length > MAX_EMAIL_LENGTH || !email.includes("@")
    ) {
      return { refused: unverifiedEmail(name, email) };
    }
    const display = typeof claims.name === "string" && claims.name.trim()
      ? claims.name.trim().slice(0, MAX_NAME_LENGTH)
      : undefined;
    let user = await users.findByEmail(email);
    let notice: string;
    let joined = false;
    if (user) {
      joined = true;
      notice = "";
    } else {
      const fallback = email.slice(0, email.indexOf("@"))
        .slice(0, MAX_NAME_LENGTH);
      // No password signs in to this account: a random one, never shown.
      const password = await unusablePassword();
      try {
        user = await users.create({
          email,
          name: display ?? fallback,
          password,
          passwordUnusable: true,
          emailVerified: true,
        });
        notice = `Welcome, ${user.name}!`;
      } catch (error) {
        // Another request (a second tab, a registration) made the account
        // since the lookup: the email is verified, so it is joined.
        if (!(error instanceof EmailInUseError)) throw error;
        user = await users.findByEmail(email);
        if (!user) throw error;
        joined = true;
        notice = "";
      }
    }
    // An account whose address nobody has verified here is not linked.
    if (joined && !user.emailVerified && !user.passwordUnusable) {
      return { refused: unverifiedAccount(name, user.email) };
    }
    // A racing first sign-in may have linked it already: that link wins.
    if (!await identities.link(id, claims.sub, user.id)) {
      const winner = await identities.find(id, claims.sub);
      user = winner === null ? user : await users.findById(winner) ?? user;
      return {
        user,
        notice: joined
          ? `Your ${name} account is now linked to ${user.email}.`
          : notice,
      };
    }
    return joined
      ? { user, notice: `Your ${name} account is now linked to ${user.email}.` }
      : { user, notice };
  }

  return {
    middleware: [perAddress],
    actions: {
      start: {
        middleware: [requireGuest()],
        handler: start,
      },
      async callback(context) {
        const entry = clientOf(context);
        if (!entry) return notFoundPage(undefined);
        // A signed-in user comes back from "Confirm with <provider>".
        if (context.get(CurrentUser)) {
          if (!deps.confirm) return redirect(routes.dashboard.href());
          return await deps.confirm.finish(context, entry);
        }
        return await signInCallback(context, entry);
      },
    },
  };

  async function start(context: RequestContext): Promise<Response> {
    const entry = clientOf(context);
    if (!entry) return notFoundPage(undefined);
    const returnTo = context.url.searchParams.get("returnTo");
    try {
      return await entry.client.authorize(context, {
        returnTo: returnTo === null ? undefined : safeReturnTo(returnTo),
      });
    } catch (error) {
      return unreachable(entry.provider, error);
    }
  }

  async function signInCallback(
    context: RequestContext,
    entry: ProviderClient,
  ): Promise<Response> {
    const { provider, client } = entry;
    let result;
    try {
      result = await client.callback(context);
    } catch (error) {
      if (!(error instanceof OAuthError)) {
        return unreachable(provider, error);
      }
      const message = error.providerError === "access_denied"
        ? `Sign-in with ${provider.name} was cancelled.`
        : `Sign-in with ${provider.name} failed: ${error.message}`;
      return refuse(message, 400);
    }
    const outcome = await userFor(
      provider.id,
      provider.name,
      result.claims,
    );
    if ("refused" in outcome) return refuse(outcome.refused, 403);
    // Two-factor authentication asks for its code after a provider too.
    if (await deps.twoFactor?.get(outcome.user.id)) {
      if (outcome.notice) {
        context.get(Session)!.flash("notice", outcome.notice);
      }
      return startTwoFactor(context, outcome.user, result.returnTo);
    }
    const session = context.get(Session)!;
    // A new id (against session fixation) and the user's current
    // generation.
    signIn(session, outcome.user);
    if (outcome.notice) session.flash("notice", outcome.notice);
    return redirect(safeReturnTo(result.returnTo), 303);
  }
}
