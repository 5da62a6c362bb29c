/**
 * The example authentication app: the seed's routes, built from the
 * toolkit's parts. `createApp()` returns a router, so tests call
 * `app.fetch(request)` in-process and `main.ts` hands it to `Deno.serve`.
 *
 * Router middleware, in order: the logger, the 405 page for browsers,
 * static files under `/assets`, CSRF protection, method override (for the
 * admin's `PUT` forms), the session, and `loadUser()`. Errors become a 500
 * page (`serverError`), with a way back, as 404 and 403 are. The admin pages are one section, mounted at
 * `/admin` with `router.mount()`, behind `requireRole("admin", "moderator")`.
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { csrf } from "@fetchkit/toolkit/csrf-middleware";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
import {
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { CurrentUser, Session } from "./context.ts";
import { describeAdmin, ensureAdmin } from "./admin.ts";
import { dashboard, home, profile } from "./controllers/account.ts";
import { adminController } from "./controllers/admin.ts";
import { authController } from "./controllers/auth.ts";
import {
  errorPages,
  loadUser,
  requireRole,
  serverError,
} from "./middleware.ts";
import { createPasswords } from "./passwords.ts";
import { createKvRateLimiter } from "./rate_limiter.ts";
import { adminRoutes, routes } from "./routes.ts";
import { createUserStore } from "./users.ts";
import { notFoundPage } from "./views/errors.ts";

/** The seed's login limit: 5 attempts per email... */
export const LOGIN_LIMIT = 5;
/** ...forgotten 15 minutes after the last one. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** Users and limiter counters live here (and KV sessions). */
  kv: Deno.Kv;
  /** Where sessions live. */
  sessions: SessionStorage;
  /** bcrypt cost. Default 12 (the seed's); tests may lower it. */
  bcryptCost?: number;
  /** Where log lines go; `null` for none. Default `console.log`. */
  log?: ((line: string) => void) | null;
  /** An admin to create at start when no user has this email. */
  admin?: { email: string; password: string };
  /** Told one line about the admin at start (created, there, or not). */
  announce?: (line: string) => void;
}

/**
 * Builds the app.
 *
 * @example
 * ```ts ignore
 * const kv = await Deno.openKv(":memory:");
 * const app = await createApp({ kv, sessions: createSessionStorage({ kind: "kv", kv, secrets, secure: false }) });
 * await app.fetch(new Request("http://localhost/"));
 * ```
 */
export async function createApp(options: AppOptions): Promise<Router> {
  const { kv } = options;
  const users = createUserStore(kv);
  const passwords = await createPasswords({ cost: options.bcryptCost });
  if (options.admin) {
    const outcome = await ensureAdmin(users, passwords, options.admin);
    options.announce?.(describeAdmin(options.admin.email, outcome));
  }
  const loginLimiter = createKvRateLimiter({
    kv,
    limit: LOGIN_LIMIT,
    windowMs: LOGIN_WINDOW_MS,
    prefix: "login_attempts",
  });

  const router = createRouter({
    middleware: [
      ...(options.log === null ? [] : [logger({ log: options.log })]),
      errorPages(),
      serveStatic({
        root: new URL("./public", import.meta.url),
        prefix: "/assets",
        maxAge: 3600,
      }),
      csrf(),
      methodOverride(),
      session(Session, options.sessions),
      loadUser(users),
    ],
    defaultHandler: (context) => notFoundPage(context.get(CurrentUser)),
    onError: serverError,
  });

  router.map(routes.home, home);
  router.map(routes.dashboard, dashboard);
  router.map(routes.profile, profile);
  router.map(routes.auth, authController({ users, passwords, loginLimiter }));
  // One section: every /admin route is for admins and moderators, and
  // guests are sent to the login page before any admin code runs.
  router.mount("/admin", (admin) => {
    admin.use(requireRole("admin", "moderator"));
    admin.map(adminRoutes, adminController(users));
  });
  return router;
}
