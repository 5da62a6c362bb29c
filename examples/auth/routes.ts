/**
 * Every URL of the app, built with the toolkit's route helpers. Pages and
 * redirects use `href()`, so a path is written once, here.
 *
 * @module
 */
import { form, route } from "@fetchkit/toolkit/fetch-router/routes";

/**
 * The admin section, relative to its mount point: `app.ts` mounts these
 * at `/admin` with `router.mount()`, and `routes.admin` below holds the
 * same routes moved under `/admin` for links.
 */
export const adminRoutes = route({
  users: { method: "GET", pattern: "users" },
  updateUser: { method: "PUT", pattern: "users/:id" },
  settings: { method: "GET", pattern: "settings" },
  /** Background jobs that used all their attempts (admins). */
  jobs: { method: "GET", pattern: "jobs" },
  retryJob: { method: "POST", pattern: "jobs/:id/retry" },
});

/** The app's routes. */
export const routes = route({
  home: { method: "GET", pattern: "/" },
  auth: route("auth", {
    login: form("login"),
    register: form("register"),
    logout: { method: "POST", pattern: "logout" },
  }),
  oauth: route("auth/oauth", {
    start: { method: "GET", pattern: ":provider" },
    callback: { method: "GET", pattern: ":provider/callback" },
  }),
  dashboard: { method: "GET", pattern: "/dashboard" },
  profile: { method: "GET", pattern: "/profile" },
  admin: route("admin", adminRoutes),
  /** "Forgot password?": the request form, and the link's page. */
  password: route("password", {
    forgot: form("forgot"),
    reset: form("reset/:token"),
  }),
  /** Passkeys: the two ceremonies (JSON), and the profile's forms. */
  passkeys: route("passkeys", {
    loginOptions: { method: "POST", pattern: "login/options" },
    login: { method: "POST", pattern: "login" },
    registerOptions: { method: "POST", pattern: "register/options" },
    register: { method: "POST", pattern: "register" },
    rename: { method: "PUT", pattern: ":id" },
    remove: { method: "DELETE", pattern: ":id" },
  }),
  /** Email: a mailed link's page, "Send again", changing the address. */
  email: route("email", {
    verify: { method: "GET", pattern: "verify/:token" },
    resend: { method: "POST", pattern: "verify" },
    change: form("change"),
  }),
  /** Changing the password of a signed-in account. */
  changePassword: form("/profile/password"),
  /** Deleting one's own account (typing its email). */
  deleteAccount: form("/profile/delete"),
  /** The devices signed in: sign one out, or every other one. */
  sessions: route("profile/sessions", {
    others: { method: "POST", pattern: "others" },
    remove: { method: "DELETE", pattern: ":id" },
  }),
  /** Re-authentication ("sudo mode") before a sensitive change. */
  confirm: route({
    index: { method: "GET", pattern: "/auth/confirm" },
    action: { method: "POST", pattern: "/auth/confirm" },
    passkeyOptions: {
      method: "POST",
      pattern: "/auth/confirm/passkey/options",
    },
    passkey: { method: "POST", pattern: "/auth/confirm/passkey" },
    /** "Confirm with <provider>": on to the provider's sign-in. */
    provider: { method: "POST", pattern: "/auth/confirm/provider/:provider" },
  }),
  /** Two-factor: the sign-in's second step, and the profile's page. */
  twoFactor: route({
    login: { method: "GET", pattern: "/auth/two-factor" },
    verify: { method: "POST", pattern: "/auth/two-factor" },
    show: { method: "GET", pattern: "/profile/two-factor" },
    enable: { method: "POST", pattern: "/profile/two-factor" },
    disable: { method: "DELETE", pattern: "/profile/two-factor" },
    /** "Make new backup codes" (the security page's form). */
    backupCodes: {
      method: "POST",
      pattern: "/profile/two-factor/backup-codes",
    },
  }),
  /** The security page: two-factor state, backup codes, devices. */
  security: { method: "GET", pattern: "/profile/security" },
});

/**
 * The login page's URL, carrying `returnTo` (a local path, already
 * checked) in the query when there is one.
 */
export function loginHref(returnTo?: string): string {
  return routes.auth.login.index.href(
    undefined,
    returnTo ? { search: { returnTo } } : undefined,
  );
}
