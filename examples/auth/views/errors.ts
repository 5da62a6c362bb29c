/**
 * Pages for requests that go nowhere.
 *
 * @module
 */
import { html } from "@fetchkit/toolkit/html-template";
import type { User } from "../users.ts";
import { routes } from "../routes.ts";
import { page } from "./layout.ts";

/** The page for unknown paths: status 404. */
export function notFoundPage(user: User | undefined): Response {
  return page(
    html`<p>There is no page at this address. Go back <a href="${routes.home.href()}">home</a>.</p>`,
    { title: "Page not found", user, status: 404 },
  );
}

/**
 * The page for a signed-in user without the role a page needs: status 403.
 * Its heading is the seed's body, `Forbidden`.
 */
export function forbiddenPage(user: User): Response {
  return page(
    html`<p>Your account (<span class="role">${user.role}</span>) cannot open this page.
Go to your <a href="${routes.dashboard.href()}">dashboard</a>.</p>`,
    { title: "Forbidden", user, status: 403 },
  );
}
