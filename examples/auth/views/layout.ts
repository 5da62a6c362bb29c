/**
 * The frame of every page: head, navigation (who is signed in, and a
 * logout button, since logout is a POST), flash messages and `<main>`.
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
}

function nav(user: User | undefined): SafeHtml {
  if (!user) {
    return html`
      <a href="${routes.auth.login.index.href()}">Log in</a>
      <a href="${routes.auth.register.index.href()}">Register</a>
    `;
  }
  const admin = user.role === "admin";
  const staff = admin || user.role === "moderator";
  return html`
    <a href="${routes.dashboard.href()}">Dashboard</a>
        <a href="${routes.profile.href()}">Profile</a>
        ${admin ? html`<a href="${routes.admin.users.href()}">Users</a>` : null}
        ${staff
          ? html`<a href="${routes.admin.settings.href()}">Settings</a>`
          : null}
        <span class="who">Signed in as <strong>${user.name}</strong></span>
        <form method="post" action="${routes.auth.logout.href()}">
      <button type="submit" class="link">Log out</button>
    </form>
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
    <link rel="stylesheet" href="/assets/style.css">
  </head>
  <body>
    <header>
      <a class="brand" href="${routes.home.href()}">fetchkit auth</a>
      <nav aria-label="Main">${nav(user)}</nav>
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
