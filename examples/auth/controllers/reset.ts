/**
 * "Forgot password?", as this state table says.
 *
 * | request                        | when                         | then                                               |
 * | ------------------------------ | ---------------------------- | -------------------------------------------------- |
 * | `GET /password/forgot`         | always                       | the email form                                     |
 * | `POST /password/forgot`        | an email-shaped email        | `200` "Check your email", the same for every email |
 * | `POST /password/forgot`        | not an email                 | `422`, the problem beside the field                |
 * | `GET /password/reset/:token`   | the token works              | the new-password form                              |
 * | `GET /password/reset/:token`   | unknown, used or expired     | `400` "Link expired", a way to ask again           |
 * | `POST /password/reset/:token`  | the token works, password ok | password saved, every session ends, → login        |
 *
 * **No account enumeration.** The answer to `POST /password/forgot` is
 * the same status and bytes whether or not an account has the email,
 * and costs the same: the handler checks the form, counts the request in
 * the limiters, stores one `"password-reset-request"` job with the email
 * (the same write for every email), and answers. The job, run by the
 * mail worker, looks the account up, makes the token and hands the mail
 * to `sendMail()` (`mail_jobs.ts`) with the key `password-reset:<token>`;
 * an unknown email ends there. A mail server that is slow or down does
 * not change the answer either: the mail is retried (see `mail_jobs.ts`).
 *
 * **Nothing lost.** The job is stored before the answer, so a crash or a
 * restart right after it still sends the link (the next process, or
 * another server, runs the job). Each request is a job of its own (asking
 * again replaces the earlier link, as before). The mail's key is the
 * token: a mail job that runs again (at least once: a worker died after
 * the send) sends nothing more. A request job that runs again after a
 * crash between the token and the mail makes a new token and sends it.
 *
 * **Limits.** Per client address, 20 requests an hour over both forms
 * (`reset-address`); per lowercased email, 3 reset mails an hour
 * (`reset-email`, counted for every email, so a `429` tells nothing
 * about accounts either), so nobody can flood an inbox. Over a limit:
 * `429` with `Retry-After` and the form. The store being down: `503`.
 *
 * **After a reset** the user's session generation is bumped
 * (`users.setPassword()`), which ends every session of theirs, here and
 * on other devices (see `sign_in.ts`); the browser that reset is sent to
 * the login page to sign in with the new password. The email's login
 * lockout is cleared and the address marked verified: the owner proved
 * they read the mail.
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
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { Session } from "../context.ts";
import { type MailJobs, sendMail } from "../mail_jobs.ts";
import type { Passwords } from "../passwords.ts";
import { RESET_TTL_MS, type ResetTokens } from "../password_reset.ts";
import { routes } from "../routes.ts";
import { endSession } from "../sign_in.ts";
import { normalizeEmail, type UserStore } from "../users.ts";
import {
  forgotPage,
  forgotSentPage,
  invalidLinkPage,
  resetPage,
} from "../views/reset.ts";
import {
  AUTH_FORM_LIMITS,
  problemsOf,
  RegistrationForm,
  unreadableProblem,
} from "./forms.ts";

/** Reset requests per client address per hour. */
export const RESET_ADDRESS_LIMIT = 20;
/** The job that turns a reset request into a mail (or nothing). */
export const RESET_REQUEST_JOB = "password-reset-request";
/** Reset mails per email per hour. */
export const RESET_EMAIL_LIMIT = 3;
const HOUR = 60 * 60 * 1000;

/** The notice on the login page after a reset. */
export const PASSWORD_CHANGED =
  "Your password has been changed, and every session of your account has ended. Log in with the new password.";

const ForgotForm = RegistrationForm.pick({ email: true });
/** The forgot form's email, once its schema accepted it. */
const ForgotEmail = createContextKey<string>();
const NewPasswordForm = RegistrationForm.pick({ password: true });

/** What the reset controller works with. */
export interface ResetDeps {
  users: UserStore;
  passwords: Passwords;
  tokens: ResetTokens;
  /** The app's mail queue: every mail goes through `sendMail()`. */
  mail: MailJobs;
  /** Where the limits count (the login limits' store). */
  limits: RateLimitStore;
  /** The app's public origin, for the link (never the request's `Host`). */
  appUrl: string;
  /** The lifetime the mail states. Default 30 minutes. */
  ttlMs?: number;
  /** Clears an email's login lockout after a reset. */
  clearLockout?: (email: string) => Promise<void>;
  /**
   * Deletes every stored session of the user after a reset (the
   * generation bump already refuses them; this also empties the devices
   * list).
   */
  endSessions?: (userId: number, except?: string) => Promise<void>;
}

function unreadable(error: FormDataParseError): Response {
  return forgotPage({ error: unreadableProblem(error), status: error.status });
}

