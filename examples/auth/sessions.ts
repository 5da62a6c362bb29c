/**
 * The session storage the app runs on, chosen by `SESSION_STORAGE`:
 * Deno KV (default: one server, or many sharing a KV Connect database),
 * the seed's signed cookies, or Redis (several servers behind a load
 * balancer).
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

/** Where sessions live. */
export type SessionStorageKind = "kv" | "cookie" | "redis";

/** The seed's session lifetime: seven days, in seconds. */
export const SESSION_MAX_AGE = 604800;

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

/** Builds the session storage of `kind`. */
export function createSessionStorage(
  options: SessionStorageOptions,
): SessionStorage {
  const cookie: SessionCookieOptions = {
    name: "session",
    secrets: options.secrets,
    secure: options.secure,
    httpOnly: true,
    sameSite: "lax",
    maxAge: SESSION_MAX_AGE,
    path: "/",
  };
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
