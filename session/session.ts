/**
 * The Session object handed to handlers, and the record storages persist.
 *
 * @module
 */

import { toBase64Url } from "../runtime/base64.ts";
import type { SetUserOptions } from "./storage.ts";

/** The shape of session data: names to JSON-serializable values. */
export type SessionData = Record<string, unknown>;

const UNSET: unique symbol = Symbol("unset");

/**
 * Everything a storage needs to know about a session. Private to this
 * folder: reached through {@linkcode stateOf}, never through the public API.
 */
export interface SessionState {
  /** The current id; made on first use, so a session never saved costs none. */
  id: string | undefined;
  /** The id the session was loaded with; `undefined` for a new session. */
  loadedId: string | undefined;
  values: Map<string, unknown>;
  /** Flash values from the previous request, readable now. */
  flash: Map<string, unknown>;
  /** Flash values set now, for the following request. */
  next: Map<string, unknown>;
  /** Names set (to their value) or unset ({@linkcode UNSET}) in this request. */
  changes: Map<string, unknown>;
  dirty: boolean;
  destroyed: boolean;
  /** An id whose stored data must be deleted on save (`regenerateId(true)`). */
  deleteId: string | undefined;
  /** The cookie verified with an older secret and must be signed again. */
  resign: boolean;
  /** The storage's version of the loaded record, to detect concurrent writes. */
  version: unknown;
  /**
   * Read or written in this request (any method, or `id`): the answer
   * depends on the session, so `session()` sends it `no-store`.
   */
  used: boolean;
  /** The user the session belongs to (loaded, or set in this request). */
  user: UserBinding | undefined;
  /** The user the loaded record belonged to. */
  loadedUser: string | undefined;
  /** `setUser()` was called in this request. */
  userSet: boolean;
}

/** The user a session belongs to, as its record keeps it. */
export interface UserBinding {
  /** User id. */
  i: string;
  /** Bound at (sign-in), ms since the epoch. */
  c: number;
  /** Last saved at, ms since the epoch. */
  s: number;
  /** Address at sign-in. */
  a?: string;
  /** User agent at sign-in. */
  ua?: string;
}

/** What storages persist, as JSON: values, next flash values, expiry time. */
export interface SessionRecord {
  /** Session id; only cookie storage keeps it in the record. */
  i?: string;
  /** Values. */
  v: SessionData;
  /** Flash values for the next request. */
  f?: SessionData;
  /** Expiry time, in milliseconds since the epoch. */
  e: number;
  /** The user the session belongs to (`setUser()`). */
  u?: UserBinding;
}

let getState: (session: SessionObject) => SessionState;

/**
 * Per-user state kept across requests. The `session()` middleware loads it
 * before the handler and saves it afterwards; handlers read it with
 * `context.get(Key)`.
 *
 * Values must survive `JSON.stringify` (a `Date` comes back as a string).
 * A flashed value is readable with `get(name)` on the following request
 * only; for that one request it shadows a stored value of the same name.
 * After `destroy()`, reads find nothing and writes throw.
 *
 * @example Count visits
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
 *
 * const Session = createContextKey<Session<{ visits: number }>>();
 * const storage = createCookieSessionStorage({
 *   cookie: { name: "session", secrets: [Deno.env.get("SESSION_SECRET") ?? crypto.randomUUID() + crypto.randomUUID()] },
 * });
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * router.get("/", (context) => {
 *   const current = context.get(Session)!;
 *   const visits = (current.get("visits") ?? 0) + 1;
 *   current.set("visits", visits);
 *   return new Response(`visit ${visits}`);
 * });
 * ```
 *
 * @typeParam Data The names and value types the application stores.
 */
