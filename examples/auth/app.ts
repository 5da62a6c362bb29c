/**
 * The example authentication app: its routes, built from the
 * toolkit's parts. `createApp()` returns a router, so tests call
 * `app.fetch(request)` in-process and `main.ts` hands it to `Deno.serve`.
 *
 * Router middleware, in order: the request id (`X-Request-Id`), the
 * logger (one line per request, with the client address and the request
 * id), the security headers with a Content-Security-Policy, compression
 * (`compress()`) and entity tags with `304 Not Modified` (`etag()`), the
 * 405 page for browsers, static files under `/assets`, CSRF protection, method
 * override (for the admin's `PUT` forms), the session, and `loadUser()`.
 * Errors become a 500 page (`serverError`), with a way back, as 404 and
 * 403 are. The admin pages are one section, mounted at `/admin` with
 * `router.mount()`, behind `requireRole("admin", "moderator")`.
 *
 * The policy allows the app's own stylesheet and nothing else: no inline
 * style or script runs unless it carries the request's nonce
 * (`context.get(CspNonce)`, from `@fetchkit/toolkit/secure-headers-middleware`);
 * the pages have none today. Forms post only to the app itself, and no
 * other site may frame it.
 *
 * @module
 */
import {
  createRouter,
  type Router,
  type TrustProxyOptions,
} from "@fetchkit/toolkit/fetch-router";
import type { MetricsRegistry } from "@fetchkit/toolkit/metrics";
import { createOperations } from "./operations.ts";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { csrf } from "@fetchkit/toolkit/csrf-middleware";
import { etag } from "@fetchkit/toolkit/etag-middleware";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
import { AUTH_FORM_LIMITS } from "./controllers/forms.ts";
import {
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import {
  createKvRateLimitStore,
  type RateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { requestId } from "@fetchkit/toolkit/request-id-middleware";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";
import {
  type ContentSecurityPolicy,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import { CurrentUser, Session } from "./context.ts";
import { describeAdmin, describeAdmins, ensureAdmin } from "./admin.ts";
import { dashboard, home, profile } from "./controllers/account.ts";
import { adminController } from "./controllers/admin.ts";
import { authController } from "./controllers/auth.ts";
import { oauthController } from "./controllers/oauth.ts";
import { createIdentityStore, type OAuthProvider } from "./oauth.ts";
import { createProviderClients } from "./oauth_clients.ts";
import { createProviderConfirm } from "./controllers/confirm_provider.ts";
import {
  errorPages,
  loadUser,
  requireRole,
  serverError,
} from "./middleware.ts";
import { createPasswords } from "./passwords.ts";
import { adminRoutes, routes } from "./routes.ts";
import { createUserStore } from "./users.ts";
import { createPasskeys } from "@fetchkit/toolkit/passkeys";
import { passkeysController } from "./controllers/passkeys.ts";
import { resetController } from "./controllers/reset.ts";
import { confirmController } from "./controllers/confirm.ts";
import { security } from "./controllers/security.ts";
import { twoFactorController } from "./controllers/two_factor.ts";
import { createTwoFactorStore } from "./two_factor.ts";
import { createLoginLimits } from "./login_limits.ts";
import { createConsoleMailer, type Mailer } from "./mailer.ts";
import { createKvJobStore } from "@fetchkit/toolkit/jobs";
import {
  createMailJobs,
  type MailJobs,
  MailJobsKey,
  sendMail,
} from "./mail_jobs.ts";
import { createPasskeyStore, createUsedChallengeStore } from "./passkeys.ts";
import { createResetTokens } from "./password_reset.ts";
import { notFoundPage } from "./views/errors.ts";
import { createEmailVerification } from "./controllers/email.ts";
import { createEmailLinks } from "./email_verification.ts";
import { emailReminder, emailSection } from "./views/email.ts";
import { deleteSection } from "./views/delete_account.ts";
import { deleteAccountController } from "./controllers/delete_account.ts";
import { createAccountPurge, createUserMailJobs } from "./account_deletion.ts";
import { confirmFirst } from "./reauth.ts";
import { changePasswordController } from "./controllers/password.ts";
import { passwordSection } from "./views/password.ts";
import { bindDevice, deviceSessionsOf, listDevices } from "./devices.ts";
import { devicesController } from "./controllers/devices.ts";
import { devicesSection } from "./views/devices.ts";

export {
  ADDRESS_LIMIT,
  ADDRESS_WINDOW_MS,
  LOGIN_LIMIT,
  LOGIN_WINDOW_MS,
} from "./login_limits.ts";

/** The log line: time, client address, request id, request, answer. */
export const LOG_FORMAT =
  "[%date] %ip %requestId %method %path %status %contentLength %duration ms";

/** The pages' Content-Security-Policy (see the module docs). */
export const CONTENT_SECURITY_POLICY: ContentSecurityPolicy = {
  defaultSrc: ["'none'"],
  styleSrc: ["'self'", "'nonce'"],
  scriptSrc: ["'nonce'"],
  // The passkey script posts its JSON to the app itself.
  connectSrc: ["'self'"],
  imgSrc: ["'self'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** Users live here (and KV sessions, and the login limits by default). */
  kv: Deno.Kv;
  /**
   * Where the login limiters count. Default: `kv`. Give a Redis store
   * when sessions are in Redis, so every server shares the counts.
   */
  rateLimitStore?: RateLimitStore;
  /** Failed logins per client address per hour. Default 100. */
  loginAddressLimit?: number;
  /** Where sessions live. */
  sessions: SessionStorage;
  /** bcrypt cost. Default 12; tests may lower it. */
  bcryptCost?: number;
  /** Where log lines go; `null` for none. Default `console.log`. */
  log?: ((line: string) => void) | null;
  /** An admin to create at start when no user has this email. */
  admin?: { email: string; password: string };
  /**
   * Told one line about the admin at start: created, already there, or,
   * without `admin`, the admins in the database or how to make one.
   */
  announce?: (line: string) => void;
  /**
   * Development aids: `tracing()` first (a span per request, with store
   * calls as child spans, when an OpenTelemetry SDK or `OTEL_DENO=true`
   * is on) and `serverTiming()` (the `Server-Timing` header). Default
   * `false`; `main.ts` turns it on unless `DENO_ENV=production`.
   */
  development?: boolean;
  /**
   * The app's public origin (`https://example.com`): the passkeys' site
   * (its host is the relying party id) and the base of reset links,
   * never taken from a request's `Host`. Default `http://localhost:8000`.
   */
  appUrl?: string;
  /** Sends the app's mail. Default: printed to the console. */
  mailer?: Mailer;
  /**
   * The app's mail queue (`mail_jobs.ts`): every mail goes through it.
   * Default: on `kv`, sending with `mailer`, with a worker started on
   * demand (see `MailJobsOptions.onDemand`). Given one, the app starts
   * no worker: `main.ts` runs one all along (`mailJobs.work()`).
   */
  mailJobs?: MailJobs;
  /** How long a reset link works. Default 30 minutes (tests shorten it). */
  resetTtlMs?: number;
  /** How long an email link works. Default 24 hours (tests shorten it). */
  emailLinkTtlMs?: number;
  /** "Sign in with <provider>" providers (see `oauth.ts`). Default none. */
  oauthProviders?: readonly OAuthProvider[];
  /** The app's origin, for the providers' callback URLs. */
  publicUrl?: string;
  /**
   * Readiness checks of `/readyz` by name (see `operations.ts`). Default:
   * a read of the KV database.
   */
  healthChecks?: Record<string, () => Promise<unknown>>;
  /** Where `/metrics` numbers go. Default: a registry of the app's own. */
  metricsRegistry?: MetricsRegistry;
  /** The proxies in front, for `context.remoteAddr` (see `createRouter`). */
  trustProxy?: TrustProxyOptions;
  /**
   * The folder served at `/assets`. Default: `public/` beside this file.
   * A bundle (the deploy example on Node) gives it, since the bundle's
   * `import.meta.url` is its own, not this file's.
   */
  publicDir?: string | URL;
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
  } else if (options.announce) {
    // Without ADMIN_EMAIL, say who the admins already are.
    options.announce(describeAdmins(await users.list()));
  }
  const limits = options.rateLimitStore ??
    createKvRateLimitStore({ client: kv });
  const appUrl = options.appUrl ?? "http://localhost:8000";
  const passkeyStore = createPasskeyStore(kv);
  const passkeys = createPasskeys({
    rpId: new URL(appUrl).hostname,
    rpName: "fetchkit auth example",
    origins: [new URL(appUrl).origin],
    session: Session,
    // Used challenges on the app's KV: single use across instances.
    usedChallenges: createUsedChallengeStore(kv),
  });
  const twoFactor = createTwoFactorStore(kv);
  const mailJobs = options.mailJobs ?? createMailJobs({
    store: createKvJobStore(kv),
    mailer: options.mailer ?? createConsoleMailer(),
    onDemand: true,
  });
  // The login lockouts, here only to clear an email's after a reset.
  const lockouts = createLoginLimits({
    store: limits,
    addressLimit: options.loginAddressLimit,
    emailOf: () => undefined,
    onLimit: () => new Response(null, { status: 429 }),
  });

  // The devices list and sign-outs (null on signed cookies).
  const deviceSessions = deviceSessionsOf(options.sessions);
  const endSessions = async (userId: number, except?: string) => {
    await deviceSessions?.destroyUserSessions(String(userId), { except });
  };
  const identities = createIdentityStore(kv);
  // One client per provider, for signing in and for "Confirm with <provider>".
  const oauthClients = createProviderClients(
    options.oauthProviders ?? [],
    options.publicUrl ?? "http://127.0.0.1:8000",
  );
  const providerConfirm = createProviderConfirm({
    clients: oauthClients,
    identities,
    passkeyStore,
    limits,
  });
  const resetTokens = createResetTokens(kv, { ttlMs: options.resetTtlMs });
  const userMailJobs = createUserMailJobs(kv);
  const emailLinks = createEmailLinks(kv, { ttlMs: options.emailLinkTtlMs });
  const email = createEmailVerification({
    users,
    reauth: [confirmFirst()],
    links: emailLinks,
    // Through the mail queue (mail_jobs.ts), as every mail of the app.
    sendMail: async ({ userId, ...message }) => {
      const { id } = await sendMail(mailJobs, message);
      // Deleting the account removes the mail still waiting.
      await userMailJobs.record(userId, id);
    },
    limits,
    appUrl,
  });

  const operations = createOperations({
    checks: options.healthChecks ?? { kv: () => kv.get(["health"]) },
    registry: options.metricsRegistry,
    jobs: {
      stats: () => mailJobs.queue.stats(),
      onSettled: (listener) => mailJobs.onSettled(listener),
    },
  });
  const router = createRouter({
    trustProxy: options.trustProxy,
    middleware: [
      operations.metrics,
      operations.endpoints,
      ...(options.development
        ? [tracing({ storeSpans: true }), serverTiming({ enabled: true })]
        : []),
      // Clients reach this app directly (no proxy sets the header), so
      // the id is always the server's own: a client cannot reuse
      // another request's id in the log.
      requestId({ trustIncoming: false }),
      ...(options.log === null ? [] : [logger({
        format: LOG_FORMAT,
        log: options.log,
        // Reset and verification links are secrets while they are live
        // (stored hashed): never in the log.
        redactPathParams: ["/password/reset/:token", "/email/verify/:token"],
      })]),
      secureHeaders({ contentSecurityPolicy: CONTENT_SECURITY_POLICY }),
      compress(),
      etag(),
      errorPages(),
      serveStatic({
        root: options.publicDir ?? new URL("./public", import.meta.url),
        prefix: "/assets",
        maxAge: 3600,
      }),
      csrf(),
      // The forms' own limit: a body declared larger is refused at once,
      // before methodOverride() would wait for it.
      methodOverride({ maxBodyBytes: AUTH_FORM_LIMITS.maxTotalSize }),
      session(Session, options.sessions),
      // sendMail(context, ...) finds the app's mail queue here.
      (context, next) => {
        context.set(MailJobsKey, mailJobs);
        return next();
      },
      loadUser(users),
      bindDevice(),
      operations.signIns,
    ],
    defaultHandler: (context) => notFoundPage(context.get(CurrentUser)),
    onError: serverError,
  });

  router.map(routes.home, home);
  router.map(routes.dashboard, dashboard(emailReminder));
  router.map(
    routes.profile,
    profile(
      passkeyStore,
      (context) => [
        emailSection(context.get(CurrentUser)!),
        passwordSection(context.get(CurrentUser)!),
      ],
      deleteSection(),
    ),
  );
  router.map(routes.email, email.controller);
  router.map(
    routes.sessions,
    devicesController({
      sessions: deviceSessions,
      backTo: routes.security.href(),
    }),
  );
  router.map(
    routes.changePassword,
    changePasswordController({
      users,
      passwords,
      endSessions,
      reauth: [confirmFirst()],
    }),
  );
  router.map(
    routes.deleteAccount,
    deleteAccountController({
      users,
      reauth: [confirmFirst()],
      purge: createAccountPurge({
        passkeys: passkeyStore,
        identities,
        resetTokens,
        emailLinks,
        endSessions,
        twoFactor,
        removeJobs: async (user) => {
          await userMailJobs.removeAll(
            user.id,
            (id) => mailJobs.queue.remove(id),
          );
        },
      }),
    }),
  );
  router.map(
    routes.auth,
    authController({
      users,
      passwords,
      limits,
      addressLimit: options.loginAddressLimit,
      providers: options.oauthProviders?.map(({ id, name }) => ({ id, name })),
      async onRegistered(user) {
        // The account is made: a store failure here must not undo that
        // (the dashboard offers "Send again").
        await email.sendVerification(user).catch((error) =>
          console.error("Verification link failed:", error)
        );
      },
      twoFactor,
    }),
  );
  router.map(
    routes.confirm,
    confirmController({
      passwords,
      passkeyStore,
      passkeys,
      limits,
      addressLimit: options.loginAddressLimit,
      providerConfirm,
    }),
  );
  router.map(
    routes.twoFactor,
    twoFactorController({
      users,
      store: twoFactor,
      limits,
      addressLimit: options.loginAddressLimit,
      endSessions,
    }),
  );
  router.map(
    routes.security,
    security({
      twoFactor,
      passkeys: passkeyStore,
      // The devices signed in (a note on signed cookies, which cannot list).
      devices: async (context, user) =>
        devicesSection(
          deviceSessions &&
            await listDevices(
              deviceSessions,
              user.id,
              context.get(Session)!.id,
            ),
        ),
    }),
  );
  router.map(
    routes.oauth,
    oauthController({
      users,
      passwords,
      identities,
      providers: options.oauthProviders ?? [],
      publicUrl: options.publicUrl ?? "http://127.0.0.1:8000",
      limits,
      twoFactor,
      clients: oauthClients,
      confirm: providerConfirm,
    }),
  );
  router.map(
    routes.passkeys,
    passkeysController({
      users,
      store: passkeyStore,
      passkeys,
      limits,
      addressLimit: options.loginAddressLimit,
    }),
  );
  router.map(
    routes.password,
    resetController({
      users,
      passwords,
      tokens: resetTokens,
      mail: mailJobs,
      limits,
      appUrl,
      ttlMs: options.resetTtlMs,
      clearLockout: (email) => lockouts.perEmail.reset(email),
      endSessions,
    }),
  );
  // One section: every /admin route is for admins and moderators, and
  // guests are sent to the login page before any admin code runs.
  router.mount("/admin", (admin) => {
    admin.use(requireRole("admin", "moderator"));
    admin.map(adminRoutes, adminController(users, mailJobs.queue));
  });
  return router;
}
