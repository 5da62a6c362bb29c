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
export type {
  SessionCookieOptions,
  SessionStorage,
  SetUserOptions,
} from "./storage.ts";

/** The most a browser is bound to keep for one cookie (RFC 6265, 6.1). */
const MAX_COOKIE_BYTES = 4096;

const decoder = new TextDecoder("utf-8", { fatal: true });

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
 * - It cannot list or end a user's sessions (the sessions live only in
 *   the browsers): it has no `listUserSessions()`,
 *   `destroyUserSession()` or `destroyUserSessions()`, and
 *   `session.setUser()` only keeps the user id in the cookie. To sign a
 *   user out everywhere, keep a counter in the user's own record, put
 *   its value in the session at sign-in, compare the two on each request
 *   and add one to the counter to end every session (each then ends at
 *   its next request); for a list of devices, use the memory, Deno KV or
 *   Redis storage.
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
 *     secrets: [Deno.env.get("SESSION_SECRET") ?? crypto.randomUUID() + crypto.randomUUID()],
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
  // No value longer than the largest cookie save() lets out is genuine.
  const cookie = createSessionCookie(options?.cookie, MAX_COOKIE_BYTES);

  return {
    // deno-lint-ignore require-await -- all synchronous, kept a Promise
    async read(header: string | null): Promise<Session> {
      for (const raw of cookie.candidates(header)) {
        const verified = cookie.verify(raw);
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

    // deno-lint-ignore require-await -- async so that a size error rejects
    async save(session: Session): Promise<string | null> {
      const s = stateOf(session);
      if (s.destroyed) return cookie.expire();
      if (!s.dirty && !s.resign) return null;
      const record: SessionRecord = toRecord(s, cookie.expiresAt());
      record.i = session.id;
      // The user id only: nothing lists these sessions, and an address
      // and user agent would only make the cookie larger.
      if (record.u !== undefined) {
        record.u = { i: record.u.i, c: record.u.c, s: record.u.s };
      }
      const header = cookie.serialize(encode(record));
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

// Cookie values are base64url of the record's JSON. `btoa`/`atob` work on
// one-byte strings and cost a third of TextEncoder + toBase64 (two ops), so
// the JSON is made ASCII first: characters above U+007E become `\uXXXX`
// escapes, which JSON.parse reads back as the same characters.
const NON_ASCII = /[\u007f-\uffff]/g;

function jsonEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

function encode(record: SessionRecord): string {
  const json = JSON.stringify(record).replace(NON_ASCII, jsonEscape);
  const base64 = btoa(json).replaceAll("+", "-").replaceAll("/", "_");
  // At most two `=` of padding, at the end.
  return base64.endsWith("=")
    ? base64.slice(0, base64.endsWith("==") ? -2 : -1)
    : base64;
}

/** Any byte above 0x7F: the JSON was UTF-8, as older cookies may carry. */
const HIGH_BYTE = /[\x80-\xff]/;

function decode(value: string): SessionRecord | null {
  try {
    let json = atob(value.replaceAll("-", "+").replaceAll("_", "/"));
    if (HIGH_BYTE.test(json)) {
      json = decoder.decode(Uint8Array.from(json, (c) => c.charCodeAt(0)));
    }
    return parseRecord(json);
  } catch {
    return null;
  }
}
