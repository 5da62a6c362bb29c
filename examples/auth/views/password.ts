/**
 * Changing the password: the profile's link, and the form.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { MIN_PASSWORD_LENGTH } from "../controllers/forms.ts";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { type FieldErrors, invalid, problem } from "./auth.ts";
import { page } from "./layout.ts";

/** The profile's password section. */
export function passwordSection(user: User): SafeHtml {
  return html`
    <section class="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <p>${user.passwordUnusable
        ? "This account signs in with a provider or a passkey; you can add a password too."
        : "Changing it signs out every other device."}</p>
      <p><a href="${routes.changePassword.index.href()}">${user.passwordUnusable
        ? "Set a password"
        : "Change your password"}</a></p>
    </section>
  `;
}

/** What the form shows. */
export interface ChangePasswordPage {
  user: User;
  fieldErrors?: FieldErrors;
  error?: string;
  status?: number;
}

/** `GET /profile/password`: the new password. */
export function changePasswordPage(options: ChangePasswordPage): Response {
  const errors = options.fieldErrors;
  return page(
    html`
      <p>Choose a new password. Every other device signed in to your account is signed out when you save it; this one stays signed in.</p>
      <form method="post" action="${routes.changePassword.action
        .href()}" class="card">
        <input type="hidden" name="username" autocomplete="username" value="${options
          .user.email}">
        <label for="password">New password <small>(at least ${MIN_PASSWORD_LENGTH} characters)</small></label>
        <input id="password" name="password" type="password"
          autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${invalid(
            errors,
            "password",
          )}>
        ${problem(errors, "password")}
        <button type="submit">Save the new password</button>
      </form>
      <p><a href="${routes.profile.href()}">Back to your profile</a></p>
    `,
    {
      title: "Change your password",
      user: options.user,
      error: options.error,
      status: options.status,
    },
  );
}
