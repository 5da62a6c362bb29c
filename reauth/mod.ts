/**
 * Re-authentication ("sudo mode"): before a sensitive change (a second
 * factor, a passkey, the email or password, deleting the account), ask
 * the signed-in user to prove again who they are, as GitHub, Google and
 * Django allauth do. A stolen session cookie, or a computer left signed
 * in, then cannot change how the account signs in.
 *
 * - {@linkcode markReauthenticated} records on the session when and how
 *   the user confirmed (`"password"`, `"passkey"`, `"provider"`, or your
 *   own word). Call it on the confirm page once the password or passkey
 *   checked out.
 * - {@linkcode requireReauth} is route middleware: with a mark younger
 *   than `maxAgeMs` (default 10 minutes) the request goes on; without
 *   one, a page request is answered `303 See Other` to `confirmPath` with
 *   `returnTo` (a local path: the request's own for `GET`, its path for a
 *   form post, whose page is usually at the same path), and a request
 *   that prefers JSON (`Accept`) gets `401` with
 *   `{ "error": ..., "confirm": "<confirmPath>?returnTo=..." }`.
 * - The mark lives in the session, so it ends with it; call
 *   {@linkcode clearReauthentication} on sign-in and sign-out, so a mark
 *   never passes from one user to the next on a shared browser. A mark
 *   dated in the future (a clock stepped back) counts as none.
 *
 * Where the session is: the context key given to `session()` (option
 * `session`), as `createPasskeys()` takes it.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { type Session, session } from "@fetchkit/toolkit/session-middleware";
 * import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
 * import {
 *   markReauthenticated,
 *   requireReauth,
 * } from "@fetchkit/toolkit/reauth-middleware";
 *
 * const Sess = createContextKey<Session>();
 * const router = createRouter({
 *   middleware: [
 *     session(
 *       Sess,
 *       createMemorySessionStorage({
 *         cookie: { secrets: [crypto.randomUUID() + crypto.randomUUID()] },
 *       }),
 *     ),
 *   ],
 * });
 * const sudo = requireReauth({ session: Sess, confirmPath: "/auth/confirm" });
 * router.get("/settings/2fa", sudo, () => new Response("ok"));
 * router.post("/auth/confirm", (context) => {
 *   // ...once the password checked out:
 *   markReauthenticated(context.get(Sess)!, "password");
 *   return new Response(null, { status: 204 });
 * });
 *
 * const first = await router.fetch(new Request("http://localhost/settings/2fa"));
 * console.log(first.status, first.headers.get("location"));
 * // → 303 /auth/confirm?returnTo=%2Fsettings%2F2fa
 * ```
 *
 * @module
 */
