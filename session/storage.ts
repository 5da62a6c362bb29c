/**
 * Public types shared by every session storage.
 *
 * @module
 */

import type { Session } from "./session.ts";

/**
 * Options of the session cookie, shared by every storage.
 *
 * Defaults: `name: "__session"`, `httpOnly: true`, `sameSite: "lax"`,
 * `path: "/"`, `secure: false` (set it to `true` in production behind
 * HTTPS). Without `maxAge` or `expires` the cookie lasts until the browser
 * closes and the server keeps the data for 24 hours after the last write.
 *
 * @example Production settings
 * ```ts
 * import type { SessionCookieOptions } from "@fetchkit/toolkit/session-middleware";
 *
 * const cookie: SessionCookieOptions = {
 *   name: "session",
 *   secrets: [Deno.env.get("SESSION_SECRET") ?? crypto.randomUUID() + crypto.randomUUID()],
 *   secure: true,
 *   sameSite: "lax",
 *   maxAge: 60 * 60 * 24 * 7,
 * };
 * ```
 */
export interface SessionCookieOptions {
  /** Cookie name, an RFC 6265 token. Default `"__session"`. */
  name?: string;
  /**
   * Signing secrets (long and random). The first signs; every one verifies,
   * and a cookie signed with a later one is signed again with the first on
   * its next save. To rotate, put the new secret first and keep the old
   * ones until their cookies have expired.
   */
  secrets: readonly string[];
  /**
   * Allows secrets shorter than 32 characters. Meant for tests only: by
   * default a shorter secret is a `TypeError` when the storage is created,
   * as a short secret can be guessed offline from one signed cookie.
   * Default `false`.
   */
  allowShortSecrets?: boolean;
  /** Send only over HTTPS. Default `false`; use `true` in production. */
  secure?: boolean;
  /** Hide the cookie from scripts. Default `true`; `false` warns. */
  httpOnly?: boolean;
  /** `"lax"` (default), `"strict"` or `"none"` (needs `secure`). */
  sameSite?: "lax" | "strict" | "none" | "Lax" | "Strict" | "None";
  /**
   * Lifetime in seconds, counted from the last save; the server stops
   * honoring the session at the same moment.
   */
  maxAge?: number;
  /** Cookie path. Default `"/"`. */
  path?: string;
  /** Cookie domain; leave it out to bind the cookie to the exact host. */
  domain?: string;
  /** A fixed expiry date; `maxAge` is preferred. */
  expires?: Date;
  /** CHIPS partitioned cookie (needs `secure`). */
  partitioned?: boolean;
}

/**
 * Loads and saves sessions for the `session()` middleware. The storages in
 * this package implement it; so can an application's own.
 *
 * @example Count the saves of a storage
 * ```ts
 * import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
 * import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
 *
 * const inner = createMemorySessionStorage({ cookie: { secrets: [Deno.env.get("SESSION_SECRET") ?? crypto.randomUUID() + crypto.randomUUID()] } });
 * let saves = 0;
 * const counted: SessionStorage = {
 *   read: (cookieHeader) => inner.read(cookieHeader),
 *   save: (session) => {
 *     saves++;
 *     return inner.save(session);
 *   },
 * };
 * ```
 */
export interface SessionStorage {
  /**
   * Loads the session a request's `Cookie` header names. A missing,
   * tampered, unknown or expired cookie gives a new, empty session.
   */
  read(cookieHeader: string | null): Promise<Session>;
  /**
   * Persists `session` and returns the `Set-Cookie` header value to send,
   * or `null` when the browser's cookie is already right.
   */
  save(session: Session): Promise<string | null>;
}

/** What `session.setUser()` records about the sign-in, besides the user. */
export interface SetUserOptions {
  /**
   * The client's address at sign-in, for the user's list of devices
   * (`context.remoteAddr?.hostname`, or the address your proxy forwards).
   * At most 100 characters are kept.
   */
  address?: string;
  /** The `User-Agent` request header at sign-in. At most 512 characters are kept. */
  userAgent?: string;
}