/** The mail's text. */
function resetMail(link: string, minutes: number): string {
  return [
    "Someone (we hope you) asked to reset the password of your account.",
    "",
    `Choose a new password here; the link works once, for ${minutes} minutes:`,
    "",
    link,
    "",
    "If you did not ask, ignore this mail: your password stays as it is.",
  ].join("\n");
}

/** The controller for `routes.password`. */
export function resetController(
  deps: ResetDeps,
): Controller<typeof routes.password> {
  const { users, passwords, tokens, mail } = deps;
  const minutes = Math.round((deps.ttlMs ?? RESET_TTL_MS) / 60_000);
  const tooMany = (retryAfterMs: number) => {
    const when = Math.max(1, Math.ceil(retryAfterMs / 60_000));
    return `Too many requests. Try again in ${when} minute${
      when === 1 ? "" : "s"
    }.`;
  };
  const perAddress = rateLimit({
    name: "reset-address",
    limit: RESET_ADDRESS_LIMIT,
    windowMs: HOUR,
    store: deps.limits,
    onLimit: (_context, { retryAfterMs }) =>
      forgotPage({ error: tooMany(retryAfterMs), status: 429 }),
  });
  // The form, checked first: the per-email limit needs its email.
  const validForgot: Middleware = async (context, next) => {
    const result = await parseForm(context.get(FormData), ForgotForm);
    if (!result.success) {
      const problems = problemsOf(result);
      return forgotPage({
        email: problems.values.email,
        fieldErrors: problems.fields,
        status: 422,
      });
    }
    context.set(ForgotEmail, result.value.email);
    return next();
  };
  const emailOf = (context: RequestContext) => {
    const email = context.get(ForgotEmail);
    return email === undefined ? undefined : normalizeEmail(email);
  };
  const perEmail = rateLimit({
    name: "reset-email",
    limit: RESET_EMAIL_LIMIT,
    windowMs: HOUR,
    store: deps.limits,
    key: emailOf,
    onLimit: (_context, { retryAfterMs }) =>
      forgotPage({ error: tooMany(retryAfterMs), status: 429 }),
  });

  /** The job after the answer: find the account, make the link, send it. */
  mail.queue.define<{ email: string }>(
    RESET_REQUEST_JOB,
    async ({ email }) => {
      const user = await users.findByEmail(email);
      if (!user) return;
      const token = await tokens.issue(user.id);
      const link = new URL(
        routes.password.reset.index.href({ token }),
        deps.appUrl,
      );
      await sendMail(mail, {
        to: user.email,
        subject: "Reset your password",
        text: resetMail(link.href, minutes),
        key: `password-reset:${token}`,
      });
    },
    mail.jobOptions,
  );

  return {
    middleware: [
      formData({ ...AUTH_FORM_LIMITS, onError: (error) => unreadable(error) }),
    ],
    actions: {
      forgot: {
        actions: {
          index: () => forgotPage(),
          action: {
            // Every well-formed email is counted alike, account or not.
            middleware: [perAddress, validForgot, perEmail],
            async handler(context) {
              const email = context.get(ForgotEmail)!;
              // Stored before the answer, the same write for every email.
              await mail.queue.enqueue(RESET_REQUEST_JOB, { email });
              return forgotSentPage();
            },
          },
        },
      },
      reset: {
        middleware: [perAddress],
        actions: {
          async index(context) {
            const userId = await tokens.check(context.params.token);
            return userId === null
              ? invalidLinkPage()
              : resetPage({ token: context.params.token });
          },
          async action(context) {
            const { token } = context.params;
            const result = await parseForm(
              context.get(FormData),
              NewPasswordForm,
            );
            if (!result.success) {
              if ((await tokens.check(token)) === null) {
                return invalidLinkPage();
              }
              return resetPage({
                token,
                fieldErrors: problemsOf(result).fields,
                status: 422,
              });
            }
            // A dead link costs no bcrypt time (checked first); a live one
            // is used up only once the hash is made, so a failure there
            // leaves it working.
            if ((await tokens.check(token)) === null) return invalidLinkPage();
            const hash = await passwords.hash(result.value.password);
            const userId = await tokens.consume(token);
            if (userId === null) return invalidLinkPage();
            const user = await users.setPassword(userId, hash);
            if (!user) return invalidLinkPage();
            await deps.clearLockout?.(normalizeEmail(user.email));
            // The link came by mail to this address: it is verified.
            await users.markEmailVerified(user.id, user.email);
            const session = context.get(Session)!;
            // This browser's own session is signed out just below.
            await deps.endSessions?.(user.id, session.id);
            endSession(session);
            session.flash("notice", PASSWORD_CHANGED);
            return redirect(routes.auth.login.index.href(), 303);
          },
        },
      },
    },
  };
}