import type {
  AnyContextKey,
  Middleware,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import type { SessionKey } from "@fetchkit/toolkit/session-middleware";
import { prefersJson } from "@fetchkit/toolkit/http-error";

/** How the user confirmed: built-in words, or the app's own. */
export type ReauthMethod =
  | "password"
  | "passkey"
  | "provider"
  | "totp"
  | (string & Record<never, never>);

/** What {@linkcode markReauthenticated} stores in the session. */
export interface ReauthMark {
  /** When, in milliseconds since the epoch. */
  at: number;
  /** How. */
  method: ReauthMethod;
}

/** The session value the mark is stored under. */
export const REAUTH_SESSION_KEY = "reauth";

/** Default age of a mark that still counts: 10 minutes. */
export const REAUTH_MAX_AGE_MS: number = 10 * 60 * 1000;

/** The part of a session this module uses. */
export interface ReauthSession {
  /** Reads a value. */
  get(name: string): unknown;
  /** Stores a value. */
  set(name: string, value: unknown): void;
  /** Removes a value. */
  unset(name: string): void;
}

/** Options of {@linkcode markReauthenticated}. */
export interface MarkReauthenticatedOptions {
  /** The time of the mark. Default `Date.now()`. */
  now?: number;
}

/**
 * Records on `session` that its user just confirmed who they are, and
 * how.
 *
 * @example
 * ```ts
 * import { markReauthenticated, reauthMark } from "@fetchkit/toolkit/reauth-middleware";
 *
 * const values = new Map<string, unknown>();
 * const session = {
 *   get: (name: string) => values.get(name),
 *   set: (name: string, value: unknown) => void values.set(name, value),
 *   unset: (name: string) => void values.delete(name),
 * };
 * markReauthenticated(session, "passkey", { now: 1000 });
 * console.log(reauthMark(session)); // → { at: 1000, method: "passkey" }
 * ```
 */
export function markReauthenticated(
  session: ReauthSession,
  method: ReauthMethod,
  options: MarkReauthenticatedOptions = {},
): void {
  if (typeof method !== "string" || method === "" || method.length > 64) {
    throw new TypeError(
      'markReauthenticated(): method must be a word of 1 to 64 characters, such as "password"',
    );
  }
  const at = options.now ?? Date.now();
  const mark: ReauthMark = { at, method };
  session.set(REAUTH_SESSION_KEY, mark);
}

/** The mark on `session`, or `undefined` when there is none. */
export function reauthMark(session: ReauthSession): ReauthMark | undefined {
  const value = session.get(REAUTH_SESSION_KEY) as ReauthMark | undefined;
  if (
    value === null || typeof value !== "object" ||
    typeof value.at !== "number" || typeof value.method !== "string"
  ) {
    return undefined;
  }
  return value;
}

/** Removes the mark (on sign-in and sign-out). */
export function clearReauthentication(session: ReauthSession): void {
  if (session.get(REAUTH_SESSION_KEY) !== undefined) {
    session.unset(REAUTH_SESSION_KEY);
  }
}

/**
 * Whether `session` carries a mark younger than `maxAgeMs` (default 10
 * minutes) at `now`.
 *
 * @example
 * ```ts
 * import { isReauthenticated, markReauthenticated } from "@fetchkit/toolkit/reauth-middleware";
 *
 * const values = new Map<string, unknown>();
 * const session = {
 *   get: (name: string) => values.get(name),
 *   set: (name: string, value: unknown) => void values.set(name, value),
 *   unset: (name: string) => void values.delete(name),
 * };
 * markReauthenticated(session, "password", { now: 0 });
 * console.log(isReauthenticated(session, { now: 60_000 })); // → true
 * console.log(isReauthenticated(session, { now: 11 * 60_000 })); // → false
 * ```
 */
export function isReauthenticated(
  session: ReauthSession,
  options: { maxAgeMs?: number; now?: number } = {},
): boolean {
  const { maxAgeMs = REAUTH_MAX_AGE_MS, now = Date.now() } = options;
  const mark = reauthMark(session);
  if (mark === undefined) return false;
  const age = now - mark.at;
  return age >= 0 && age <= maxAgeMs;
}

/** Options of {@linkcode requireReauth}. */
export interface RequireReauthOptions {
  /** The context key `session()` stores the session under. */
  session: SessionKey;
  /** The confirm page: a local path such as `/auth/confirm`. */
  confirmPath: string;
  /** How old a mark may be. Default 10 minutes. */
  maxAgeMs?: number;
  /**
   * Where to come back to after confirming: a local path. Default: the
   * request's path and query for `GET`/`HEAD`, its path for other
   * methods (a form's page is usually at the path it posts to).
   */
  returnTo?: (context: RequestContext) => string;
  /** The clock, for tests. Default `Date.now`. */
  now?: () => number;
}

// deno-lint-ignore no-control-regex -- refusing control characters is the point
const UNSAFE = /[\\\s\x00-\x1f\x7f]/;

/** What `returnTo` may be: a path on this site, never `//host`. */
function localPath(value: string): string {
  return value.startsWith("/") && !value.startsWith("//") &&
      !UNSAFE.test(value)
    ? value
    : "/";
}

/**
 * Middleware that lets a request through only when its session was
 * re-authenticated within `maxAgeMs`; otherwise a `303` to `confirmPath`
 * with `returnTo` for pages, or `401` JSON for clients that prefer JSON.
 * Put it after `session()` and after the check that the user is signed in
 * (it does not look at who is signed in).
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { type Session, session } from "@fetchkit/toolkit/session-middleware";
 * import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
 * import { requireReauth } from "@fetchkit/toolkit/reauth-middleware";
 *
 * const Sess = createContextKey<Session>();
 * const router = createRouter({
 *   middleware: [
 *     session(
 *       Sess,
 *       createMemorySessionStorage({
 *         cookie: { secrets: [crypto.randomUUID() + crypto.randomUUID()] },
 *       }),
 *     ),
 *   ],
 * });
 * router.delete(
 *   "/api/account",
 *   requireReauth({ session: Sess, confirmPath: "/auth/confirm" }),
 *   () => new Response(null, { status: 204 }),
 * );
 * const response = await router.fetch(
 *   new Request("http://localhost/api/account", {
 *     method: "DELETE",
 *     headers: { Accept: "application/json" },
 *   }),
 * );
 * console.log(response.status, await response.json());
 * // → 401 { error: "Confirm your password or passkey to continue", confirm: "/auth/confirm?returnTo=%2Fapi%2Faccount" }
 * ```
 */
export function requireReauth(options: RequireReauthOptions): Middleware {
  const {
    session: key,
    confirmPath,
    maxAgeMs = REAUTH_MAX_AGE_MS,
    returnTo,
    now = Date.now,
  } = options;
  if (localPath(confirmPath ?? "") !== confirmPath) {
    throw new TypeError(
      `requireReauth(): confirmPath must be a local path such as "/auth/confirm", got ${
        JSON.stringify(confirmPath)
      }`,
    );
  }
  if (!Number.isFinite(maxAgeMs) || maxAgeMs <= 0) {
    throw new TypeError(
      `requireReauth(): maxAgeMs must be a positive number of milliseconds, got ${maxAgeMs}`,
    );
  }
  return (context, next) => {
    const session = context.get(key as AnyContextKey) as
      | ReauthSession
      | undefined;
    if (session === undefined) {
      throw new Error(
        "requireReauth(): no session under the given key; put session() before it",
      );
    }
    if (isReauthenticated(session, { maxAgeMs, now: now() })) return next();
    const back = localPath(
      returnTo
        ? returnTo(context)
        : context.method === "GET" || context.method === "HEAD"
        ? context.url.pathname + context.url.search
        : context.url.pathname,
    );
    const location = `${confirmPath}?returnTo=${encodeURIComponent(back)}`;
    if (prefersJson(context.headers.get("accept"))) {
      return Response.json(
        {
          error: "Confirm your password or passkey to continue",
          confirm: location,
        },
        { status: 401 },
      );
    }
    return new Response(null, { status: 303, headers: { Location: location } });
  };
}
