/**
 * Login, registration and logout, as this state table says.
 *
 * | from     | request               | when                    | then                                   |
 * | -------- | --------------------- | ----------------------- | -------------------------------------- |
 * | guest    | `POST /auth/login`    | email and password match | new session id, `userId`, → `returnTo` |
 * | guest    | `POST /auth/login`    | they match, 2FA is on   | new session id, not signed in, → `/auth/two-factor` (`controllers/two_factor.ts`) |
 * | guest    | `POST /auth/login`    | otherwise               | flash error, → login (with `returnTo`) |
 * | guest    | `POST /auth/login`    | over a login limit      | `429` page saying when to try again    |
 * | guest    | `POST /auth/register` | email free, input valid | user created, new id, `userId`, welcome |
 * | guest    | `POST /auth/register` | email in use            | flash error, → register                |
 * | any      | `POST /auth/logout`   | always                  | session data deleted, → login, notice  |
 *
 * Each form is read with one schema (see `forms.ts`). Input that breaks
 * a field's bound gets the form again with status `422` and each problem
 * beside its field, in the same response: nothing of it is stored, not
 * even in a flash, and a login refused so is not counted by the limiters.
 * A body over the forms' small limits gets `413` with the form. Flashes
 * echo only bounded values, and a guest's session holding only flashes
 * lives minutes (see `sessions.ts`). The login limits (5 attempts per
 * email per 15 minutes, 100 failed logins per client address per hour)
 * are in `login_limits.ts`.
 *
 * @module
 */
