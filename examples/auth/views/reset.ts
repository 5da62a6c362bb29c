/**
 * "Forgot password?": the page that asks for the email, the answer it
 * gives (the same whether or not an account has that email), the reset
 * link's page with the new password, and the page for a link that no
 * longer works.
 *
 * @module
 */
import { html } from "@fetchkit/toolkit/html-template";
import { routes } from "../routes.ts";
import { MAX_EMAIL_LENGTH, MIN_PASSWORD_LENGTH } from "../controllers/forms.ts";
import { type FieldErrors, invalid, problem } from "./auth.ts";
import { page } from "./layout.ts";

/** What the forgot-password page shows. */
export interface ForgotPage {
  email?: string;
  fieldErrors?: FieldErrors;
  error?: string;
  status?: number;
  headers?: HeadersInit;
}

/** The form asking for the account's email. */
export function forgotPage(options: ForgotPage = {}): Response {
  const errors = options.fieldErrors;
  return page(
    html`
      <p>Enter the email of your account. We will send a link to choose a new password; it works once, for 30 minutes.</p>
      <form method="post" action="${routes.password.forgot.action
        .href()}" class="card">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required
          maxlength="${MAX_EMAIL_LENGTH}" value="${options.email}"${invalid(
            errors,
            "email",
          )}>
        ${problem(errors, "email")}
        <button type="submit">Send the link</button>
      </form>
      <p><a href="${routes.auth.login.index.href()}">Back to log in</a></p>
    `,
    {
      title: "Forgot password",
      error: options.error,
      status: options.status,
      headers: options.headers,
      path: routes.password.forgot.index.href(),
    },
  );
}

/**
 * The answer to the form: the same page, status and bytes for every
 * email, so it does not tell whether an account has it.
 */
export function forgotSentPage(): Response {
  return page(
    html`
      <p>If an account has that email, a link to choose a new password is on its way. It works once, for 30 minutes.</p>
      <p>No mail after a few minutes? Check the spam folder, or <a href="${routes
        .password.forgot.index.href()}">ask again</a>.</p>
    `,
    { title: "Check your email" },
  );
}

/** What the reset page shows. */
export interface ResetPage {
  /** The link's token, for the form's action. */
  token: string;
  fieldErrors?: FieldErrors;
  status?: number;
}

/** The new-password form behind a working link. */
export function resetPage(options: ResetPage): Response {
  const errors = options.fieldErrors;
  return page(
    html`
      <p>Choose a new password. Every session of your account, on any device, ends when you save it.</p>
      <form method="post" action="${routes.password.reset.action.href({
        token: options.token,
      })}" class="card">
        <label for="password">New password <small>(at least ${MIN_PASSWORD_LENGTH} characters)</small></label>
        <input id="password" name="password" type="password"
          autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${invalid(
            errors,
            "password",
          )}>
        ${problem(errors, "password")}
        <button type="submit">Save the new password</button>
      </form>
    `,
    { title: "Choose a new password", status: options.status },
  );
}

/** A link that is unknown, used or expired: status 400. */
export function invalidLinkPage(): Response {
  return page(
    html`
      <p>This link does not work any more: it was used already, a newer one was sent, or its 30 minutes are over.</p>
      <p><a href="${routes.password.forgot.index
        .href()}">Ask for a new link</a></p>
    `,
    { title: "Link expired", status: 400 },
  );
}
