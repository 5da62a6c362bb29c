/**
 * Verified email addresses and changing one's address, as this table says.
 *
 * | request                    | who                       | then                                                   |
 * | -------------------------- | ------------------------- | ------------------------------------------------------ |
 * | (registration)             | new user                  | a link to the address (`sendVerification()`)          |
 * | `POST /email/verify`       | member, not verified      | a new link ("Send again"), → profile; 3 an hour, `429` |
 * | `GET /email/change`        | member, re-authenticated  | the new-address form                                   |
 * | `POST /email/change`       | member, re-authenticated  | link to the new address, notice to the old, → profile  |
 * | `GET /email/verify/:token` | guest or the link's user  | verify link: address verified; change link: moved      |
 * | `GET /email/verify/:token` | another signed-in user    | `403`, nothing changes, the link still works           |
 * | `GET /email/verify/:token` | guest, change link        | → login, and back here after                           |
 * | `GET /email/verify/:token` | unknown, used, expired    | `400` saying how to get a new one                      |
 *
 * **Links** (`email_verification.ts`): 24 hours, single use, hashed at
 * rest, one per user and purpose. A verification link verifies only the
 * address it was sent to, so one sent before an address change verifies
 * nothing after it.
 *
 * **A change** needs a fresh re-authentication (the `reauth` middleware),
 * and its link must be opened signed in to the same account: a link
 * forwarded to, or opened by, someone else signed in changes nothing. The
 * old address gets a notice at once, so an owner whose session was stolen
 * learns of it before the link can be used. The address is free when
 * asked for and checked again, atomically, when the link is opened.
 *
 * **Limits.** "Send again" and change requests: 3 links an hour per
 * user each (`email-resend`, `email-change`), so nobody can flood an
 * inbox from an account. Over it: `429` with `Retry-After`.
 *
 * Every mail is stored as a durable job (`mail_jobs.ts`) before the
 * answer, and a worker sends it, retrying while the mail server is down:
 * a slow or absent mail server does not slow the page or lose the mail.
 *
 * @module
 */
