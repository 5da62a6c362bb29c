/**
 * Changing the password of a signed-in account, as this table says.
 *
 * | request                  | when                                 | then                                                    |
 * | ------------------------ | ------------------------------------ | ------------------------------------------------------- |
 * | `GET /profile/password`  | member, re-authenticated             | the new-password form                                   |
 * | `POST /profile/password` | a password the rules accept          | saved, every other session ended, → security page       |
 * | `POST /profile/password` | too short, too long, a NUL           | `422`, the problem beside the field                     |
 * | either                   | guest / not confirmed lately         | → login / → `/auth/confirm`, and back after             |
 *
 * The current password is not asked again on the form: the
 * re-authentication before it (`requireReauth()`, at most 10 minutes
 * old) asked for it, or for a passkey. Saving bumps the user's session
 * generation (`users.setPassword()`), which refuses every session of the
 * user made before, on any storage; this browser is signed in again at
 * once (a new session id and the new generation), and the other
 * sessions' stored data is deleted where the storage lists them, so the
 * devices list shows this one alone.
 *
 * @module
 */
import type { Controller, Middleware } from "@fetchkit/toolkit/fetch-router";
import { parseForm } from "@fetchkit/toolkit/form-validation";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CurrentUser, Session } from "../context.ts";
import { requireAuth } from "../middleware.ts";
import type { Passwords } from "../passwords.ts";
import { routes } from "../routes.ts";
import { signIn } from "../sign_in.ts";
import type { UserStore } from "../users.ts";
import { changePasswordPage } from "../views/password.ts";
import { problemsOf, RegistrationForm, signedInFormData } from "./forms.ts";

/** The notice after a change. */
export const PASSWORD_SAVED =
  "Your new password is saved, and every other device was signed out.";

const NewPasswordForm = RegistrationForm.pick({ password: true });

/** What the controller works with. */
export interface ChangePasswordDeps {
  users: UserStore;
  passwords: Passwords;
  /** Deletes the user's other sessions (all but `except`). */
  endSessions?: (userId: number, except?: string) => Promise<void>;
  /** The re-authentication check (`requireReauth()`), before both routes. */
  reauth?: Middleware[];
}

/** The controller for `routes.changePassword`. */
export function changePasswordController(
  deps: ChangePasswordDeps,
): Controller<typeof routes.changePassword> {
  return {
    middleware: [
      requireAuth(),
      ...(deps.reauth ?? []),
      signedInFormData(changePasswordPage),
    ],
    actions: {
      index: (context) =>
        changePasswordPage({ user: context.get(CurrentUser)! }),
      async action(context) {
        const user = context.get(CurrentUser)!;
        const result = await parseForm(context.get(FormData), NewPasswordForm);
        if (!result.success) {
          return changePasswordPage({
            user,
            fieldErrors: problemsOf(result).fields,
            status: 422,
          });
        }
        const hash = await deps.passwords.hash(result.value.password);
        const updated = await deps.users.setPassword(user.id, hash);
        if (!updated) return redirect(routes.auth.login.index.href(), 303);
        const session = context.get(Session)!;
        // The others' stored data goes; this one's id is renewed below.
        await deps.endSessions?.(user.id, session.id);
        // This browser stays in: a new id, and the new generation.
        signIn(session, updated);
        session.flash("notice", PASSWORD_SAVED);
        return redirect(routes.security.href(), 303);
      },
    },
  };
}
