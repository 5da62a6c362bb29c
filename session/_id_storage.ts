// Shared logic of the storages whose cookie holds only a signed session id
// (memory, Deno KV, Redis); each supplies a small SessionStore.

import { createSessionCookie } from "./_session_cookie.ts";
import {
  createSessionId,
  loadSession,
  mergeRecord,
  parseRecord,
  type Session,
  SESSION_ID,
  SessionObject,
  type SessionRecord,
  stateOf,
  toRecord,
} from "./session.ts";
import type { SessionCookieOptions, SessionStorage } from "./storage.ts";

/** A stored record, as the store keeps it, and the store's version of it. */
export interface StoredRecord {
  json: string;
  version: unknown;
}

/** A record that parsed and has not expired. */
interface LiveRecord {
  record: SessionRecord;
  version: unknown;
}

/** One save: write `record` under `id`, if nothing changed meanwhile. */
export interface StoreWrite {
  id: string;
  record: SessionRecord;
  /**
   * The id and version the session was loaded with; the write must fail
   * when that entry changed since. `undefined` for a new session: the write
   * must fail when `id` exists.
   */
  loaded: { id: string; version: unknown } | undefined;
  /** An id to delete in the same write (`regenerateId(true)`). */
  deleteId: string | undefined;
}

/** The backend of an id storage. */
export interface SessionStore {
  /**
   * The record under `id`, or `null` when missing. The caller parses it and
   * checks its expiry time, so a store whose own expiry is lazy (Deno KV)
   * cannot hand out a stale session.
   */
  get(id: string): Promise<StoredRecord | null>;
  /** Performs a write; `false` when a concurrent change or an id clash stopped it. */
  write(write: StoreWrite): Promise<boolean>;
  /** Deletes the record under `id`. */
  delete(id: string): Promise<void>;
}

/** How often a save is retried after concurrent writes before it fails. */
const MAX_ATTEMPTS = 10;

/** Creates a {@linkcode SessionStorage} over `store`. */
export function createIdSessionStorage(
  cookieOptions: SessionCookieOptions,
  store: SessionStore,
): SessionStorage {
  const cookie = createSessionCookie(cookieOptions);

  async function load(id: string): Promise<LiveRecord | null> {
    const stored = await store.get(id);
    if (stored === null) return null;
    const record = parseRecord(stored.json);
    if (record === null || record.e <= Date.now()) return null;
    return { record, version: stored.version };
  }

  return {
    async read(header: string | null): Promise<Session> {
      for (const raw of cookie.candidates(header)) {
        const verified = cookie.verify(raw);
        if (verified === null || !SESSION_ID.test(verified.value)) continue;
        const stored = await load(verified.value);
        // Unknown or expired: a new session with a new id, never this one.
        if (stored === null) continue;
        return loadSession(stored.record, verified.value, {
          version: stored.version,
          resign: verified.resign,
        });
      }
      return new SessionObject();
    },

    async save(session: Session): Promise<string | null> {
      const s = stateOf(session);
      if (s.destroyed) {
        if (s.loadedId !== undefined) await store.delete(s.loadedId);
        return cookie.expire();
      }
      if (!s.dirty && !s.resign) return null;
      const expiresAt = cookie.expiresAt();
      let record = toRecord(s, expiresAt);
      let loaded = s.loadedId === undefined
        ? undefined
        : { id: s.loadedId, version: s.version };
      for (let attempt = 1;; attempt++) {
        const id = session.id;
        if (await store.write({ id, record, loaded, deleteId: s.deleteId })) {
          break;
        }
        if (attempt === MAX_ATTEMPTS) {
          throw new Error(
            `Session save failed: ${MAX_ATTEMPTS} concurrent writes in a row`,
          );
        }
        if (loaded === undefined) {
          // A new id clashed with an existing one: take another.
          s.id = createSessionId();
          continue;
        }
        // Another request wrote the session since it was loaded: apply this
        // request's changes on top of what it wrote, and try again.
        const current = await load(loaded.id);
        // Destroyed (or regenerated away) meanwhile: do not bring it back,
        // and leave the browser's cookie alone, as it may already hold the
        // id that replaced it.
        if (current === null) return null;
        loaded = { id: loaded.id, version: current.version };
        record = mergeRecord(current.record, s, expiresAt);
      }
      return cookie.serialize(session.id);
    },
  };
}
