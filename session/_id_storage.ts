// Shared logic of the storages whose cookie holds only a signed session id
// (memory, Deno KV, Redis); each supplies a small SessionStore.
//
// Concurrent saves of one session:
// - within this process they run one after another, in arrival order (a
//   queue per session id), and each builds on what the one before it wrote,
//   which this process already knows: no conflict, no extra round trip;
// - across processes (servers sharing one database), a save is a
//   compare-and-set against the version the request loaded; when another
//   server wrote meanwhile, the request applies its own changes on top of
//   the newer record and tries again, with jittered exponential backoff,
//   until the retry budget is spent.
// Changes to different names all survive; for one name the last save wins.

import { createSessionCookie } from "./_session_cookie.ts";
import {
  backoff,
  type Budget,
  budgetOf,
  elapsed,
  RETRY_BUDGET_MS,
} from "./_retry.ts";
import {
  createSessionId,
  loadSession,
  mergeRecord,
  parseRecord,
  type Session,
  SESSION_ID,
  SessionObject,
  type SessionRecord,
  type SessionState,
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
  /** The save's time budget, for a store that retries on its own. */
  budget: Budget;
}

/** The backend of an id storage. */
export interface SessionStore {
  /**
   * The record under `id`, or `null` when missing. The caller parses it and
   * checks its expiry time, so a store whose own expiry is lazy (Deno KV)
   * cannot hand out a stale session.
   */
  get(id: string, budget: Budget): Promise<StoredRecord | null>;
  /**
   * Performs a write; the version of what it wrote, or `null` when a
   * concurrent change or an id clash stopped it.
   */
  write(write: StoreWrite): Promise<{ version: unknown } | null>;
  /** Deletes the record under `id`. */
  delete(id: string, budget: Budget): Promise<void>;
}

/** Options of {@linkcode createIdSessionStorage}. */
export interface IdStorageOptions {
  /** How long a save may retry after conflicts, in ms. */
  retryBudgetMs?: number;
}

/**
 * At most this many validly signed ids of one request are looked up in the
 * store. Signatures are checked on every candidate (cheap); only a value
 * the server itself signed costs a lookup.
 */
const MAX_LOOKUPS = 16;

/** The saves of one session id waiting in this process, in order. */
interface SaveQueue {
  /** Settles when the last queued save has finished. */
  tail: Promise<void>;
  /** Saves queued or running. */
  waiting: number;
  /** What the last save wrote under this id, while saves are queued. */
  latest: LiveRecord | undefined;
}

/** Thrown when a save spent its retry budget on conflicts. */
export class SessionConflictError extends Error {
  /** Creates the error; the message names the attempts and the budget. */
  constructor(attempts: number, spent: number, budget: number) {
    super(
      `Session save gave up after ${attempts} attempts in ${spent} ms ` +
        `(retry budget ${budget} ms): other servers kept changing this ` +
        "session at the same time",
    );
    this.name = "SessionConflictError";
  }
}

/** Creates a {@linkcode SessionStorage} over `store`. */
export function createIdSessionStorage(
  cookieOptions: SessionCookieOptions,
  store: SessionStore,
  options: IdStorageOptions = {},
): SessionStorage {
  const cookie = createSessionCookie(cookieOptions);
  const budgetMs = options.retryBudgetMs ?? RETRY_BUDGET_MS;
  const queues = new Map<string, SaveQueue>();

  async function load(id: string, budget: Budget): Promise<LiveRecord | null> {
    const stored = await store.get(id, budget);
    if (stored === null) return null;
    const record = parseRecord(stored.json);
    if (record === null || record.e <= Date.now()) return null;
    return { record, version: stored.version };
  }

  /** Runs `task` once every save of `id` queued before it has finished. */
  function queued<T>(
    id: string,
    task: (queue: SaveQueue) => Promise<T>,
  ): Promise<T> {
    let queue = queues.get(id);
    if (queue === undefined) {
      queue = { tail: Promise.resolve(), waiting: 0, latest: undefined };
      queues.set(id, queue);
    }
    const q = queue;
    const run = q.waiting++ === 0 ? task(q) : q.tail.then(() => task(q));
    const release = () => {
      if (--q.waiting === 0 && queues.get(id) === q) queues.delete(id);
    };
    q.tail = run.then(release, release);
    return run;
  }

  /** Saves a session that was loaded from the store. */
  async function saveLoaded(
    session: Session,
    s: SessionState,
    queue: SaveQueue,
  ): Promise<string | null> {
    const budget = budgetOf(budgetMs);
    const expiresAt = cookie.expiresAt();
    let loaded = { id: s.loadedId!, version: s.version };
    let record: SessionRecord;
    const latest = queue.latest;
    if (latest !== undefined && latest.version !== s.version) {
      // A save queued before this one wrote the session after it was
      // loaded: build on what that save wrote, without reading it back.
      loaded = { id: loaded.id, version: latest.version };
      record = mergeRecord(latest.record, s, expiresAt);
    } else {
      record = toRecord(s, expiresAt);
    }
    for (let attempt = 1;; attempt++) {
      const id = session.id;
      const written = await store.write({
        id,
        record,
        loaded,
        deleteId: s.deleteId,
        budget,
      });
      if (written !== null) {
        queue.latest = id === loaded.id
          ? { record, version: written.version }
          : undefined;
        break;
      }
      // Another server wrote the session since it was loaded.
      queue.latest = undefined;
      if (attempt > 1 && !await backoff(attempt - 1, budget)) {
        throw new SessionConflictError(attempt, elapsed(budget), budget.ms);
      }
      const current = await load(loaded.id, budget);
      // Destroyed (or regenerated away) meanwhile: do not bring it back,
      // and leave the browser's cookie alone, as it may already hold the
      // id that replaced it.
      if (current === null) return null;
      // Apply this request's changes on top of what the other one wrote.
      loaded = { id: loaded.id, version: current.version };
      record = mergeRecord(current.record, s, expiresAt);
    }
    return cookie.serialize(session.id);
  }

  /** Saves a new session under a fresh id. */
  async function saveNew(session: Session, s: SessionState): Promise<string> {
    const budget = budgetOf(budgetMs);
    const record = toRecord(s, cookie.expiresAt());
    for (let attempt = 1;; attempt++) {
      const written = await store.write({
        id: session.id,
        record,
        loaded: undefined,
        deleteId: undefined,
        budget,
      });
      if (written !== null) return cookie.serialize(session.id);
      if (elapsed(budget) > budget.ms) {
        throw new SessionConflictError(attempt, elapsed(budget), budget.ms);
      }
      // The new id clashed with an existing one: take another.
      s.id = createSessionId();
    }
  }

  return {
    async read(header: string | null): Promise<Session> {
      let lookups = 0;
      for (const raw of cookie.candidates(header)) {
        const verified = cookie.verify(raw);
        if (verified === null || !SESSION_ID.test(verified.value)) continue;
        if (++lookups > MAX_LOOKUPS) break;
        const stored = await load(verified.value, budgetOf(budgetMs));
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
      const loadedId = s.loadedId;
      if (s.destroyed) {
        if (loadedId !== undefined) {
          await queued(loadedId, async (queue) => {
            queue.latest = undefined;
            await store.delete(loadedId, budgetOf(budgetMs));
          });
        }
        return cookie.expire();
      }
      if (!s.dirty && !s.resign) return null;
      if (loadedId === undefined) return saveNew(session, s);
      return queued(loadedId, (queue) => saveLoaded(session, s, queue));
    },
  };
}