import type {
  Controller,
  Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { parseForm } from "@fetchkit/toolkit/form-validation";
import {
  rateLimit,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CurrentUser, Session } from "../context.ts";
import {
  changeMail,
  changeNoticeMail,
  type EmailLinks,
  verificationMail,
} from "../email_verification.ts";
import type { MailMessage } from "../mailer.ts";
import { requireAuth } from "../middleware.ts";
import { loginHref, routes } from "../routes.ts";
import {
  EmailInUseError,
  normalizeEmail,
  type User,
  type UserStore,
} from "../users.ts";
import {
  changeEmailPage,
  emailLinkExpiredPage,
  emailTakenPage,
  otherAccountLinkPage,
  tooManyLinksPage,
} from "../views/email.ts";
import { problemsOf, RegistrationForm, signedInFormData } from "./forms.ts";

/** Links per user per hour, for "Send again" and for changes, each. */
export const EMAIL_LINK_LIMIT = 3;
const HOUR = 60 * 60 * 1000;

/** Sends one mail; the app's mail path (the mailer, or the mail jobs). */
export type SendMail = (
  message: MailMessage & { key: string; userId: number },
) => Promise<void>;

/** What the email controller works with. */
export interface EmailDeps {
  users: UserStore;
  links: EmailLinks;
  sendMail: SendMail;
  /** Where the limits count. */
  limits: RateLimitStore;
  /** The app's public origin, for the links (never the request's `Host`). */
  appUrl: string;
  /**
   * Run before the change form and its answer: the re-authentication
   * check (`requireReauth()`), which sends a session without a fresh
   * confirmation to the confirm page.
   */
  reauth?: Middleware[];
}

const EmailForm = RegistrationForm.pick({ email: true });

/** The notice after registration and after "Send again". */
export function linkSent(email: string): string {
  return `We sent a link to ${email}: open it within 24 hours to verify your address.`;
}

/** The email controller, and `sendVerification()` for registration. */
export function createEmailVerification(deps: EmailDeps): {
  controller: Controller<typeof routes.email>;
  /**
   * Stores a link verifying `user`'s address, and its mail as a job (sent
   * by the mail worker).
   */
  sendVerification(user: User): Promise<void>;
} {
  const { users, links } = deps;
  const linkTo = (token: string) =>
    new URL(routes.email.verify.href({ token }), deps.appUrl).href;
  // Stored (a durable job) before the answer, so a crash after it still
  // sends; the sending itself happens in the mail worker.
  const send = (message: MailMessage & { key: string; userId: number }) =>
    deps.sendMail(message);

  async function sendVerification(user: User): Promise<void> {
    const token = await links.issue(user.id, user.email, "verify");
    await send({
      to: user.email,
      subject: "Verify your email address",
      text: verificationMail(linkTo(token)),
      key: `verify:${user.id}:${token}`,
      userId: user.id,
    });
  }

  const userKey = (context: RequestContext) => {
    const user = context.get(CurrentUser);
    return user ? String(user.id) : undefined;
  };
  const perUser = (name: string) =>
    rateLimit({
      name,
      limit: EMAIL_LINK_LIMIT,
      windowMs: HOUR,
      store: deps.limits,
      key: userKey,
      onLimit: (context, { retryAfterMs }) =>
        tooManyLinksPage(context.get(CurrentUser), retryAfterMs),
    });
  const members = [requireAuth()];
  const reauth = deps.reauth ?? [];
  const toProfile = (context: RequestContext, notice: string) => {
    context.get(Session)!.flash("notice", notice);
    return redirect(routes.profile.href(), 303);
  };

  const controller: Controller<typeof routes.email> = {
    actions: {
      async verify(context) {
        const user = context.get(CurrentUser);
        const link = await links.check(context.params.token);
        if (!link) return emailLinkExpiredPage(user);
        if (user && user.id !== link.userId) return otherAccountLinkPage(user);
        if (link.purpose === "change" && !user) {
          return redirect(loginHref(context.url.pathname));
        }
        // Used up only now, by the account it was sent for.
        if (!await links.consume(context.params.token)) {
          return emailLinkExpiredPage(user);
        }
        const session = context.get(Session)!;
        if (link.purpose === "verify") {
          const verified = await users.markEmailVerified(
            link.userId,
            link.email,
          );
          if (!verified) return emailLinkExpiredPage(user);
          const notice = `Thank you: ${verified.email} is verified.`;
          if (user) return toProfile(context, notice);
          session.flash("notice", `${notice} Log in to continue.`);
          return redirect(routes.auth.login.index.href(), 303);
        }
        try {
          const moved = await users.changeEmail(link.userId, link.email);
          if (!moved) return emailLinkExpiredPage(user);
          return toProfile(
            context,
            `Your email address is now ${moved.email}, verified.`,
          );
        } catch (error) {
          if (!(error instanceof EmailInUseError)) throw error;
          return emailTakenPage(user!, link.email);
        }
      },
      resend: {
        middleware: [...members, perUser("email-resend")],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          // The form has no fields; reading it drains the body.
          await context.request.body?.cancel();
          if (user.emailVerified) {
            return toProfile(context, `${user.email} is already verified.`);
          }
          await sendVerification(user);
          return toProfile(context, linkSent(user.email));
        },
      },
      change: {
        middleware: [
          ...members,
          ...reauth,
          signedInFormData(changeEmailPage),
        ],
        actions: {
          index(context) {
            const session = context.get(Session)!;
            return changeEmailPage({
              user: context.get(CurrentUser)!,
              error: session.get("error"),
            });
          },
          action: {
            middleware: [perUser("email-change")],
            async handler(context) {
              const user = context.get(CurrentUser)!;
              const result = await parseForm(context.get(FormData), EmailForm);
              if (!result.success) {
                const problems = problemsOf(result);
                return changeEmailPage({
                  user,
                  email: problems.values.email,
                  fieldErrors: problems.fields,
                  status: 422,
                });
              }
              const { email } = result.value;
              const refuse = (message: string) =>
                changeEmailPage({
                  user,
                  email,
                  fieldErrors: { email: [message] },
                  status: 422,
                });
              if (normalizeEmail(email) === normalizeEmail(user.email)) {
                return refuse(
                  "That is your address already. Type the new one.",
                );
              }
              if (await users.findByEmail(email)) {
                return refuse(
                  "Another account has this address. Type another one.",
                );
              }
              const token = await links.issue(user.id, email, "change");
              await send({
                to: email,
                subject: "Confirm your new email address",
                text: changeMail(linkTo(token)),
                key: `email-change:${user.id}:${token}`,
                userId: user.id,
              });
              await send({
                to: user.email,
                subject: "Your email address is about to change",
                text: changeNoticeMail(email),
                key: `email-change-notice:${user.id}:${token}`,
                userId: user.id,
              });
              return toProfile(
                context,
                `We sent a link to ${email}. Your address changes when you open it, signed in, within 24 hours; until then it stays ${user.email}.`,
              );
            },
          },
        },
      },
    },
  };
  return { controller, sendVerification };
}
