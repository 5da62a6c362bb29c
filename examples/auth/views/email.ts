/**
 * The email pages: the profile's email section ("not verified", "Send
 * again", "Change"), the change form, and the pages a link can land on.
 * Every refusal says what to do next.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { MAX_EMAIL_LENGTH } from "../controllers/forms.ts";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { type FieldErrors, invalid, problem } from "./auth.ts";
import { page } from "./layout.ts";

/** The profile's email section: its state and what can be done. */
export function emailSection(user: User): SafeHtml {
  const state = user.emailVerified
    ? html`<p><strong>${user.email}</strong> <span class="badge verified">verified</span></p>`
    : html`
      <p><strong>${user
        .email}</strong> <span class="badge unverified">not verified</span></p>
      <p>We sent a link to this address when you registered. Open it to verify the address; no mail? Check the spam folder, or send a new link (it works for 24 hours).</p>
      <form method="post" action="${routes.email.resend.href()}">
        <button type="submit" class="secondary">Send again</button>
      </form>
    `;
  return html`
    <section class="card" aria-labelledby="email-heading">
      <h2 id="email-heading">Email</h2>
      ${state}
      <p><a href="${routes.email.change.index
        .href()}">Change your email address</a></p>
    </section>
  `;
}

/** The dashboard's reminder while the address is not verified. */
export function emailReminder(user: User): SafeHtml | null {
  if (user.emailVerified) return null;
  return html`
    <section class="card" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify your email</h2>
      <p>We sent a link to <strong>${user
        .email}</strong>: open it within 24 hours to verify your address. No mail? Check the spam folder, or send a new link.</p>
      <form method="post" action="${routes.email.resend.href()}">
        <button type="submit" class="secondary">Send again</button>
      </form>
    </section>
  `;
}

/** What the change form shows. */
export interface ChangeEmailPage {
  user: User;
  email?: string;
  fieldErrors?: FieldErrors;
  error?: string;
  status?: number;
}

/** `GET /email/change`: the new address. */
export function changeEmailPage(options: ChangeEmailPage): Response {
  const errors = options.fieldErrors;
  return page(
    html`
      <p>Your address is <strong>${options.user
        .email}</strong>. We will send a link to the new address, and a notice to this one; the address changes only when the link is opened, signed in to this account, within 24 hours.</p>
      <form method="post" action="${routes.email.change.action
        .href()}" class="card">
        <label for="email">New email</label>
        <input id="email" name="email" type="email" autocomplete="email" required
          maxlength="${MAX_EMAIL_LENGTH}" value="${options.email}"${invalid(
            errors,
            "email",
          )}>
        ${problem(errors, "email")}
        <button type="submit">Send the link</button>
      </form>
      <p><a href="${routes.profile.href()}">Back to your profile</a></p>
    `,
    {
      title: "Change your email",
      user: options.user,
      error: options.error,
      status: options.status,
    },
  );
}

/** A link that is unknown, used or expired: status 400. */
export function emailLinkExpiredPage(user: User | undefined): Response {
  const next = user
    ? html`<p><a href="${routes.profile.href()}">Go to your profile</a> to send a new link.</p>`
    : html`<p><a href="${routes.auth.login.index.href()}">Log in</a>, then send a new link from your profile.</p>`;
  return page(
    html`
      <p>This link does not work any more: it was used already, a newer one was sent, the address changed since, or its 24 hours are over.</p>
      ${next}
    `,
    { title: "Link expired", user, status: 400 },
  );
}

/** A link for another account than the one signed in: status 403. */
export function otherAccountLinkPage(user: User): Response {
  return page(
    html`
      <p>This link belongs to another account, and you are signed in as <strong>${user
        .email}</strong>. Nothing was changed.</p>
      <p>Log out, then open the link again and sign in to the account it was sent for.</p>
      <form method="post" action="${routes.auth.logout.href()}">
        <button type="submit" class="secondary">Log out</button>
      </form>
    `,
    { title: "Link for another account", user, status: 403 },
  );
}

/** Another account took the address since the link was sent: status 409. */
export function emailTakenPage(user: User, email: string): Response {
  return page(
    html`
      <p><strong>${email}</strong> now belongs to another account, so yours stays <strong>${user
        .email}</strong>.</p>
      <p><a href="${routes.email.change.index
        .href()}">Choose another address</a></p>
    `,
    { title: "Address taken", user, status: 409 },
  );
}

/** Too many links asked for: status 429, saying when to try again. */
export function tooManyLinksPage(
  user: User | undefined,
  retryAfterMs: number,
): Response {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return page(
    html`
      <p>You asked for several links in the last hour. Check your inbox and spam folder for the last one; it works for 24 hours.</p>
      <p>You can ask again in ${minutes} minute${minutes === 1 ? "" : "s"}. <a
        href="${routes.profile.href()}">Back to your profile</a></p>
    `,
    { title: "Too many links", user, status: 429 },
  );
}
