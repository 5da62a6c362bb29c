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
 * Its heading is the plain-text answer's body, `Forbidden`.
 */
export function forbiddenPage(user: User): Response {
  return page(
    html`<p>Your account (<span class="role">${user.role}</span>) cannot open this page.
Go to your <a href="${routes.dashboard.href()}">dashboard</a>.</p>`,
    { title: "Forbidden", user, status: 403 },
  );
}

/** A link back: the dashboard for a signed-in user, else home. */
function wayBack(user: User | undefined) {
  return user
    ? html`Go to your <a href="${routes.dashboard.href()}">dashboard</a>.`
    : html`Go back <a href="${routes.home.href()}">home</a>.`;
}

/**
 * The page for a method a route does not answer (`GET /auth/logout`):
 * status 405, keeping the router's `Allow` header.
 */
export function methodNotAllowedPage(
  user: User | undefined,
  method: string,
  allow: string | null,
): Response {
  return page(
    html`<p>This address does not answer a <code>${method}</code> request. ${
      wayBack(user)
    }</p>`,
    {
      title: "Method not allowed",
      user,
      status: 405,
      headers: allow === null ? undefined : { Allow: allow },
    },
  );
}

/**
 * The page for an error on the server's side: status 500, or 503 (with
 * its `Retry-After`) when the session store cannot be reached.
 */
export function serverErrorPage(
  user: User | undefined,
  options: { status?: 500 | 503; headers?: HeadersInit } = {},
): Response {
  return page(
    html`<p>Something went wrong on our side, and it has been logged. Please try again in a moment. ${
      wayBack(user)
    }</p>`,
    {
      title: "Something went wrong",
      user,
      status: options.status ?? 500,
      headers: options.headers,
    },
  );
}