export interface Session<Data extends SessionData = SessionData> {
  /**
   * The session id: at least 128 random bits, made on first use. It
   * changes with {@linkcode Session.regenerateId}.
   */
  readonly id: string;
  /** `true` when the session changed and must be saved. */
  readonly dirty: boolean;
  /** `true` after {@linkcode Session.destroy}. */
  readonly destroyed: boolean;
  /**
   * Reads a value: this request's flash value for `name` when the previous
   * request flashed one, else the stored value, else `undefined`.
   *
   * @param name The value's name.
   * @returns The value, or `undefined`.
   */
  get<K extends keyof Data & string>(name: K): Data[K] | undefined;
  /**
   * Tells whether `get(name)` would find a value.
   *
   * @param name The value's name.
   * @returns `true` when a value or flash value is present.
   */
  has(name: keyof Data & string): boolean;
  /**
   * Stores a value; `undefined` removes it. Setting a primitive to the value
   * it already has changes nothing, so it sends no cookie.
   *
   * @param name The value's name.
   * @param value A JSON-serializable value.
   * @throws {Error} When the session was destroyed.
   */
  set<K extends keyof Data & string>(name: K, value: Data[K]): void;
  /**
   * Removes a value.
   *
   * @param name The value's name.
   * @throws {Error} When the session was destroyed.
   */
  unset(name: keyof Data & string): void;
  /**
   * Stores a value for the following request only, where `get(name)` reads
   * it; it is gone on the request after that. It is not readable in the
   * request that sets it.
   *
   * @param name The value's name.
   * @param value A JSON-serializable value.
   * @throws {Error} When the session was destroyed.
   */
  flash<K extends keyof Data & string>(name: K, value: Data[K]): void;
  /**
   * Gives the session a new id, keeping its data. Call it when privileges
   * change (after login) so an id planted in the browser beforehand
   * (session fixation) is worth nothing.
   *
   * @param deleteOld `true` deletes the data stored under the old id when
   *   the session is saved, so the old id stops working; `false` (default)
   *   keeps it. Cookie storage cannot revoke a copy of its old cookie.
   * @throws {Error} When the session was destroyed.
   */
  regenerateId(deleteOld?: boolean): void;
  /**
   * Ends the session: on save its stored data is deleted and the cookie
   * expired (`Max-Age=0`). Calling it again does nothing.
   */
  destroy(): void;
  /**
   * The user the session belongs to ({@linkcode Session.setUser}), or
   * `undefined`.
   */
  readonly userId: string | undefined;
  /**
   * Binds the session to a user, at sign-in (after `regenerateId(true)`),
   * so the storage can list and end the user's sessions
   * (`listUserSessions`, `destroyUserSession`, `destroyUserSessions` of
   * the memory, Deno KV and Redis storages). Binding it again to the same
   * user changes nothing; to another user, starts a new sign-in. Cookie
   * storage keeps the binding in the cookie but cannot list sessions.
   *
   * @param userId The user's id (at most 200 characters).
   * @param options The client's address and user agent at sign-in.
   * @throws {TypeError} When `userId` is not a non-empty string of at most 200 characters.
   * @throws {Error} When the session was destroyed.
   */
  setUser(userId: string, options?: SetUserOptions): void;
  /**
   * Unbinds the session from its user: a sign-out that keeps the session
   * for a guest (a "You have been signed out" flash, after
   * `regenerateId(true)`). The storage drops it from the user's list on
   * save; `destroy()` does the same for a sign-out that keeps nothing.
   * Does nothing on a session bound to nobody.
   *
   * @throws {Error} When the session was destroyed.
   */
  unsetUser(): void;
}

/**
 * The implementation of {@linkcode Session}. Private to this folder, so
 * applications can name their context key `Session` next to the type.
 */
export class SessionObject<Data extends SessionData = SessionData>
  implements Session<Data> {
  #s: SessionState;

  static {
    getState = (session) => session.#s;
  }

  /** Creates an empty session with no id yet. */
  constructor() {
    this.#s = {
      id: undefined,
      loadedId: undefined,
      values: new Map(),
      flash: new Map(),
      next: new Map(),
      changes: new Map(),
      dirty: false,
      destroyed: false,
      deleteId: undefined,
      resign: false,
      version: undefined,
      used: false,
      user: undefined,
      loadedUser: undefined,
      userSet: false,
    };
  }

  get userId(): string | undefined {
    this.#s.used = true;
    return this.#s.destroyed ? undefined : this.#s.user?.i;
  }

  setUser(userId: string, options: SetUserOptions = {}): void {
    if (
      typeof userId !== "string" || userId.length === 0 ||
      userId.length > 200
    ) {
      throw new TypeError(
        `setUser() needs a user id: a non-empty string of at most 200 characters, got ${
          typeof userId === "string"
            ? `${userId.length} characters`
            : typeof userId
        }`,
      );
    }
    const s = this.#writable();
    if (s.user?.i === userId) return;
    const now = Date.now();
    const user: UserBinding = { i: userId, c: now, s: now };
    if (typeof options.address === "string" && options.address !== "") {
      user.a = options.address.slice(0, 100);
    }
    if (typeof options.userAgent === "string" && options.userAgent !== "") {
      user.ua = options.userAgent.slice(0, 512);
    }
    s.user = user;
    s.userSet = true;
    s.dirty = true;
  }

  unsetUser(): void {
    const s = this.#writable();
    if (s.user === undefined) return;
    s.user = undefined;
    s.userSet = true;
    s.dirty = true;
  }

  get id(): string {
    this.#s.used = true;
    return this.#s.id ??= createSessionId();
  }

  get dirty(): boolean {
    return this.#s.dirty;
  }

  get destroyed(): boolean {
    return this.#s.destroyed;
  }

  get<K extends keyof Data & string>(name: K): Data[K] | undefined {
    const s = this.#s;
    s.used = true;
    if (s.destroyed) return undefined;
    if (s.flash.size !== 0 && s.flash.has(name)) {
      return s.flash.get(name) as Data[K];
    }
    return s.values.get(name) as Data[K] | undefined;
  }

  has(name: keyof Data & string): boolean {
    const s = this.#s;
    s.used = true;
    return !s.destroyed && (s.values.has(name) || s.flash.has(name));
  }

  set<K extends keyof Data & string>(name: K, value: Data[K]): void {
    const s = this.#writable();
    if (value === undefined) return this.unset(name);
    if (
      (value === null || typeof value !== "object") &&
      s.values.has(name) && Object.is(s.values.get(name), value)
    ) {
      return;
    }
    s.values.set(name, value);
    s.changes.set(name, value);
    s.dirty = true;
  }

  unset(name: keyof Data & string): void {
    const s = this.#writable();
    if (!s.values.has(name)) return;
    s.values.delete(name);
    s.changes.set(name, UNSET);
    s.dirty = true;
  }

  flash<K extends keyof Data & string>(name: K, value: Data[K]): void {
    const s = this.#writable();
    s.next.set(name, value);
    s.dirty = true;
  }

  regenerateId(deleteOld = false): void {
    const s = this.#writable();
    if (deleteOld && s.loadedId !== undefined) s.deleteId = s.loadedId;
    s.id = createSessionId();
    s.dirty = true;
  }

  destroy(): void {
    const s = this.#s;
    s.used = true;
    s.destroyed = true;
    s.dirty = true;
  }

  #writable(): SessionState {
    this.#s.used = true;
    if (this.#s.destroyed) {
      throw new Error("The session was destroyed; it can no longer change");
    }
    return this.#s;
  }
}

