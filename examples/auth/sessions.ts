/**
 * The session storage the app runs on, chosen by `SESSION_STORAGE`:
 * Deno KV (default: one server, or many sharing a KV Connect database),
 * signed cookies (`SESSION_STORAGE=cookie`), or Redis (several servers behind a load
 * balancer).
 *
 * Two lifetimes: a signed-in session lives {@linkcode SESSION_MAX_AGE}
 * (seven days); a guest's session, which holds nothing but
 * flash messages (a failed login, "You have been signed out"), lives
 * {@linkcode GUEST_MAX_AGE} (ten minutes), cookie and stored data alike. So a
 * client that fails logins or registrations in a loop leaves only small
 * records that are gone within minutes. The session API has one lifetime
 * per storage, so {@linkcode createSessionStorage} builds two storages over
 * one backend and cookie name, and saves each session with the one that
 * fits it.
 *
 * In production (`secure: true`) the cookie is named `__Host-session`:
 * browsers accept such a cookie only when it is `Secure`, has `Path=/` and
 * no `Domain`, so a sibling subdomain or a plain-HTTP page cannot plant or
 * overwrite it (cookie tossing).
 *
 * @module
 */
import type {
  SessionCookieOptions,
  SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import {
  createRedisSessionStorage,
  type RedisSessionClient,
} from "@fetchkit/toolkit/session-storage-redis";
import { deviceSessionsOf } from "./devices.ts";

/** Where sessions live. */
export type SessionStorageKind = "kv" | "cookie" | "redis";

/** A signed-in session's lifetime: seven days, in seconds. */
export const SESSION_MAX_AGE = 604800;

/** Lifetime of a guest's session (flash messages only): ten minutes. */
export const GUEST_MAX_AGE = 600;

/** The cookie's name: `__Host-session` when `secure`, else `session`. */
export function sessionCookieName(secure: boolean): string {
  return secure ? "__Host-session" : "session";
}

/** Options of {@linkcode createSessionStorage}. */
export interface SessionStorageOptions {
  kind: SessionStorageKind;
  kv: Deno.Kv;
  /** Signing secrets, newest first. */
  secrets: readonly string[];
  /** `Secure` cookies (HTTPS only): on in production. */
  secure: boolean;
  /** A connected Redis client, for `kind: "redis"`. */
  redis?: RedisSessionClient;
}

/**
 * Builds the session storage of `kind`: signed-in sessions (with a
 * `userId`) keep {@linkcode SESSION_MAX_AGE}, guests' {@linkcode GUEST_MAX_AGE}.
 */
export function createSessionStorage(
  options: SessionStorageOptions,
): SessionStorage {
  const cookie: SessionCookieOptions = {
    name: sessionCookieName(options.secure),
    secrets: options.secrets,
    secure: options.secure,
    httpOnly: true,
    sameSite: "lax",
    maxAge: SESSION_MAX_AGE,
    path: "/",
  };
  const member = storageOf(options, cookie);
  const guest = storageOf(options, { ...cookie, maxAge: GUEST_MAX_AGE });
  // KV and Redis list a user's sessions (the devices page); cookies cannot.
  const listing = deviceSessionsOf(member);
  return {
    // One backend and cookie name: either storage reads what both write,
    // and each record carries its own expiry.
    read: (header) => member.read(header),
    save: (session) =>
      session.get("userId") === undefined
        ? guest.save(session)
        : member.save(session),
    ...(listing && {
      listUserSessions: (userId: string) => listing.listUserSessions(userId),
      destroyUserSession: (userId: string, id: string) =>
        listing.destroyUserSession(userId, id),
      destroyUserSessions: (userId: string, options?: { except?: string }) =>
        listing.destroyUserSessions(userId, options),
    }),
  };
}

function storageOf(
  options: SessionStorageOptions,
  cookie: SessionCookieOptions,
): SessionStorage {
  switch (options.kind) {
    case "kv":
      return createKvSessionStorage({ client: options.kv, cookie });
    case "cookie":
      return createCookieSessionStorage({ cookie });
    case "redis":
      if (!options.redis) {
        throw new TypeError('SESSION_STORAGE "redis" needs a Redis client');
      }
      return createRedisSessionStorage({ client: options.redis, cookie });
  }
}
