/**
 * Two-factor authentication: the sign-in's second step and the profile's
 * page to turn it on and off.
 *
 * | request | when | then |
 * | ------- | ---- | ---- |
 * | `POST /auth/login` | right password, 2FA on | not signed in: the session holds the pending sign-in, `303` → `/auth/two-factor` |
 * | `GET /auth/two-factor` | a pending sign-in under 5 minutes old | the code form |
 * | `POST /auth/two-factor` | a current code, or an unused backup code | signed in (new session id), `303` → `returnTo` |
 * | `POST /auth/two-factor` | a wrong or reused code | the form again, `422`, saying what to do |
 * | `POST /auth/two-factor` | the 6th try in 15 minutes for this account | `429` with `Retry-After` |
 * | either | no pending sign-in, or older than 5 minutes | `303` → login, "log in again" |
 * | `GET /profile/two-factor` | confirmed in the last 10 minutes, 2FA off | QR code, link, secret in groups of four, code form |
 * | `POST /profile/two-factor` | the app's current code | 2FA on; the 10 backup codes, shown once |
 * | `GET /profile/two-factor` | 2FA on | its state, and "Turn off" |
 * | `DELETE /profile/two-factor` | a current code or a backup code | 2FA off, every other session ended (the user's generation, and the storage's session index), `303` → security |
 * | `POST /profile/two-factor/backup-codes` | confirmed in the last 10 minutes, 2FA on | 10 new backup codes replace all the old ones (which stop working), shown once |
 * | `POST /profile/two-factor/backup-codes` | not confirmed | `303` → confirm page, back to the security page |
 * | `POST /profile/two-factor/backup-codes` | 2FA off | `303` → `/profile/two-factor` |
 *
 * The rules (one use per code, backup codes, limits) are in
 * `two_factor.ts`. The wrong-code limits are the login's
 * (`login_limits.ts`): 5 attempts per account per 15 minutes, keyed
 * `two-factor:<user id>`, and failures count against the client
 * address's budget of failed logins.
 *
 * @module
 */
