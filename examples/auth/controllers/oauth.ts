/**
 * "Sign in with <provider>", as this state table says.
 *
 * | from  | request                                 | when                                   | then                                          |
 * | ----- | --------------------------------------- | -------------------------------------- | --------------------------------------------- |
 * | guest | `GET /auth/oauth/:provider`             | provider configured                    | → the provider (state, PKCE, nonce in the session) |
 * | guest | `GET /auth/oauth/:provider/callback`    | identity linked before                 | new session id, `userId`, → `returnTo`        |
 * | guest | `GET /auth/oauth/:provider/callback`    | verified email of an existing account  | identity linked, signed in, notice            |
 * | guest | ...the account has a usable password    | (registered without proof of the email) | also: password made unusable, its passkeys removed, every other session ended, notice says so |
 * | guest | `GET /auth/oauth/:provider/callback`    | verified email, no account             | user made from the claims, linked, signed in  |
 * | guest | `GET /auth/oauth/:provider/callback`    | email unverified or missing            | `403` login page saying why                   |
 * | guest | `GET /auth/oauth/:provider/callback`    | state, iss, code or ID token refused   | `400` login page naming what failed           |
 * | any   | either                                  | provider down or answering nonsense    | `502` login page naming the provider          |
 * | any   | either                                  | provider not configured                | `404`                                         |
 * | any   | either                                  | over 30 requests per address in 15 min (15 sign-ins) | `429` login page, `Retry-After` |
 *
 * **Account pre-takeover.** Registration does not verify the email, so
 * anyone can register someone else's address with a password of their
 * own and wait. When the owner later signs in with a provider that has
 * verified the address, the provider is the first proof of who owns the
 * account, and it wins: the password set at registration is replaced by
 * a random one nobody knows, the display name by the provider's (when it
 * sends one), the account's passkeys (added by whoever
 * knew that password) are removed, and every other session of the user
 * ends (the session `generation`, as after a password reset; see
 * `sign_in.ts`). The page after sign-in says the old password no longer
 * works and that "Forgot password?" sets a new one (the reset mail goes
 * to the verified address). This is what Supabase Auth does for an
 * unconfirmed email/password account when a verified identity arrives;
 * it keeps the sign-in in one step, where refusing the join would send
 * the owner to a password they never set. An account whose password is
 * already unusable (made by a provider sign-in) is joined as before.
 *
 * Signed-in users are sent to their dashboard, as on the login page. The
 * callback answers a page rather than throwing, so the session saves the
 * used sign-in's removal (see `@fetchkit/toolkit/oauth`).
 *
 * @module
 */
import type {
  Controller,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import {
  createOAuthClient,
  type OAuthClaims,
  type OAuthClient,
  OAuthError,
} from "@fetchkit/toolkit/oauth";
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { Session } from "../context.ts";
import { requireGuest } from "../middleware.ts";
import type { IdentityStore, OAuthProvider, ProviderId } from "../oauth.ts";
import type { PasskeyStore } from "../passkeys.ts";
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
  /** The passkeys a takeover removes (see the module docs). */
  passkeys: PasskeyStore;
  providers: readonly OAuthProvider[];
  /** The app's origin: callback URLs are `<publicUrl>/auth/oauth/<id>/callback`. */
  publicUrl: string;
  limits: RateLimitStore;
  /** Users with two-factor authentication on get a second step. */
  twoFactor?: TwoFactorStore;
}

/** Why an unverified email cannot sign in (shown on the login page). */
export function unverifiedEmail(name: string, email?: string): string {
  return `${name} has not verified ${
    email ? `that ${email} is yours` : "an email address for you"
  }, so it cannot open an account here. Verify the address at ${name}, ` +
    "or sign in with your password.";
}

/** What the page after a takeover says (see the module docs). */
export function passwordReplaced(name: string, email: string): string {
  return `Your ${name} account is now linked to ${email}. ${name} has ` +
    "verified that this address is yours, so the password set when this " +
    "account was registered no longer works, any passkey added with it " +
    "was removed, and every other session of this account was signed " +
    'out. To sign in with a password too, use "Forgot password?" on the ' +
    "login page: the link to set a new one goes to this address.";
}

/** The controller for `routes.oauth`. */
export function oauthController(
  deps: OAuthDeps,
): Controller<typeof routes.oauth> {
  const { users, identities } = deps;
  const buttons = deps.providers.map(({ id, name }) => ({ id, name }));
  const clients = new Map<
    string,
    { provider: OAuthProvider; client: OAuthClient }
  >();
  for (const provider of deps.providers) {
    clients.set(provider.id, {
      provider,
      client: createOAuthClient({
        ...provider.options,
        redirectUri: deps.publicUrl +
          routes.oauth.callback.href({ provider: provider.id }),
        session: Session,
      }),
    });
  }
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

  /**
   * The verified email's owner joins `user`: if a password opened it
   * (set without proof of the email), that password and what it added
   * stop working (see the module docs).
   */
  async function join(
    user: User,
    name: string,
    display: string | undefined,
  ): Promise<{ user: User; notice: string }> {
    if (user.passwordUnusable) {
      return {
        user,
        notice: `Your ${name} account is now linked to ${user.email}.`,
      };
    }
    const taken = await users.takeOver(user.id, {
      password: await unusablePassword(),
      name: display,
    });
    if (!taken) throw new Error(`User ${user.id} vanished during sign-in`);
    for (const passkey of await deps.passkeys.listByUser(user.id)) {
      await deps.passkeys.remove(user.id, passkey.id);
    }
    return { user: taken, notice: passwordReplaced(name, taken.email) };
  }

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
    // A racing first sign-in may have linked it already: that link wins
    // (and that sign-in did the join's takeover, if one was due).
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
    return joined ? await join(user, name, display) : { user, notice };
  }

  return {
    middleware: [requireGuest(), perAddress],
    actions: {
      async start(context) {
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
      },
      async callback(context) {
        const entry = clientOf(context);
        if (!entry) return notFoundPage(undefined);
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
        // generation, which a takeover has just bumped.
        signIn(session, outcome.user);
        if (outcome.notice) session.flash("notice", outcome.notice);
        return redirect(safeReturnTo(result.returnTo), 303);
      },
    },
  };
}