/** One live session of a user, as `listUserSessions()` gives it. */
export interface UserSession {
  /** The session id: compare with `session.id` to mark "this device". */
  id: string;
  /** When `setUser()` bound the session to the user (the sign-in). */
  createdAt: Date;
  /**
   * The last save of the session: every save, and a read at least
   * `lastSeenIntervalMs` (5 minutes by default) after the last one saves.
   */
  lastSeenAt: Date;
  /** When the session expires unless saved again. */
  expiresAt: Date;
  /** The address given to `setUser()`, if any. */
  address: string | undefined;
  /** The user agent given to `setUser()`, if any. */
  userAgent: string | undefined;
}

/** Options of {@linkcode UserSessionStorage.destroyUserSessions}. */
export interface DestroyUserSessionsOptions {
  /** A session id to keep: the current device's (`session.id`). */
  except?: string;
}

/**
 * A session storage that can list and end the sessions of one user: the
 * memory, Deno KV and Redis storages (one node or a cluster). Cookie
 * storage cannot (the sessions live only in browsers): see
 * `createCookieSessionStorage`.
 *
 * A session belongs to a user once a handler calls
 * `session.setUser(userId, { address, userAgent })`, at sign-in (after
 * `session.regenerateId(true)`). Each save of such a session also writes
 * an entry in the user's index: its creation and last-seen times and the
 * address and user agent given at sign-in. `destroy()` removes the entry,
 * expired sessions drop out of it, and a user keeps at most
 * `maxSessionsPerUser` sessions (100 by default): signing in once more
 * ends the session signed in longest ago (its data is deleted too, so
 * it cannot outlive the index).
 *
 * A session ended here is refused at once: its data is deleted, so the
 * next request with its cookie gets a new, empty session, on every
 * server sharing the store.
 *
 * @example A devices page: list, sign out one, sign out the others
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
 *
 * const storage = createMemorySessionStorage({
 *   cookie: { secrets: [crypto.randomUUID() + crypto.randomUUID()] },
 * });
 * // At sign-in, in two browsers:
 * const laptop = await storage.read(null);
 * laptop.regenerateId(true);
 * laptop.setUser("42", { address: "203.0.113.7", userAgent: "Firefox" });
 * await storage.save(laptop);
 * const phone = await storage.read(null);
 * phone.setUser("42", { address: "198.51.100.2", userAgent: "Safari" });
 * await storage.save(phone);
 *
 * const sessions = await storage.listUserSessions("42");
 * assert.deepEqual(sessions.map((s) => s.userAgent).sort(), ["Firefox", "Safari"]);
 * // "Sign out" on the phone's row, from the laptop:
 * assert.equal(await storage.destroyUserSession("42", phone.id), true);
 * // "Sign out all other devices":
 * await storage.destroyUserSessions("42", { except: laptop.id });
 * assert.deepEqual((await storage.listUserSessions("42")).map((s) => s.id), [laptop.id]);
 * ```
 */
export interface UserSessionStorage extends SessionStorage {
  /**
   * The user's live sessions, the most recently seen first.
   *
   * @param userId The id given to `session.setUser()`.
   * @returns One entry per live session.
   */
  listUserSessions(userId: string): Promise<UserSession[]>;
  /**
   * Ends one session of the user: deletes its data and its index entry.
   * An id that is not one of the user's sessions changes nothing, so a
   * user cannot end another user's session by its id.
   *
   * @param userId The id given to `session.setUser()`.
   * @param id The session id, from `listUserSessions()`.
   * @returns `true` when the session was the user's and is now ended.
   */
  destroyUserSession(userId: string, id: string): Promise<boolean>;
  /**
   * Ends every session of the user, but `options.except`: "sign out
   * everywhere" (after a password change) or "sign out all other
   * devices".
   *
   * @param userId The id given to `session.setUser()`.
   * @param options `except`: a session id to keep.
   * @returns How many sessions were ended.
   */
  destroyUserSessions(
    userId: string,
    options?: DestroyUserSessionsOptions,
  ): Promise<number>;
}
