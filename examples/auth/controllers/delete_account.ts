/**
 * Deleting one's own account, as this table says.
 *
 * | request                 | when                                      | then                                              |
 * | ----------------------- | ----------------------------------------- | ------------------------------------------------- |
 * | `GET /profile/delete`   | member, re-authenticated                  | what goes, and the email field                    |
 * | `POST /profile/delete`  | the account's email typed (any case)      | everything removed, signed out, → login, notice   |
 * | `POST /profile/delete`  | another email, or none                    | `422`, the page saying what to type               |
 * | `POST /profile/delete`  | the only admin                            | `409`, saying to make another admin first         |
 * | either                  | guest                                     | → login, and back after                           |
 *
 * A fresh re-authentication (the `reauth` middleware) comes first, and
 * the typed email guards against a slip of the finger.
 *
 * **What goes**, in this order: the user record and its email entry
 * (from then on the account does not exist: `loadUser()` signs out any
 * session of it on its next request, on any device and any session
 * storage, and the admin list no longer shows it), then its sessions'
 * stored data where the storage can list a user's sessions, its passkeys,
 * its provider identities, its unused reset and email links, and its
 * pending mail jobs. The email can register again at once: a new account
 * gets a new id, which no old session, passkey or link names.
 *
 * @module
 */
import type { Controller, Middleware } from "@fetchkit/toolkit/fetch-router";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CurrentUser, Session } from "../context.ts";
import { requireAuth } from "../middleware.ts";
import { routes } from "../routes.ts";
import { endSession } from "../sign_in.ts";
import { normalizeEmail, type User, type UserStore } from "../users.ts";
import { deleteAccountPage } from "../views/delete_account.ts";
import { field } from "./fields.ts";
import { signedInFormData } from "./forms.ts";

/** The notice on the login page after a deletion. */
export const ACCOUNT_DELETED =
  "Your account has been deleted, and every session of it signed out. You can register again with the same address.";

/** What the controller works with. */
export interface DeleteAccountDeps {
  users: UserStore;
  /**
   * Removes what the account held besides its record (sessions,
   * passkeys, identities, links, jobs), after the record is gone.
   */
  purge: (user: User, options?: { except?: string }) => Promise<void>;
  /** The re-authentication check (`requireReauth()`), before both routes. */
  reauth?: Middleware[];
}

/** The controller for `routes.deleteAccount`. */
export function deleteAccountController(
  deps: DeleteAccountDeps,
): Controller<typeof routes.deleteAccount> {
  return {
    middleware: [
      requireAuth(),
      ...(deps.reauth ?? []),
      signedInFormData(deleteAccountPage),
    ],
    actions: {
      index: (context) =>
        deleteAccountPage({ user: context.get(CurrentUser)! }),
      async action(context) {
        const user = context.get(CurrentUser)!;
        const typed = field(context, "email").trim();
        if (normalizeEmail(typed) !== normalizeEmail(user.email)) {
          return deleteAccountPage({
            user,
            fieldErrors: {
              email: [
                typed
                  ? `That is not this account's email. Type ${user.email} to delete the account.`
                  : `Type ${user.email} to delete the account.`,
              ],
            },
            status: 422,
          });
        }
        if (user.role === "admin") {
          const admins = (await deps.users.list()).filter((u) =>
            u.role === "admin"
          );
          if (admins.length <= 1) {
            return deleteAccountPage({
              user,
              error:
                "You are the only admin: make another user an admin on the Users page first, then delete this account.",
              status: 409,
            });
          }
        }
        await deps.users.remove(user.id);
        const session = context.get(Session)!;
        // This browser's session is signed out below, keeping the notice.
        await deps.purge(user, { except: session.id });
        endSession(session);
        session.flash("notice", ACCOUNT_DELETED);
        return redirect(routes.auth.login.index.href(), 303);
      },
    },
  };
}
