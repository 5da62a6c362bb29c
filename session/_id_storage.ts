/**
 * Shared logic of the storages whose cookie holds only a signed session id
 * (memory, Deno KV, Redis); each supplies a small SessionStore.
 *
 * Concurrent saves of one session:
 * - within this process one runs at a time (a queue per session id); those
 * arriving meanwhile are then written together, in arrival order, in one
 * store write that builds on what the write before it wrote, which this
 * process already knows: no conflict, no extra round trip;
 * - across processes (servers sharing one database), a save is a
 * compare-and-set against the version the request loaded; when another
 * server wrote meanwhile, the request applies its own changes on top of
 * the newer record and tries again, with jittered exponential backoff,
 * until the retry budget is spent.
 * Changes to different names all survive; for one name the last save wins.
 *
 * @module
 */

import {
  createSessionCookie,
  type SessionCookie,
  SIGNED_ID_LENGTH,
} from "./_session_cookie.ts";
import { isStoreOutage } from "../store/errors.ts";
import {
  backoff,
  type Budget,
  budgetOf,
  elapsed,
  RETRY_BUDGET_MS,
} from "../store/retry.ts";
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
import type {
  DestroyUserSessionsOptions,
  SessionCookieOptions,
  SessionStorage,
  UserSession,
  UserSessionStorage,
} from "./storage.ts";

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
  /**
   * Deletes the record under `id`. `durable`: a sign-out, which must
   * reach a replica before it is confirmed where the store has that mode.
   */
  delete(id: string, budget: Budget, durable?: boolean): Promise<void>;
  /** The index of sessions by user: the storages that can list them. */
  users?: UserIndex;
}

/** A user's index entry of one session, as the store keeps it. */
export interface UserIndexEntry {
  /** Bound at (sign-in), ms since the epoch. */
  c: number;
  /** Last saved at. */
  s: number;
  /** Session expiry. */
  e: number;
  /** Address at sign-in. */
  a?: string;
  /** User agent at sign-in. */
  ua?: string;
}

/** The sessions of each user, kept beside the sessions. */
export interface UserIndex {
  /**
   * Adds or updates `id`'s entry in `userId`'s index, removes `replaces`
   * (an id it was regenerated from, whose data is gone) and entries that
   * expired; when more than `max` stay, removes the oldest (by `c`) and
   * returns their ids, whose sessions the caller ends.
   */
  put(
    userId: string,
    id: string,
    entry: UserIndexEntry,
    options: { replaces: string | undefined; max: number; fresh: boolean },
  ): Promise<string[]>;
  /** Removes `ids` from `userId`'s index. */
  remove(userId: string, ids: readonly string[]): Promise<void>;
  /** `userId`'s entries, expired ones included or not. */
  list(userId: string): Promise<Map<string, UserIndexEntry>>;
}

/** Options of {@linkcode createIdSessionStorage}. */
export interface IdStorageOptions {
  /** How long a save may retry after conflicts, in ms. */
  retryBudgetMs?: number;
  /** Most sessions per user in the index; the oldest are ended. Default 100. */
  maxSessionsPerUser?: number;
  /** A bound session read this long after its last save is saved again (last seen). Default 5 min. */
  lastSeenIntervalMs?: number;
}

/** Default of `maxSessionsPerUser`. */
export const MAX_SESSIONS_PER_USER = 100;
/** Default of `lastSeenIntervalMs`. */
export const LAST_SEEN_INTERVAL_MS = 5 * 60_000;

/** Checks `maxSessionsPerUser` and `lastSeenIntervalMs` of `owner`'s options. */
export function userIndexOptions(
  owner: string,
  options: { maxSessionsPerUser?: number; lastSeenIntervalMs?: number },
): { maxSessionsPerUser: number; lastSeenIntervalMs: number } {
  const max = options.maxSessionsPerUser ?? MAX_SESSIONS_PER_USER;
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(
      `${owner}: maxSessionsPerUser must be a whole number >= 1, got ${max}`,
    );
  }
  const interval = options.lastSeenIntervalMs ?? LAST_SEEN_INTERVAL_MS;
  if (typeof interval !== "number" || !(interval >= 0)) {
    throw new RangeError(
      `${owner}: lastSeenIntervalMs must be a number >= 0, got ${interval}`,
    );
  }
  return { maxSessionsPerUser: max, lastSeenIntervalMs: interval };
}

/**
 * At most this many validly signed ids of one request are looked up in the
 * store. Signatures are checked on every candidate (cheap); only a value
 * the server itself signed costs a lookup.
 */
