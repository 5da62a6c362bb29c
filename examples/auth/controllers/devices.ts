/**
 * Signing devices out, as this table says (the list itself is a section
 * of the security page, `devicesSection()`).
 *
 * | request                          | when                                | then                                          |
 * | -------------------------------- | ----------------------------------- | --------------------------------------------- |
 * | `DELETE /profile/sessions/:id`   | one of the user's other devices     | that session ended at once, → back, notice    |
 * | `DELETE /profile/sessions/:id`   | unknown, already gone, or this one  | → back, error saying what to do               |
 * | `POST /profile/sessions/others`  | always                              | every other session ended, → back, notice     |
 * | either                           | guest                               | → login                                       |
 * | either                           | signed cookies                      | → back, error: reset the password instead     |
 *
 * `:id` is a handle, not a session id (see `devices.ts`). The forms are
 * plain (`_method=DELETE` for `methodOverride()`), so they work without
 * a script, and `csrf()` refuses them from other sites. An ended session
 * is refused on its very next request, on every server sharing the
 * store: its data is deleted, so its cookie finds nothing.
 *
 * @module
 */
import type { Controller } from "@fetchkit/toolkit/fetch-router";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CurrentUser, Session } from "../context.ts";
import { type DeviceSessions, endDevice } from "../devices.ts";
import { requireAuth } from "../middleware.ts";
import type { routes } from "../routes.ts";

/** What the controller works with. */
export interface DevicesDeps {
  /** The storage's listing methods; `null` on signed cookies. */
  sessions: DeviceSessions | null;
  /** The page the forms are on (the security page). */
  backTo: string;
}

/** The cookie storage's answer. */
export const CANNOT_LIST =
  "This server keeps sessions in signed cookies, which cannot be signed out one by one. Change your password (Profile, Password) to sign out every other device.";

/** The controller for `routes.sessions`. */
export function devicesController(
  deps: DevicesDeps,
): Controller<typeof routes.sessions> {
  const back = () => redirect(`${deps.backTo}#devices`, 303);
  return {
    middleware: [requireAuth()],
    actions: {
      async remove(context) {
        const session = context.get(Session)!;
        const user = context.get(CurrentUser)!;
        if (!deps.sessions) {
          session.flash("error", CANNOT_LIST);
          return back();
        }
        const ended = await endDevice(
          deps.sessions,
          user.id,
          context.params.id,
          session.id,
        );
        if (ended) {
          session.flash("notice", "That device is signed out.");
        } else {
          session.flash(
            "error",
            "That device is no longer signed in (or it is this one: use Log out to sign out here). The list below is up to date.",
          );
        }
        return back();
      },
      async others(context) {
        const session = context.get(Session)!;
        const user = context.get(CurrentUser)!;
        if (!deps.sessions) {
          session.flash("error", CANNOT_LIST);
          return back();
        }
        const ended = await deps.sessions.destroyUserSessions(
          String(user.id),
          { except: session.id },
        );
        session.flash(
          "notice",
          ended === 0
            ? "No other device was signed in."
            : `Signed out ${ended} other device${ended === 1 ? "" : "s"}.`,
        );
        return back();
      },
    },
  };
}
