/**
 * Session storage that keeps the whole session in the signed cookie.
 *
 * @module
 */

import { createSessionCookie } from "./_session_cookie.ts";
import {
  loadSession,
  parseRecord,
  type Session,
  SESSION_ID,
  SessionObject,
  type SessionRecord,
  stateOf,
  toRecord,
} from "./session.ts";
import type { SessionCookieOptions, SessionStorage } from "./storage.ts";

export type { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type { SessionCookieOptions, SessionStorage } from "./storage.ts";

/** The most a browser is bound to keep for one cookie (RFC 6265, 6.1). */
const MAX_COOKIE_BYTES = 4096;

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** Options of {@linkcode createCookieSessionStorage}. */
export interface CookieSessionStorageOptions {
  /** The session cookie; `secrets` is required. */
  cookie: SessionCookieOptions;
}

/**
 * Creates a storage that keeps the session data in the cookie itself,
 * signed with HMAC-SHA256 (readable by the user, not changeable). No server
 * state, so any number of servers share sessions through their secrets.
 *
 * Limits, by design:
 * - A serialized cookie over 4096 bytes makes `save` throw a `RangeError`
 *   naming the size: keep sessions small or use a server-side storage.
 * - The data is signed, not encrypted: store no secrets in it.
 * - The signed payload carries its expiry time, so a copied cookie stops
 *   working after `maxAge` even if replayed. Before that it cannot be
 *   revoked: `destroy()` and `regenerateId(true)` only replace the
 *   browser's copy.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
 *
 * const Session = createContextKey<Session>();
 * const storage = createCookieSessionStorage({
 *   cookie: {
 *     name: "session",
 *     secrets: [crypto.randomUUID() + crypto.randomUUID()],
 *     secure: true,
 *     maxAge: 604800,
 *   },
 * });
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * ```
 *
 * @param options The cookie options.
 * @returns The storage, for `session(Key, storage)`.
 * @throws {TypeError} When the cookie options are invalid or lack secrets.
 */
export function createCookieSessionStorage(
  options: CookieSessionStorageOptions,
): SessionStorage {
  const cookie = createSessionCookie(options?.cookie);

  return {
    async read(header: string | null): Promise<Session> {
      for (const raw of cookie.candidates(header)) {
        const verified = await cookie.verify(raw);
        if (verified === null) continue;
        const record = decode(verified.value);
        if (
          record === null || record.i === undefined ||
          !SESSION_ID.test(record.i) || record.e <= Date.now()
        ) {
          continue;
        }
        return loadSession(record, record.i, { resign: verified.resign });
      }
      return new SessionObject();
    },

    async save(session: Session): Promise<string | null> {
      const s = stateOf(session);
      if (s.destroyed) return cookie.expire();
      if (!s.dirty && !s.resign) return null;
      const record: SessionRecord = toRecord(s, cookie.expiresAt());
      record.i = session.id;
      const header = await cookie.serialize(encode(record));
      if (header.length > MAX_COOKIE_BYTES) {
        throw new RangeError(
          `Session cookie "${cookie.name}" is ${header.length} bytes, over ` +
            `the ${MAX_COOKIE_BYTES}-byte limit browsers keep; store less ` +
            `in the session or use a server-side session storage`,
        );
      }
      return header;
    },
  };
}

function encode(record: SessionRecord): string {
  return encoder.encode(JSON.stringify(record)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

function decode(value: string): SessionRecord | null {
  try {
    return parseRecord(
      decoder.decode(
        Uint8Array.fromBase64(value, { alphabet: "base64url" }),
      ),
    );
  } catch {
    return null;
  }
}