/** The internal state of `session`, for storages. */
export function stateOf(session: object): SessionState {
  return getState(session as SessionObject);
}

/** 18 random bytes: 144 bits, 24 base64url characters, no padding. */
export function createSessionId(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(18)));
}

/** What {@linkcode createSessionId} makes: checked before a store lookup. */
export const SESSION_ID: RegExp = /^[A-Za-z0-9_-]{24}$/;

/** Builds a loaded session from a stored record. */
export function loadSession(
  record: SessionRecord,
  id: string,
  options: { version?: unknown; resign?: boolean },
): Session {
  const session = new SessionObject();
  const s = getState(session);
  s.id = id;
  s.loadedId = id;
  s.values = new Map(Object.entries(record.v));
  if (record.f !== undefined) {
    s.flash = new Map(Object.entries(record.f));
    // The flash was read (or not) in this request either way: clear it.
    s.dirty = s.flash.size !== 0;
  }
  s.version = options.version;
  s.resign = options.resign ?? false;
  if (record.u !== undefined) {
    s.user = record.u;
    s.loadedUser = record.u.i;
  }
  return session;
}

/** The record to store for `s`, expiring at `expiresAt`. */
export function toRecord(s: SessionState, expiresAt: number): SessionRecord {
  const record: SessionRecord = {
    v: Object.fromEntries(s.values),
    e: expiresAt,
  };
  if (s.next.size !== 0) record.f = Object.fromEntries(s.next);
  if (s.user !== undefined) record.u = { ...s.user, s: Date.now() };
  return record;
}

/**
 * Applies this request's changes to a record another request wrote since
 * this session was loaded, so concurrent requests that change different
 * names both keep their changes.
 */
export function mergeRecord(
  current: SessionRecord,
  s: SessionState,
  expiresAt: number,
): SessionRecord {
  const values = new Map(Object.entries(current.v));
  for (const [name, value] of s.changes) {
    if (value === UNSET) values.delete(name);
    else values.set(name, value);
  }
  const flash = new Map(Object.entries(current.f ?? {}));
  // Flash values this request consumed are gone; newer ones stay.
  for (const [name, value] of s.flash) {
    if (JSON.stringify(flash.get(name)) === JSON.stringify(value)) {
      flash.delete(name);
    }
  }
  for (const [name, value] of s.next) flash.set(name, value);
  const record: SessionRecord = {
    v: Object.fromEntries(values),
    e: expiresAt,
  };
  if (flash.size !== 0) record.f = Object.fromEntries(flash);
  // This request's binding wins; else the one the other request wrote.
  const user = s.userSet ? s.user : current.u;
  if (user !== undefined) record.u = { ...user, s: Date.now() };
  return record;
}

/** Parses a stored record; `null` when it is not one (never throws). */
export function parseRecord(json: string): SessionRecord | null {
  let record: unknown;
  try {
    record = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isObject(record)) return null;
  const { v, f, e, i } = record as Record<string, unknown>;
  if (!isObject(v) || typeof e !== "number") return null;
  if (f !== undefined && !isObject(f)) return null;
  if (i !== undefined && typeof i !== "string") return null;
  const { u } = record as Record<string, unknown>;
  if (u !== undefined && !isUser(u)) return null;
  return record as unknown as SessionRecord;
}

function isUser(value: unknown): value is UserBinding {
  if (!isObject(value)) return false;
  const { i, c, s, a, ua } = value;
  return typeof i === "string" && typeof c === "number" &&
    typeof s === "number" && (a === undefined || typeof a === "string") &&
    (ua === undefined || typeof ua === "string");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