import {
  type Controller,
  createContextKey,
  type Middleware,
  type RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import {
  formData,
  type FormDataParseError,
} from "@fetchkit/toolkit/form-data-middleware";
import { parseForm } from "@fetchkit/toolkit/form-validation";
import type { RateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CspNonce } from "@fetchkit/toolkit/secure-headers-middleware";
import { Session } from "../context.ts";
import { createLoginLimits, LoginSucceeded } from "../login_limits.ts";
import type { Passwords } from "../passwords.ts";
import { safeReturnTo } from "../return_to.ts";
import { loginHref, routes } from "../routes.ts";
import {
  EmailInUseError,
  normalizeEmail,
  type User,
  type UserStore,
} from "../users.ts";
import { loginPage, registerPage } from "../views/auth.ts";
import type { ProviderButton } from "../views/oauth.ts";
import { requireGuest } from "../middleware.ts";
import { signIn } from "../sign_in.ts";
import { startTwoFactor, type TwoFactorStore } from "../two_factor.ts";
import {
  AUTH_FORM_LIMITS,
  type Login,
  LoginForm,
  problemsOf,
  RegistrationForm,
  unreadableProblem,
} from "./forms.ts";

/** What the auth controller works with. */
export interface AuthDeps {
  users: UserStore;
  passwords: Passwords;
  /** Where the login limiters count (see `login_limits.ts`). */
  limits: RateLimitStore;
  /** Failed logins per client address per hour. Default 100. */
  addressLimit?: number;
  /** "Sign in with <provider>" buttons on the login page. */
  providers?: readonly ProviderButton[];
  /** Told of each new account (the verification link), before the answer. */
  onRegistered?: (user: User) => Promise<void>;
  /** Users with two-factor authentication on get a second step. */
  twoFactor?: TwoFactorStore;
}

/** The login form, once its schema accepted it. */
const LoginInput = createContextKey<Login>();

export const INVALID_LOGIN = "Invalid email or password";
export const EMAIL_IN_USE = "Email already in use";
export const SIGNED_OUT = "You have been signed out.";

/** The lockout message, saying when: "Try again in 15 minutes." */
export function tooManyAttempts(retryAfterMs: number): string {
  const minutes = Math.ceil(retryAfterMs / 60_000);
  const when = minutes <= 1 ? "in a minute" : `in ${minutes} minutes`;
  return `Too many login attempts. Try again ${when}.`;
}

/** The form again, for a body over `AUTH_FORM_LIMITS` (413) or malformed. */
function unreadableForm(
  error: FormDataParseError,
  context: RequestContext,
): Response {
  const options = { error: unreadableProblem(error), status: error.status };
  return context.url.pathname === routes.auth.register.action.href()
    ? registerPage(options)
    : loginPage({ ...options, returnTo: returnToOf(context) });
}

/** `returnTo` from the query, only when it is a safe local path. */
function returnToOf(context: RequestContext): string | undefined {
  const value = context.url.searchParams.get("returnTo");
  return value === null || safeReturnTo(value) !== value ? undefined : value;
}

/** The controller for `routes.auth`; every action parses the form first. */
export function authController(
  deps: AuthDeps,
): Controller<typeof routes.auth> {
  const { users, passwords, providers } = deps;
  const guestsOnly = [requireGuest()];

  // The login form, checked before the limiters: a refused form is not
  // an attempt, and the per-email limiter needs its email.
  const validLogin: Middleware = async (context, next) => {
    const result = await parseForm(context.get(FormData), LoginForm);
    if (!result.success) {
      const problems = problemsOf(result);
      return loginPage({
        providers,
        returnTo: returnToOf(context),
        email: problems.values.email,
        fieldErrors: problems.fields,
        error: problems.form.join(" ") || undefined,
        status: 422,
      });
    }
    context.set(LoginInput, result.value);
    return next();
  };
  const emailKey = (context: RequestContext) =>
    normalizeEmail(context.get(LoginInput)?.email ?? "") || undefined;
  const limits = createLoginLimits({
    store: deps.limits,
    addressLimit: deps.addressLimit,
    emailOf: emailKey,
    onLimit: (context, { retryAfterMs }) =>
      loginPage({
        providers,
        returnTo: returnToOf(context),
        email: context.get(LoginInput)?.email,
        error: tooManyAttempts(retryAfterMs),
        status: 429,
      }),
  });

  return {
    middleware: [formData({ ...AUTH_FORM_LIMITS, onError: unreadableForm })],
    actions: {
      login: {
        actions: {
          index: {
            middleware: guestsOnly,
            handler(context) {
              const session = context.get(Session)!;
              return loginPage({
                providers,
                returnTo: returnToOf(context),
                error: session.get("error"),
                notice: session.get("notice"),
                email: session.get("email"),
                nonce: context.get(CspNonce),
              });
            },
          },
          action: {
            middleware: [validLogin, limits.perAddress, limits.perEmail],
            async handler(context) {
              const session = context.get(Session)!;
              const returnTo = returnToOf(context);
              const { email, password } = context.get(LoginInput)!;

              const user = await users.findByEmail(email);
              // An unknown email still costs one bcrypt comparison.
              const match = await passwords.verify(password, user?.password);
              if (!user || !match) {
                session.flash("error", INVALID_LOGIN);
                session.flash("email", email);
                return redirect(loginHref(returnTo), 303);
              }
              context.set(LoginSucceeded, true);
              const key = emailKey(context);
              if (key !== undefined) await limits.perEmail.reset(key);
              if (await deps.twoFactor?.get(user.id)) {
                return startTwoFactor(context, user, returnTo);
              }
              // A new id after a privilege change defeats session fixation.
              signIn(session, user);
              return redirect(safeReturnTo(returnTo), 303);
            },
          },
        },
      },
      register: {
        actions: {
          index: {
            middleware: guestsOnly,
            handler(context) {
              const session = context.get(Session)!;
              return registerPage({
                error: session.get("error"),
                email: session.get("email"),
                name: session.get("name"),
              });
            },
          },
          async action(context) {
            const session = context.get(Session)!;
            const registration = await parseForm(
              context.get(FormData),
              RegistrationForm,
            );
            if (!registration.success) {
              const problems = problemsOf(registration);
              return registerPage({
                ...problems.values,
                fieldErrors: problems.fields,
                error: problems.form.join(" ") || undefined,
                status: 422,
              });
            }
            const input = registration.value;
            const back = () => {
              session.flash("email", input.email);
              session.flash("name", input.name);
              return redirect(routes.auth.register.index.href(), 303);
            };
            // Checked before hashing so a taken email costs no bcrypt time;
            // create() checks again, atomically, against a racing request.
            if (await users.findByEmail(input.email)) {
              session.flash("error", EMAIL_IN_USE);
              return back();
            }
            try {
              const user = await users.create({
                email: input.email,
                name: input.name,
                password: await passwords.hash(input.password),
              });
              // Registering signs the user in, a privilege change: renew the id (see README).
              signIn(session, user);
              await deps.onRegistered?.(user);
              session.flash("notice", `Welcome, ${user.name}!`);
              return redirect(routes.dashboard.href(), 303);
            } catch (error) {
              if (!(error instanceof EmailInUseError)) throw error;
              session.flash("error", EMAIL_IN_USE);
              return back();
            }
          },
        },
      },
      logout(context) {
        // As destroy() (the stored data and the id are deleted, the user
        // is gone), but the new guest session carries the notice; holding
        // only a flash, it lives minutes (see sessions.ts).
        const session = context.get(Session)!;
        session.regenerateId(true);
        session.unset("userId");
        session.flash("notice", SIGNED_OUT);
        return redirect(routes.auth.login.index.href(), 303);
      },
    },
  };
}
