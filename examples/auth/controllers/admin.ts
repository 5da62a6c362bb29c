/**
 * The admin section: the user list with role changes (admins), the
 * settings page (admins and moderators), and the background jobs that
 * used all their attempts, with a "Retry" button each (admins; the form
 * is a `POST`, so `csrf()` refuses it from another site).
 *
 * @module
 */
import type { Controller } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CurrentUser, Session } from "../context.ts";
import { requireRole } from "../middleware.ts";
import { type adminRoutes, routes } from "../routes.ts";
import { type Role, ROLES, type UserStore } from "../users.ts";
import { settingsPage, usersPage } from "../views/admin.ts";
import { deadJobsPage } from "../views/jobs.ts";
import type { JobQueue } from "@fetchkit/toolkit/jobs";
import { field } from "./fields.ts";
import { AUTH_FORM_LIMITS } from "./forms.ts";

function notFound(): Response {
  return new Response("Not Found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/**
 * The controller for the admin section (`adminRoutes`, mounted at
 * `/admin`). The mount lets admins and moderators in; the user list and
 * role changes need `admin`.
 */
export function adminController(
  users: UserStore,
  jobs?: JobQueue,
): Controller<typeof adminRoutes> {
  const adminsOnly = [requireRole("admin")];
  return {
    actions: {
      users: {
        middleware: adminsOnly,
        async handler(context) {
          const session = context.get(Session)!;
          return usersPage(await users.list(), context.get(CurrentUser)!, {
            error: session.get("error"),
            notice: session.get("notice"),
          });
        },
      },
      updateUser: {
        middleware: [...adminsOnly, formData(AUTH_FORM_LIMITS)],
        async handler(context) {
          const session = context.get(Session)!;
          const me = context.get(CurrentUser)!;
          const id = Number(context.params.id);
          const role = field(context, "role") as Role;
          const back = redirect(routes.admin.users.href(), 303);
          if (!ROLES.includes(role)) {
            // Echo a bounded part only: the flash is stored in the session.
            const shown = role.length > 20 ? `${role.slice(0, 20)}…` : role;
            session.flash("error", `Unknown role "${shown}".`);
            return back;
          }
          // An admin who demotes themselves could lock everyone out.
          if (id === me.id) {
            session.flash("error", "You cannot change your own role.");
            return back;
          }
          const user = Number.isSafeInteger(id)
            ? await users.setRole(id, role)
            : null;
          if (!user) return notFound();
          session.flash("notice", `${user.email} is now ${role}.`);
          return back;
        },
      },
      settings: (context) => settingsPage(context.get(CurrentUser)!),
      jobs: {
        middleware: adminsOnly,
        async handler(context) {
          if (jobs === undefined) return notFound();
          const session = context.get(Session)!;
          return deadJobsPage(
            await jobs.deadLetters({ limit: 100 }),
            await jobs.stats(),
            context.get(CurrentUser)!,
            { error: session.get("error"), notice: session.get("notice") },
          );
        },
      },
      retryJob: {
        middleware: adminsOnly,
        async handler(context) {
          if (jobs === undefined) return notFound();
          const session = context.get(Session)!;
          if (!(await jobs.retry(context.params.id))) {
            session.flash("error", "That job is not in the dead-letter list.");
          } else {
            session.flash("notice", "The job is waiting to run again.");
          }
          return redirect(routes.admin.jobs.href(), 303);
        },
      },
    },
  };
}
