/**
 * The login and register pages. Both forms post back to their own URL;
 * the login form keeps `returnTo` in its action.
 *
 * @module
 */
import { html } from "@fetchkit/toolkit/html-template";
import { loginHref, routes } from "../routes.ts";
import { page } from "./layout.ts";
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from "../controllers/forms.ts";

/** What the login page shows. */
export interface LoginPage {
  /** A safe local path to come back to, or nothing. */
  returnTo?: string;
  error?: string;
  notice?: string;
  /** The email typed before, to fill in again. */
  email?: string;
  status?: number;
  headers?: HeadersInit;
}

/** The login page. */
export function loginPage(options: LoginPage): Response {
  const { returnTo, email } = options;
  // The form posts back to the page's own URL (same pattern, POST).
  const action = loginHref(returnTo);
  return page(
    html`
      <form method="post" action="${action}" class="card">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required
          maxlength="${MAX_EMAIL_LENGTH}" value="${email}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password"
          autocomplete="current-password" required>
        <button type="submit">Log in</button>
      </form>
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
  /** Default 200; 422 for a form sent back with a problem. */
  status?: number;
}

/** The registration page. */
export function registerPage(options: RegisterPage): Response {
  return page(
    html`
      <form method="post" action="${routes.auth.register.action
        .href()}" class="card">
        <label for="name">Name</label>
        <input id="name" name="name" autocomplete="name" required
          maxlength="${MAX_NAME_LENGTH}" value="${options.name}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required
          maxlength="${MAX_EMAIL_LENGTH}" value="${options.email}">
        <label for="password">Password <small>(at least 8 characters)</small></label>
        <input id="password" name="password" type="password"
          autocomplete="new-password" minlength="8" required>
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