const MAX_LOOKUPS = 16;

/** Most saves of one session written together in one store write. */
const MAX_BATCH = 1000;

/** A save of a loaded session. */
interface Save {
  session: Session;
  s: SessionState;
}

/** A save waiting for the one that runs. */
interface WaitingSave extends Save {
  resolve(setCookie: string | null): void;
  reject(error: unknown): void;
}

/**
 * The saves of one session id in this process, while one runs: those that
 * arrive meanwhile wait, and are then written together, in order.
 */
interface SaveQueue {
  waiting: WaitingSave[];
  /** What the last write under this id wrote, while saves are queued. */
  latest: LiveRecord | undefined;
}

/** A save that can share a write: it keeps its id and deletes nothing. */
function isPlain({ s }: Save): boolean {
  return !s.destroyed && s.deleteId === undefined && s.id === s.loadedId;
}

/** The next saves to write together: one that is not plain, or a run of plain ones. */
function takeBatch(waiting: WaitingSave[]): WaitingSave[] {
  let count = 1;
  if (isPlain(waiting[0])) {
    while (
      count < waiting.length && count < MAX_BATCH && isPlain(waiting[count])
    ) count++;
  }
  return waiting.splice(0, count);
}

/**
 * Whether `error` is the store failing (down, timed out, or other servers
 * writing the whole budget), which the saves waiting behind would meet
 * too; a `RangeError` or `TypeError` is one request's data.
 */
function isStoreFailure(error: unknown): boolean {
  return isStoreOutage(error) ||
    !(error instanceof RangeError || error instanceof TypeError);
}

/**
 * The record of `saves` applied in order: on `base` (a stored record), or
 * without one on the first save's own data.
 */
