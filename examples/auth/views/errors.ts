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
