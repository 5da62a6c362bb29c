/**
 * The home page and the signed-in user's own pages.
 *
 * @module
 */
import type { Action } from "@fetchkit/toolkit/fetch-router";
import { CurrentUser, Session } from "../context.ts";
import { requireAuth } from "../middleware.ts";
import { dashboardPage, homePage, profilePage } from "../views/account.ts";

/** `GET /`: public. */
export const home: Action<"/"> = (context) =>
  homePage(context.get(CurrentUser));

/** `GET /dashboard`: signed-in users only. */
export const dashboard: Action<"/dashboard"> = {
  middleware: [requireAuth()],
  handler: (context) =>
    dashboardPage(
      context.get(CurrentUser)!,
      context.get(Session)?.get("notice"),
    ),
};

/** `GET /profile`: signed-in users only. */
export const profile: Action<"/profile"> = {
  middleware: [requireAuth()],
  handler: (context) => profilePage(context.get(CurrentUser)!),
};
