/**
 * Login, registration and logout: the seed's state table.
 *
 * | from     | request               | when                    | then                                   |
 * | -------- | --------------------- | ----------------------- | -------------------------------------- |
 * | guest    | `POST /auth/login`    | email and password match | new session id, `userId`, → `returnTo` |
 * | guest    | `POST /auth/login`    | otherwise               | flash error, → login (with `returnTo`) |
 * | guest    | `POST /auth/register` | email free, input valid | user created, new session id, `userId` |
 * | guest    | `POST /auth/register` | email in use / invalid  | flash error, → register                |
 * | any      | `POST /auth/logout`   | always                  | session destroyed, → login             |
 *
 * @module
 */
import type {
  Controller,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { Session } from "../context.ts";
import type { Passwords } from "../passwords.ts";
import type { RateLimiter } from "../rate_limiter.ts";
import { safeReturnTo } from "../return_to.ts";
import { loginHref, routes } from "../routes.ts";
import { EmailInUseError, type UserStore } from "../users.ts";
import { loginPage, registerPage } from "../views/auth.ts";
import { requireGuest } from "../middleware.ts";
import { field } from "./fields.ts";
import { validateRegistration } from "./validate.ts";

/** What the auth controller works with. */
export interface AuthDeps {
  users: UserStore;
  passwords: Passwords;
  /** Login attempts per lowercased email. */
  loginLimiter: RateLimiter;
}

export const INVALID_LOGIN = "Invalid email or password";
export const EMAIL_IN_USE = "Email already in use";
export const TOO_MANY_ATTEMPTS = "Too many login attempts. Try again later.";

/** `returnTo` from the query, only when it is a safe local path. */
function returnToOf(context: RequestContext): string | undefined {
  const value = context.url.searchParams.get("returnTo");
  return value === null || safeReturnTo(value) !== value ? undefined : value;
}

/** The controller for `routes.auth`; every action parses the form first. */
export function authController(
  deps: AuthDeps,
): Controller<typeof routes.auth> {
  const { users, passwords, loginLimiter } = deps;
  const guestsOnly = [requireGuest()];

  return {
    middleware: [formData()],
    actions: {
      login: {
        actions: {
          index: {
            middleware: guestsOnly,
            handler(context) {
              const session = context.get(Session)!;
              return loginPage({
                returnTo: returnToOf(context),
                error: session.get("error"),
                notice: session.get("notice"),
                email: session.get("email"),
              });
            },
          },
          async action(context) {
            const session = context.get(Session)!;
            const email = field(context, "email").trim();
            const password = field(context, "password");
            const returnTo = returnToOf(context);
            const key = email.toLowerCase();

            const attempt = await loginLimiter.attempt(key);
            if (!attempt.allowed) {
              const seconds = Math.ceil(attempt.retryAfterMs / 1000);
              return loginPage({
                returnTo,
                email,
                error: TOO_MANY_ATTEMPTS,
                status: 429,
                headers: { "Retry-After": String(seconds) },
              });
            }

            const user = await users.findByEmail(email);
            // An unknown email still costs one bcrypt comparison.
            const match = await passwords.verify(password, user?.password);
            if (!user || !match) {
              session.flash("error", INVALID_LOGIN);
              session.flash("email", email);
              return redirect(loginHref(returnTo), 303);
            }
            await loginLimiter.reset(key);
            // A new id after a privilege change defeats session fixation.
            session.regenerateId(true);
            session.set("userId", user.id);
            return redirect(safeReturnTo(returnTo), 303);
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
            const input = {
              email: field(context, "email").trim(),
              name: field(context, "name").trim(),
              password: field(context, "password"),
            };
            const back = () => {
              session.flash("email", input.email);
              session.flash("name", input.name);
              return redirect(routes.auth.register.index.href(), 303);
            };
            const problem = validateRegistration(input);
            if (problem) {
              session.flash("error", problem);
              return back();
            }
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
              // The seed keeps the id here; we renew it (see README).
              session.regenerateId(true);
              session.set("userId", user.id);
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
        context.get(Session)!.destroy();
        return redirect(routes.auth.login.index.href(), 303);
      },
    },
  };
}
