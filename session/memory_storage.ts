/**
 * Session storage in the server's memory, for tests and development.
 *
 * @module
 */

import {
  createIdSessionStorage,
  type SessionStore,
  type StoredRecord,
  type StoreWrite,
  type UserIndex,
  type UserIndexEntry,
  userIndexOptions,
} from "./_id_storage.ts";
import type { SessionCookieOptions, UserSessionStorage } from "./storage.ts";
import { countStoreCall, storeCallObservers } from "../store/observe.ts";

export type { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type {
  DestroyUserSessionsOptions,
  SessionCookieOptions,
  SessionStorage,
  SetUserOptions,
  UserSession,
  UserSessionStorage,
} from "./storage.ts";

/** Expired entries are swept after this many writes. */
const SWEEP_EVERY = 1000;

// Store calls as metrics count them (`store_operations_total`), named as
// the Redis and Deno KV session storages name theirs.
const READ = { store: "memory", what: "read session" };
const SAVE = { store: "memory", what: "save session" };
const DELETE = { store: "memory", what: "delete session" };
const INDEX = { store: "memory", what: "index session" };
const UNINDEX = { store: "memory", what: "unindex session" };
const LIST = { store: "memory", what: "list user sessions" };

/** Options of {@linkcode createMemorySessionStorage}. */
export interface MemorySessionStorageOptions {
  /** The session cookie, which holds only the signed session id. */
  cookie: SessionCookieOptions;
  /**
   * Most sessions one user keeps (`session.setUser()`); signing in once
   * more ends the one signed in longest ago.
   *
   * @default {100}
   */
  maxSessionsPerUser?: number;
  /**
   * A session bound to a user that is read this long (ms) after its last
   * save is saved again, so `listUserSessions()` shows when it was last
   * seen.
   *
   * @default {300000} (5 minutes)
   */
  lastSeenIntervalMs?: number;
}

/**
 * Creates a storage that keeps sessions in a `Map` of this process: lost on
 * restart and not shared between servers. Meant for tests and development;
 * use Deno KV or Redis storage in production.
 *
 * Data is kept as JSON, exactly as the persistent storages keep it, so an
 * object changed after `set` is not changed in the store.
 *
 * Concurrent requests on one session are all answered: their saves run one
 * after another, each on top of the one before, so changes to different
 * names all survive; for the same name the last save wins.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
 *
 * const Session = createContextKey<Session>();
 * const storage = createMemorySessionStorage({
 *   cookie: { secrets: [Deno.env.get("SESSION_SECRET") ?? crypto.randomUUID() + crypto.randomUUID()] },
 * });
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * ```
 *
 * @param options The cookie options.
 * @returns The storage, for `session(Key, storage)`.
 * @throws {TypeError} When the cookie options are invalid or lack secrets.
 */
export function createMemorySessionStorage(
  options: MemorySessionStorageOptions,
): UserSessionStorage {
  const indexOptions = userIndexOptions(
    "createMemorySessionStorage",
    options ?? {},
  );
  // The entry object itself is the version: every write makes a new one.
  const entries = new Map<string, { json: string; expiresAt: number }>();
  let writes = 0;

  // Per user: session id to index entry.
  const byUser = new Map<string, Map<string, UserIndexEntry>>();

  function sweep(): void {
    const now = Date.now();
    for (const [id, entry] of entries) {
      if (entry.expiresAt <= now) entries.delete(id);
    }
    for (const [user, index] of byUser) {
      for (const [id, entry] of index) if (entry.e <= now) index.delete(id);
      if (index.size === 0) byUser.delete(user);
    }
  }

  // Each call runs synchronously (nothing can run in between) and is
  // counted as such; its promise is only the interface's.
  function put(
    userId: string,
    id: string,
    entry: UserIndexEntry,
    { replaces, max }: { replaces?: string; max: number },
  ): string[] {
    let index = byUser.get(userId);
    if (index === undefined) byUser.set(userId, index = new Map());
    if (replaces !== undefined) index.delete(replaces);
    const added = !index.has(id);
    index.set(id, entry);
    const evicted: string[] = [];
    if (!added) return evicted;
    const now = Date.now();
    for (const [old, { e }] of index) if (e <= now) index.delete(old);
    if (index.size > max) {
      const oldest = [...index].sort(([, a], [, b]) => a.c - b.c)
        .slice(0, index.size - max);
      for (const [old] of oldest) {
        index.delete(old);
        evicted.push(old);
      }
    }
    return evicted;
  }

  function unindex(userId: string, ids: readonly string[]): void {
    const index = byUser.get(userId);
    if (index !== undefined) {
      for (const id of ids) index.delete(id);
      if (index.size === 0) byUser.delete(userId);
    }
  }

  function read(id: string): StoredRecord | null {
    const entry = entries.get(id);
    if (entry === undefined) return null;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(id);
      return null;
    }
    return { json: entry.json, version: entry };
  }

  function write(
    { id, record, loaded, deleteId }: StoreWrite,
  ): { version: unknown } | null {
    // Synchronous check and write: nothing can run in between.
    if (loaded === undefined) {
      if (entries.has(id)) return null;
    } else {
      if (entries.get(loaded.id) !== loaded.version) return null;
      if (id !== loaded.id && entries.has(id)) return null;
    }
    if (deleteId !== undefined) entries.delete(deleteId);
    const entry = { json: JSON.stringify(record), expiresAt: record.e };
    entries.set(id, entry);
    if (++writes % SWEEP_EVERY === 0) sweep();
    return { version: entry };
  }

  const users: UserIndex = {
    put: (userId, id, entry, options) =>
      settle(() =>
        countStoreCall(INDEX, () => put(userId, id, entry, options))
      ),
    remove: (userId, ids) =>
      settle(() => countStoreCall(UNINDEX, () => unindex(userId, ids))),
    list: (userId) =>
      settle(() => countStoreCall(LIST, () => new Map(byUser.get(userId)))),
  };

  const store: SessionStore & { users: UserIndex } = {
    // The read of every request: no closure unless observed.
    get: (id) =>
      Promise.resolve(
        storeCallObservers().length === 0
          ? read(id)
          : countStoreCall(READ, () => read(id)),
      ),
    write: (change) => settle(() => countStoreCall(SAVE, () => write(change))),
    delete: (id) =>
      settle(() => countStoreCall(DELETE, () => void entries.delete(id))),
    users,
  };

  return createIdSessionStorage(options?.cookie, store, indexOptions);
}

/** `call()`'s value as a promise, or its throw as a rejected one. */
function settle<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}
