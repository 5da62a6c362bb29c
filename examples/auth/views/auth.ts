/**
 * The login and register pages. Both forms post back to their own URL;
 * the login form keeps `returnTo` in its action. A form sent back with
 * problems shows each one beside its field (linked by
 * `aria-describedby`, the field marked `aria-invalid`), with the email
 * and name filled in again, never the password.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { loginHref, routes } from "../routes.ts";
import { page } from "./layout.ts";
import { passkeyLogin } from "./passkeys.ts";
import { type ProviderButton, providerButtons } from "./oauth.ts";
import {
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
  MIN_PASSWORD_LENGTH,
} from "../controllers/forms.ts";

/** Messages by field name, from a form that was sent back. */
export type FieldErrors = Record<string, string[] | undefined>;

/** What the login page shows. */
export interface LoginPage {
  /** A safe local path to come back to, or nothing. */
  returnTo?: string;
  error?: string;
  notice?: string;
  /** The email typed before, to fill in again. */
  email?: string;
  /** Problems beside their fields. */
  fieldErrors?: FieldErrors;
  status?: number;
  headers?: HeadersInit;
  /**
   * The request's CSP nonce: with it, the page loads the passkey script
   * and offers "Sign in with a passkey".
   */
  nonce?: string;
  /** "Sign in with <provider>" buttons (see `oauth.ts`). */
  providers?: readonly ProviderButton[];
}

/** The id of a field's message, for `aria-describedby`. */
function errorId(name: string): string {
  return `${name}-error`;
}

/**
 * `aria-invalid` and the link to the message, on a field that has one;
 * on the first such field of `fields` (the form's fields in page order),
 * `autofocus` too: after a 422 the cursor is in the field to fix, and a
 * screen reader reads its label and message, without any script.
 */
export function invalid(
  errors: FieldErrors | undefined,
  name: string,
  fields: readonly string[] = [name],
): SafeHtml | null {
  if (!errors?.[name]?.length) return null;
  const first = fields.find((field) => errors[field]?.length) === name;
  return html.attrs({
    "aria-invalid": "true",
    "aria-describedby": errorId(name),
    autofocus: first ? true : null,
  });
}

/** The field's messages, right under it. */
export function problem(
  errors: FieldErrors | undefined,
  name: string,
): SafeHtml | null {
  const messages = errors?.[name];
  if (!messages?.length) return null;
  return html`<p class="field-error" id="${errorId(name)}">${
    messages.join(" ")
  }</p>`;
}

const LOGIN_FIELDS = ["email", "password"];
const REGISTER_FIELDS = ["name", "email", "password"];

/** The login page. */
export function loginPage(options: LoginPage): Response {
  const { returnTo, email, fieldErrors: errors } = options;
  // The form posts back to the page's own URL (same pattern, POST).
  const action = loginHref(returnTo);
  return page(
    html`
      <form method="post" action="${action}" class="card">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required
          maxlength="${MAX_EMAIL_LENGTH}" value="${email}"${invalid(
            errors,
            "email",
            LOGIN_FIELDS,
          )}>
        ${problem(errors, "email")}
        <label for="password">Password</label>
        <input id="password" name="password" type="password"
          autocomplete="current-password" required${invalid(
            errors,
            "password",
            LOGIN_FIELDS,
          )}>
        ${problem(errors, "password")}
        <button type="submit">Log in</button>
        <p class="form-aside"><a href="${routes.password.forgot.index
          .href()}">Forgot password?</a></p>
      </form>
      ${passkeyLogin(options.nonce, returnTo)}
      ${providerButtons(options.providers, returnTo)}
      <p>No account yet? <a href="${routes.auth.register.index
        .href()}">Register</a></p>
    `,
    { title: "Log in", ...options, path: routes.auth.login.index.href() },
  );
}

/** What the register page shows. */
export interface RegisterPage {
  error?: string;
  /** The email and name typed before, to fill in again. */
  email?: string;
  name?: string;
  /** Problems beside their fields. */
  fieldErrors?: FieldErrors;
  /** Default 200; 422 for a form sent back with problems. */
  status?: number;
}

/** The registration page. */
export function registerPage(options: RegisterPage): Response {
  const errors = options.fieldErrors;
  return page(
    html`
      <form method="post" action="${routes.auth.register.action
        .href()}" class="card">
        <label for="name">Name</label>
        <input id="name" name="name" autocomplete="name" required
          maxlength="${MAX_NAME_LENGTH}" value="${options.name}"${invalid(
            errors,
            "name",
            REGISTER_FIELDS,
          )}>
        ${problem(errors, "name")}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required
          maxlength="${MAX_EMAIL_LENGTH}" value="${options.email}"${invalid(
            errors,
            "email",
            REGISTER_FIELDS,
          )}>
        ${problem(errors, "email")}
        <label for="password">Password <small>(at least ${MIN_PASSWORD_LENGTH} characters)</small></label>
        <input id="password" name="password" type="password"
          autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${invalid(
            errors,
            "password",
            REGISTER_FIELDS,
          )}>
        ${problem(errors, "password")}
        <button type="submit">Create account</button>
      </form>
      <p>Already registered? <a href="${routes.auth.login.index
        .href()}">Log in</a></p>
    `,
    {
      title: "Register",
      error: options.error,
      status: options.status,
      path: routes.auth.register.index.href(),
    },
  );
}
