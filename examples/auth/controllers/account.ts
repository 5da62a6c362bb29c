/**
 * The home page and the signed-in user's own pages.
 *
 * @module
 */
import type { Action, RequestContext } from "@fetchkit/toolkit/fetch-router";
import type { SafeHtml } from "@fetchkit/toolkit/html-template";
import { CurrentUser, Session } from "../context.ts";
import { requireAuth } from "../middleware.ts";
import { CspNonce } from "@fetchkit/toolkit/secure-headers-middleware";
import { dashboardPage, homePage, profilePage } from "../views/account.ts";
import type { PasskeyStore } from "../passkeys.ts";
import type { User } from "../users.ts";
import { passkeySection } from "../views/passkeys.ts";

/** `GET /`: public. */
export const home: Action<"/"> = (context) =>
  homePage(context.get(CurrentUser));

/**
 * `GET /dashboard`: signed-in users only; with what `more` adds for the
 * user (the reminder to verify the email).
 */
export function dashboard(
  more: (user: User) => SafeHtml | null = () => null,
): Action<"/dashboard"> {
  return {
    middleware: [requireAuth()],
    handler(context) {
      const user = context.get(CurrentUser)!;
      return dashboardPage(
        user,
        context.get(Session)?.get("notice"),
        more(user),
      );
    },
  };
}

/**
 * `GET /profile`: signed-in users only; with the sections `more` gives
 * (the email's, the password's), the user's passkeys, then `last` (the
 * way to delete the account).
 */
export function profile(
  passkeys: PasskeyStore,
  more: (
    context: RequestContext,
  ) => Promise<(SafeHtml | null)[]> | (SafeHtml | null)[] = () => [],
  last: SafeHtml | null = null,
): Action<"/profile"> {
  return {
    middleware: [requireAuth()],
    async handler(context) {
      const user = context.get(CurrentUser)!;
      const session = context.get(Session)!;
      return profilePage(user, {
        sections: [
          ...(await more(context)),
          passkeySection(
            await passkeys.listByUser(user.id),
            context.get(CspNonce),
          ),
          last,
        ],
        error: session.get("error"),
        notice: session.get("notice"),
      });
    },
  };
}
