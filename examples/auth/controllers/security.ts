/**
 * `GET /profile/security`: the account's security at a glance. The page
 * is built from sections: two-factor authentication and passkeys here,
 * and the devices signed in (`SecurityDeps.devices`: each with "Sign
 * out", and "Sign out all other devices").
 *
 * @module
 */
import type { Action, RequestContext } from "@fetchkit/toolkit/fetch-router";
import type { SafeHtml } from "@fetchkit/toolkit/html-template";
import { CurrentUser, Session } from "../context.ts";
import { requireAuth } from "../middleware.ts";
import type { PasskeyStore } from "../passkeys.ts";
import type { TwoFactorStore } from "../two_factor.ts";
import type { User } from "../users.ts";
import { securityPage } from "../views/security.ts";

/** What the security page reads. */
export interface SecurityDeps {
  twoFactor: TwoFactorStore;
  passkeys: PasskeyStore;
  /**
   * The devices section: the sessions of `user` on every device, each
   * with "Sign out", and "Sign out all other devices" (`app.ts` renders
   * `views/devices.ts`). None without it.
   */
  devices?: (context: RequestContext, user: User) => Promise<SafeHtml | null>;
}

/** The action of `routes.security`. */
export function security(deps: SecurityDeps): Action<"/profile/security"> {
  return {
    middleware: [requireAuth()],
    async handler(context) {
      const user = context.get(CurrentUser)!;
      const session = context.get(Session)!;
      const [record, passkeys, devices] = await Promise.all([
        deps.twoFactor.get(user.id),
        deps.passkeys.listByUser(user.id),
        deps.devices?.(context, user) ?? null,
      ]);
      return securityPage(user, {
        twoFactor: record && {
          enabledAt: record.enabledAt,
          backupCodesLeft: record.backupCodes.length,
        },
        passkeyCount: passkeys.length,
        sections: [devices],
        error: session.get("error"),
        notice: session.get("notice"),
      });
    },
  };
}
