/**
 * Deleting one's own account: the profile's link to it, and the page that
 * says what goes and asks for the email.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { MAX_EMAIL_LENGTH } from "../controllers/forms.ts";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { type FieldErrors, invalid, problem } from "./auth.ts";
import { page } from "./layout.ts";

/** The profile's last section: a link to the delete page. */
export function deleteSection(): SafeHtml {
  return html`
    <section class="card" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete your account</h2>
      <p>Removes the account and everything it holds, on every device. It cannot be undone.</p>
      <p><a href="${routes.deleteAccount.index
        .href()}">Delete your account…</a></p>
    </section>
  `;
}

/** What the delete page shows. */
export interface DeleteAccountPage {
  user: User;
  fieldErrors?: FieldErrors;
  error?: string;
  status?: number;
}

/** `GET /profile/delete`: what goes, and the email to type. */
export function deleteAccountPage(options: DeleteAccountPage): Response {
  const { user, fieldErrors: errors } = options;
  return page(
    html`
      <div class="card">
        <p>Deleting the account removes, at once and for good:</p>
        <ul>
          <li>your profile, <strong>${user
            .email}</strong>, and your password;</li>
          <li>your sessions on every device (each is signed out);</li>
          <li>your passkeys and the providers you sign in with;</li>
          <li>links mailed to you that were not used yet, and mail not yet sent.</li>
        </ul>
        <p>The address can then register a new account.</p>
      </div>
      <form method="post" action="${routes.deleteAccount.action
        .href()}" class="card danger-zone">
        <label for="email">Type your email, <strong>${user
          .email}</strong>, to confirm</label>
        <input id="email" name="email" type="email" autocomplete="off" required
          maxlength="${MAX_EMAIL_LENGTH}"${invalid(errors, "email")}>
        ${problem(errors, "email")}
        <button type="submit" class="danger">Delete my account</button>
      </form>
      <p><a href="${routes.profile
        .href()}">Keep my account: back to the profile</a></p>
    `,
    {
      title: "Delete your account",
      user,
      error: options.error,
      status: options.status,
    },
  );
}
