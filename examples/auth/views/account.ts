/**
 * The public home page and the signed-in user's pages.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import type { User } from "../users.ts";
import { routes } from "../routes.ts";
import { page } from "./layout.ts";

/** The public home page. */
export function homePage(user: User | undefined): Response {
  const next = user
    ? html`<p>Welcome back, ${user.name}. Go to your <a href="${routes.dashboard.href()}">dashboard</a>.</p>`
    : html`<p><a href="${routes.auth.register.index.href()}">Create an account</a> or <a href="${routes.auth.login.index.href()}">log in</a>.</p>`;
  return page(
    html`<p>An example application built from the parts of <code>@fetchkit/toolkit</code>:
the router, route helpers, form parsing, sessions on Deno KV, CSRF protection and the logger.</p>
${next}`,
    { title: "Welcome", user },
  );
}

/** The dashboard: where a login lands; `more` below the greeting. */
export function dashboardPage(
  user: User,
  notice?: string,
  more?: SafeHtml | null,
): Response {
  return page(
    html`<p>Hello, <strong>${user.name}</strong>. You are signed in as <code>${user.email}</code>.</p>
<p>Your role: <span class="role">${user.role}</span></p>${more}`,
    { title: "Dashboard", user, notice, path: routes.dashboard.href() },
  );
}

/** What the profile shows besides the user's record. */
export interface ProfileOptions {
  /** Sections under the record (the passkeys...), in order. */
  sections?: (SafeHtml | null)[];
  /** Flashed messages. */
  error?: string;
  notice?: string;
}

/** The profile page. */
export function profilePage(
  user: User,
  options: ProfileOptions = {},
): Response {
  return page(
    html`
      <dl class="card">
        <dt>Name</dt>
        <dd>${user.name}</dd>
        <dt>Email</dt>
        <dd>${user.email}</dd>
        <dt>Role</dt>
        <dd>${user.role}</dd>
        <dt>Member since</dt>
        <dd><time datetime="${user.createdAt.toISOString()}">${user.createdAt
          .toISOString().slice(0, 10)}</time></dd>
      </dl>
      ${options.sections}
    `,
    {
      title: "Profile",
      user,
      path: routes.profile.href(),
      error: options.error,
      notice: options.notice,
    },
  );
}
