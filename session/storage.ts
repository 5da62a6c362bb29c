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