import {
  type Controller,
  createContextKey,
  type Middleware,
  type RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import type { RateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import {
  createBackupCodes,
  createTotpSecret,
  totpQrSvg,
  totpUri,
  verifyTotp,
} from "@fetchkit/toolkit/totp";
import { CurrentUser, Session } from "../context.ts";
import { createLoginLimits, LoginSucceeded } from "../login_limits.ts";
import { requireAuth } from "../middleware.ts";
import { confirmFirst } from "../reauth.ts";
import { safeReturnTo } from "../return_to.ts";
import { routes } from "../routes.ts";
import { signIn } from "../sign_in.ts";
import {
  BACKUP_CODE_COUNT,
  type CodeCheck,
  PENDING_SIGN_IN_MS,
  TOTP_ISSUER,
  totpDigits,
  type TwoFactorStore,
} from "../two_factor.ts";
import type { User, UserStore } from "../users.ts";
import {
  backupCodesPage,
  lockedPage,
  managePage,
  setupPage,
  twoFactorLoginPage,
} from "../views/two_factor.ts";
import { tooManyAttempts } from "./auth.ts";
import { field } from "./fields.ts";
import { AUTH_FORM_LIMITS } from "./forms.ts";

/** What the two-factor controller works with. */
export interface TwoFactorDeps {
  users: UserStore;
  store: TwoFactorStore;
  limits: RateLimitStore;
  /** Failed logins per client address per hour. Default 100. */
  addressLimit?: number;
  /**
   * Ends the user's sessions but `except` through the session storage's
   * index (memory, KV, Redis), deleting them at once; the generation bump
   * ends them on every storage anyway (signed cookies included).
   */
  endSessions?: (userId: number, except?: string) => Promise<void>;
}

export const PENDING_EXPIRED =
  "Your sign-in waited more than 5 minutes for its code. Log in again.";
export const WRONG_CODE =
  "That code is not right. Type the 6-digit code your app shows now (check that your phone's clock is set automatically), or a backup code.";
export const REUSED_CODE =
  "That code was already used. Wait for the next code in your app (a new one every 30 seconds).";
export const MALFORMED_CODE =
  "A code is 6 digits from your app, or a backup code such as abcd-2345.";

/** Why a code was refused, in words. */
function refusal(check: CodeCheck & { ok: false }): string {
  return check.reason === "reused"
    ? REUSED_CODE
    : check.reason === "malformed"
    ? MALFORMED_CODE
    : WRONG_CODE;
}

/** The user of the pending sign-in (set once it is checked). */
const PendingUser = createContextKey<User>();

/** The account name in authenticator apps (no `:`, which apps split on). */
function accountName(user: User): string {
  return user.email.replaceAll(":", "");
}

/** The controller for `routes.twoFactor`. */
export function twoFactorController(
  deps: TwoFactorDeps,
): Controller<typeof routes.twoFactor> {
  const { users, store } = deps;

  const limits = createLoginLimits({
    store: deps.limits,
    addressLimit: deps.addressLimit,
    emailOf: (context) => {
      const user = context.get(PendingUser) ?? context.get(CurrentUser);
      return user ? `two-factor:${user.id}` : undefined;
    },
    onLimit: (context, { retryAfterMs }) => {
      const error = tooManyAttempts(retryAfterMs).replace("login", "code");
      const user = context.get(CurrentUser);
      return user
        ? lockedPage(user, error)
        : twoFactorLoginPage({ error, status: 429 });
    },
  });

  /** The pending sign-in, or a redirect to the login page. */
  const pending: Middleware = async (context, next) => {
    const session = context.get(Session)!;
    if (context.get(CurrentUser)) return redirect(routes.dashboard.href(), 303);
    const waiting = session.get("twoFactorPending");
    const fresh = waiting !== undefined &&
      Date.now() - waiting.at <= PENDING_SIGN_IN_MS;
    const user = fresh ? await users.findById(waiting.userId) : null;
    if (!user) {
      if (waiting !== undefined) {
        session.unset("twoFactorPending");
        session.flash("error", PENDING_EXPIRED);
      }
      return redirect(routes.auth.login.index.href(), 303);
    }
    context.set(PendingUser, user);
    return next();
  };

  const members = [requireAuth(), confirmFirst()];

  async function showSetup(
    context: RequestContext,
    options: { error?: string; status?: number } = {},
  ): Promise<Response> {
    const user = context.get(CurrentUser)!;
    const session = context.get(Session)!;
    let secret = session.get("totpSetup");
    if (secret === undefined) {
      secret = createTotpSecret();
      session.set("totpSetup", secret);
    }
    const uri = totpUri({
      secret,
      issuer: TOTP_ISSUER,
      account: accountName(user),
    });
    return await Promise.resolve(
      setupPage(user, { secret, uri, svg: totpQrSvg(uri), ...options }),
    );
  }

  async function showManage(
    context: RequestContext,
    options: { error?: string; status?: number } = {},
  ): Promise<Response> {
    const user = context.get(CurrentUser)!;
    const record = await store.get(user.id);
    if (!record) return showSetup(context, options);
    return managePage(user, {
      enabledAt: record.enabledAt,
      backupCodesLeft: record.backupCodes.length,
      notice: context.get(Session)!.get("notice"),
      ...options,
    });
  }

  return {
    middleware: [formData(AUTH_FORM_LIMITS)],
    actions: {
      login: {
        middleware: [pending],
        handler(context) {
          const session = context.get(Session)!;
          return twoFactorLoginPage({
            error: session.get("error"),
            notice: session.get("notice"),
          });
        },
      },
      verify: {
        middleware: [pending, limits.perAddress, limits.perEmail],
        async handler(context) {
          const session = context.get(Session)!;
          const user = context.get(PendingUser)!;
          const check = await store.check(user.id, field(context, "code"));
          if (!check.ok) {
            return twoFactorLoginPage({ error: refusal(check), status: 422 });
          }
          context.set(LoginSucceeded, true);
          await limits.perEmail.reset(`two-factor:${user.id}`);
          const { returnTo } = session.get("twoFactorPending")!;
          session.unset("twoFactorPending");
          signIn(session, user);
          if (check.kind === "backup") {
            session.flash(
              "notice",
              `You signed in with a backup code; ${check.backupCodesLeft} left. Each works once.`,
            );
          }
          return redirect(safeReturnTo(returnTo), 303);
        },
      },
      show: {
        middleware: members,
        handler: (context) => showManage(context),
      },
      enable: {
        middleware: members,
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const session = context.get(Session)!;
          if (await store.get(user.id)) {
            return redirect(routes.twoFactor.show.href(), 303);
          }
          const secret = session.get("totpSetup");
          if (secret === undefined) {
            // The set-up page makes the secret; without it, start there.
            return showSetup(context, {
              error: "Scan this code with your app first, then type its code.",
              status: 422,
            });
          }
          const digits = totpDigits(field(context, "code"));
          const match = digits === null
            ? null
            : await verifyTotp(secret, digits);
          if (match === null) {
            return showSetup(context, {
              error: digits === null
                ? "The code is the 6 digits your app shows for this account."
                : "That code is not right. Type the code your app shows now; if it keeps failing, check that your phone sets its clock automatically.",
              status: 422,
            });
          }
          const codes = createBackupCodes(BACKUP_CODE_COUNT);
          await store.enable(user.id, {
            secret,
            lastStep: match.step,
            backupCodes: codes,
          });
          session.unset("totpSetup");
          return backupCodesPage(user, codes);
        },
      },
      backupCodes: {
        // A form post: after confirming, back to the page with the button.
        middleware: [requireAuth(), confirmFirst(routes.security.href())],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const codes = createBackupCodes(BACKUP_CODE_COUNT);
          if (!(await store.replaceBackupCodes(user.id, codes))) {
            return redirect(routes.twoFactor.show.href(), 303);
          }
          return backupCodesPage(user, codes, { replaced: true });
        },
      },
      disable: {
        middleware: [...members, limits.perAddress, limits.perEmail],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const session = context.get(Session)!;
          if (!(await store.get(user.id))) {
            return redirect(routes.twoFactor.show.href(), 303);
          }
          const check = await store.check(user.id, field(context, "code"));
          if (!check.ok) {
            return showManage(context, { error: refusal(check), status: 422 });
          }
          context.set(LoginSucceeded, true);
          await limits.perEmail.reset(`two-factor:${user.id}`);
          await store.disable(user.id);
          // Every other session ends: they carry the old generation, and
          // the storage's index deletes them now where it keeps one.
          const updated = await users.bumpGeneration(user.id);
          if (updated) session.set("generation", updated.generation ?? 0);
          await deps.endSessions?.(user.id, session.id);
          session.flash(
            "notice",
            "Two-factor authentication is off. Every other device was signed out.",
          );
          return redirect(routes.security.href(), 303);
        },
      },
    },
  };
}