function fold(
  base: SessionRecord | undefined,
  saves: readonly Save[],
  expiresAt: number,
): SessionRecord {
  let record = base === undefined
    ? toRecord(saves[0].s, expiresAt)
    : mergeRecord(base, saves[0].s, expiresAt);
  for (let i = 1; i < saves.length; i++) {
    record = mergeRecord(record, saves[i].s, expiresAt);
  }
  return record;
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

/** What the parts of one id storage share. */
interface IdStorage {
  cookie: SessionCookie;
  store: SessionStore;
  budgetMs: number;
  /** The save queue of each session id with a save running in this process. */
  queues: Map<string, SaveQueue>;
  maxSessionsPerUser: number;
  lastSeenIntervalMs: number;
}

/** Creates a {@linkcode SessionStorage} over `store`. */
export function createIdSessionStorage(
  cookieOptions: SessionCookieOptions,
  store: SessionStore & { users: UserIndex },
  options?: IdStorageOptions,
): UserSessionStorage;
export function createIdSessionStorage(
  cookieOptions: SessionCookieOptions,
  store: SessionStore,
  options?: IdStorageOptions,
): SessionStorage;
export function createIdSessionStorage(
  cookieOptions: SessionCookieOptions,
  store: SessionStore,
  options: IdStorageOptions = {},
): SessionStorage | UserSessionStorage {
  const storage: IdStorage = {
    cookie: createSessionCookie(cookieOptions, SIGNED_ID_LENGTH),
    store,
    budgetMs: options.retryBudgetMs ?? RETRY_BUDGET_MS,
    queues: new Map(),
    ...userIndexOptions("session storage", options),
  };
  const base: SessionStorage = {
    read: (header) => readSession(storage, header),
    save: (session) => saveSession(storage, session),
  };
  const users = store.users;
  if (users === undefined) return base;
  return {
    ...base,
    listUserSessions: (userId) => listUserSessions(users, userId),
    destroyUserSession: (userId, id) =>
      destroyUserSession(storage, users, userId, id),
    destroyUserSessions: (userId, options) =>
      destroyUserSessions(storage, users, userId, options),
  };
}

function checkUserId(userId: unknown, owner: string): string {
  if (typeof userId !== "string" || userId === "") {
    throw new TypeError(`${owner}() needs a user id (a non-empty string)`);
  }
  return userId;
}

async function listUserSessions(
  users: UserIndex,
  userId: string,
): Promise<UserSession[]> {
  checkUserId(userId, "listUserSessions");
  const now = Date.now();
  const list: UserSession[] = [];
  for (const [id, entry] of await users.list(userId)) {
    if (entry.e <= now) continue;
    list.push({
      id,
      createdAt: new Date(entry.c),
      lastSeenAt: new Date(entry.s),
      expiresAt: new Date(entry.e),
      address: entry.a,
      userAgent: entry.ua,
    });
  }
  return list.sort((a, b) =>
    b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || (a.id < b.id ? -1 : 1)
  );
}

async function destroyUserSession(
  { store, budgetMs }: IdStorage,
  users: UserIndex,
  userId: string,
  id: string,
): Promise<boolean> {
  checkUserId(userId, "destroyUserSession");
  const entries = await users.list(userId);
  if (typeof id !== "string" || !entries.has(id)) return false;
  await store.delete(id, budgetOf(budgetMs), true);
  await users.remove(userId, [id]);
  return true;
}

async function destroyUserSessions(
  { store, budgetMs }: IdStorage,
  users: UserIndex,
  userId: string,
  options: DestroyUserSessionsOptions = {},
): Promise<number> {
  checkUserId(userId, "destroyUserSessions");
  const ids = [...(await users.list(userId)).keys()].filter((id) =>
    id !== options.except
  );
  const budget = budgetOf(budgetMs);
  await Promise.all(ids.map((id) => store.delete(id, budget, true)));
  if (ids.length !== 0) await users.remove(userId, ids);
  return ids.length;
}

/**
 * After a write of `record` under `id` (from `from`, the id it was
 * loaded with): keeps the user index up to date, and ends the sessions
 * the index evicted.
 */
async function indexWrite(
  { store, budgetMs, maxSessionsPerUser }: IdStorage,
  s: SessionState,
  id: string,
  record: SessionRecord,
  replaces: string | undefined,
): Promise<void> {
  const users = store.users;
  if (users === undefined) return;
  const user = record.u;
  // Bound to another user now: out of the old user's index.
  if (s.loadedUser !== undefined && s.loadedUser !== user?.i) {
    await users.remove(s.loadedUser, [s.loadedId!]);
  }
  if (user === undefined) return;
  const entry: UserIndexEntry = { c: user.c, s: user.s, e: record.e };
  if (user.a !== undefined) entry.a = user.a;
  if (user.ua !== undefined) entry.ua = user.ua;
  const evicted = await users.put(user.i, id, entry, {
    replaces,
    max: maxSessionsPerUser,
    // Not in the index yet: a sign-in, or a new id.
    fresh: s.loadedUser !== user.i || id !== s.loadedId,
  });
  if (evicted.length === 0) return;
  const budget = budgetOf(budgetMs);
  await Promise.all(evicted.map((old) => store.delete(old, budget, true)));
}

/** The live record under `id`: `null` when missing, unreadable or expired. */
async function loadLive(
  { store }: IdStorage,
  id: string,
  budget: Budget,
): Promise<LiveRecord | null> {
  const stored = await store.get(id, budget);
  if (stored === null) return null;
  const record = parseRecord(stored.json);
  if (record === null || record.e <= Date.now()) return null;
  return { record, version: stored.version };
}

/**
 * The session of the first validly signed id in the `Cookie` header that
 * names a live record; else a new, empty session.
 */
async function readSession(
  storage: IdStorage,
  header: string | null,
): Promise<Session> {
  const { cookie, budgetMs } = storage;
  let lookups = 0;
  for (const raw of cookie.candidates(header)) {
    const verified = cookie.verify(raw);
    if (verified === null || !SESSION_ID.test(verified.value)) continue;
    if (++lookups > MAX_LOOKUPS) break;
    const stored = await loadLive(storage, verified.value, budgetOf(budgetMs));
    // Unknown or expired: a new session with a new id, never this one.
    if (stored === null) continue;
    const session = loadSession(stored.record, verified.value, {
      version: stored.version,
      resign: verified.resign,
    });
    const user = stored.record.u;
    if (
      user !== undefined && storage.store.users !== undefined &&
      Date.now() - user.s >= storage.lastSeenIntervalMs
    ) {
      // Saved again, so the user's list shows when it was last seen.
      stateOf(session).dirty = true;
    }
    return session;
  }
  return new SessionObject();
}

/** Saves `session` if it changed; the `Set-Cookie` value, or `null`. */
async function saveSession(
  storage: IdStorage,
  session: Session,
): Promise<string | null> {
  const s = stateOf(session);
  const loadedId = s.loadedId;
  if (loadedId === undefined) {
    if (s.destroyed) return storage.cookie.expire();
    if (!s.dirty && !s.resign) return null;
    return saveNew(storage, session, s);
  }
  if (!s.dirty && !s.resign) return null;
  // One save of an id runs at a time in this process; those arriving
  // meanwhile are written together after it.
  const { queues } = storage;
  const running = queues.get(loadedId);
  if (running !== undefined) {
    return new Promise((resolve, reject) => {
      running.waiting.push({ session, s, resolve, reject });
    });
  }
  const queue: SaveQueue = { waiting: [], latest: undefined };
  queues.set(loadedId, queue);
  let failure: unknown;
  try {
    return await saveLoaded(storage, [{ session, s }], queue);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    if (queue.waiting.length === 0) queues.delete(loadedId);
    else drain(storage, loadedId, queue, failure);
  }
}

/**
 * After a save of `id` finished: writes the saves that waited for it, a
 * batch at a time, then drops the queue. After a store failure they fail
 * with the same error at once rather than each wait for it again.
 */
async function drain(
  storage: IdStorage,
  id: string,
  queue: SaveQueue,
  failure: unknown,
): Promise<void> {
  while (queue.waiting.length !== 0) {
    if (failure !== undefined && isStoreFailure(failure)) {
      for (const waiting of queue.waiting.splice(0)) waiting.reject(failure);
      break;
    }
    failure = undefined;
    const batch = takeBatch(queue.waiting);
    try {
      const setCookie = await saveLoaded(storage, batch, queue);
      for (const save of batch) save.resolve(setCookie);
    } catch (error) {
      if (batch.length === 1 || isStoreFailure(error)) {
        for (const save of batch) save.reject(error);
        failure = error;
        continue;
      }
      // One request's data (too large, say) failed the shared write:
      // write each on its own, so only that request fails.
      for (const save of batch) {
        try {
          save.resolve(await saveLoaded(storage, [save], queue));
        } catch (error) {
          save.reject(error);
        }
      }
    }
  }
  storage.queues.delete(id);
}

/**
 * Writes `saves` of one loaded session in one store write, in order (more
 * than one only when all are plain); the `Set-Cookie` value for them.
 */
async function saveLoaded(
  storage: IdStorage,
  saves: readonly Save[],
  queue: SaveQueue,
): Promise<string | null> {
  const { cookie, store, budgetMs } = storage;
  const { session, s } = saves[0];
  if (s.destroyed) {
    queue.latest = undefined;
    await store.delete(s.loadedId!, budgetOf(budgetMs), true);
    if (s.loadedUser !== undefined && store.users !== undefined) {
      await store.users.remove(s.loadedUser, [s.loadedId!]);
    }
    return cookie.expire();
  }
  const budget = budgetOf(budgetMs);
  const expiresAt = cookie.expiresAt();
  let loaded = { id: s.loadedId!, version: s.version };
  let record: SessionRecord;
  const latest = queue.latest;
  if (latest !== undefined && latest.version !== s.version) {
    // A write before this one changed the session after it was loaded:
    // build on what that write wrote, without reading it back.
    loaded = { id: loaded.id, version: latest.version };
    record = fold(latest.record, saves, expiresAt);
  } else {
    record = fold(undefined, saves, expiresAt);
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
      // The old id's entry goes only when its data went with it.
      await indexWrite(
        storage,
        s,
        id,
        record,
        id !== loaded.id && s.deleteId === loaded.id ? loaded.id : undefined,
      );
      break;
    }
    // Another server wrote the session since it was loaded.
    queue.latest = undefined;
    if (attempt > 1 && !await backoff(attempt - 1, budget)) {
      throw new SessionConflictError(attempt, elapsed(budget), budget.ms);
    }
    const current = await loadLive(storage, loaded.id, budget);
    // Destroyed (or regenerated away) meanwhile: do not bring it back,
    // and leave the browser's cookie alone, as it may already hold the
    // id that replaced it.
    if (current === null) return null;
    // Apply these requests' changes on top of what the other one wrote.
    loaded = { id: loaded.id, version: current.version };
    record = fold(current.record, saves, expiresAt);
  }
  return cookie.serialize(session.id);
}

/** Saves a new session under a fresh id. */
async function saveNew(
  storage: IdStorage,
  session: Session,
  s: SessionState,
): Promise<string> {
  const { cookie, store, budgetMs } = storage;
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
    if (written !== null) {
      await indexWrite(storage, s, session.id, record, undefined);
      return cookie.serialize(session.id);
    }
    if (elapsed(budget) > budget.ms) {
      throw new SessionConflictError(attempt, elapsed(budget), budget.ms);
    }
    // The new id clashed with an existing one: take another.
    s.id = createSessionId();
  }
}
