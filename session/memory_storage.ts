/**
 * Session storage in the server's memory, for tests and development.
 *
 * @module
 */

import {
  createIdSessionStorage,
  type SessionStore,
  type StoredRecord,
} from "./_id_storage.ts";
import type { SessionCookieOptions, SessionStorage } from "./storage.ts";

export type { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type { SessionCookieOptions, SessionStorage } from "./storage.ts";

/** Expired entries are swept after this many writes. */
const SWEEP_EVERY = 1000;

/** Options of {@linkcode createMemorySessionStorage}. */
export interface MemorySessionStorageOptions {
  /** The session cookie, which holds only the signed session id. */
  cookie: SessionCookieOptions;
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
): SessionStorage {
  // The entry object itself is the version: every write makes a new one.
  const entries = new Map<string, { json: string; expiresAt: number }>();
  let writes = 0;

  function sweep(): void {
    const now = Date.now();
    for (const [id, entry] of entries) {
      if (entry.expiresAt <= now) entries.delete(id);
    }
  }

  const store: SessionStore = {
    get(id) {
      const entry = entries.get(id);
      if (entry === undefined) return Promise.resolve(null);
      if (entry.expiresAt <= Date.now()) {
        entries.delete(id);
        return Promise.resolve(null);
      }
      const stored: StoredRecord = { json: entry.json, version: entry };
      return Promise.resolve(stored);
    },
    write({ id, record, loaded, deleteId }) {
      // Synchronous check and write: nothing can run in between.
      if (loaded === undefined) {
        if (entries.has(id)) return Promise.resolve(null);
      } else {
        if (entries.get(loaded.id) !== loaded.version) {
          return Promise.resolve(null);
        }
        if (id !== loaded.id && entries.has(id)) return Promise.resolve(null);
      }
      if (deleteId !== undefined) entries.delete(deleteId);
      const entry = { json: JSON.stringify(record), expiresAt: record.e };
      entries.set(id, entry);
      if (++writes % SWEEP_EVERY === 0) sweep();
      return Promise.resolve({ version: entry });
    },
    delete(id) {
      entries.delete(id);
      return Promise.resolve();
    },
  };

  return createIdSessionStorage(options?.cookie, store);
}
