/**
 * The frame of every page: head, navigation, who is signed in with a
 * logout button (logout is a POST), flash messages and `<main>`. On a
 * narrow screen the header takes two rows: the brand and the account,
 * then the links (see `public/style.css`).
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import type { User } from "../users.ts";
import { routes } from "../routes.ts";

/** What every page needs besides its content. */
export interface PageOptions {
  title: string;
  /** The signed-in user, for the navigation. */
  user?: User;
  /** A flashed error and notice, shown above the content. */
  error?: string;
  notice?: string;
  status?: number;
  headers?: HeadersInit;
  /** This page's path: its link in the navigation is marked current. */
  path?: string;
}

/** Who is signed in, and the logout button (a POST). */
function account(user: User | undefined): SafeHtml | null {
  if (!user) return null;
  return html`
    <div class="account">
      <span
        class="who"><span class="who-label">Signed in as </span><strong>${user
          .name}</strong></span>
      <form method="post" action="${routes.auth.logout.href()}">
        <button type="submit" class="link">Log out</button>
      </form>
    </div>
  `;
}

function nav(user: User | undefined, path: string | undefined): SafeHtml {
  // Screen readers announce the link of the page you are on as "current".
  const link = (href: string, label: string) =>
    html`<a href="${href}" ${
      html.attrs({ "aria-current": href === path ? "page" : null })
    }>${label}</a>`;
  if (!user) {
    return html`
      ${link(routes.auth.login.index.href(), "Log in")}
      ${link(routes.auth.register.index.href(), "Register")}
    `;
  }
  const admin = user.role === "admin";
  const staff = admin || user.role === "moderator";
  return html`
    ${link(routes.dashboard.href(), "Dashboard")}
    ${link(routes.profile.href(), "Profile")}
    ${link(routes.security.href(), "Security")}
    ${admin ? link(routes.admin.users.href(), "Users") : null}
    ${staff ? link(routes.admin.settings.href(), "Settings") : null}
  `;
}

/** Renders a whole page as an HTML response. */
export function page(content: SafeHtml, options: PageOptions): Response {
  const { title, user, error, notice } = options;
  return createHtmlResponse(
    html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title} · fetchkit auth example</title>
    <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
    <link rel="stylesheet" href="/assets/style.css">
  </head>
  <body>
    <header class="${user ? "signed-in" : "guest"}">
      <a class="brand" href="${routes.home.href()}">fetchkit auth</a>
      <nav aria-label="Main">${nav(user, options.path)}</nav>
      ${account(user)}
    </header>
    <main>
      <h1>${title}</h1>
      ${error ? html`<p class="flash error" role="alert">${error}</p>` : null}
      ${
      notice ? html`<p class="flash notice" role="status">${notice}</p>` : null
    }
      ${content}
    </main>
  </body>
</html>`,
    { status: options.status, headers: options.headers },
  );
}
