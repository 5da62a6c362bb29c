/**
 * The memory store of `cache()` and `idempotency()`: a versioned store in
 * this process's memory with two kinds of entries. Cache entries are an
 * optimisation, dropped least recently used first when room is needed.
 * Pinned entries (idempotency keys, in flight or answered) are kept until
 * they expire: nothing evicts them, and when pinned entries fill the store
 * a new one is refused with {@linkcode StoreFullError} instead. Shared by
 * `cache/` and `idempotency/`; not a public export by itself.
 *
 * @module
 */

import {
  checkSet,
  type VersionedSetOptions,
  type VersionedStore,
} from "../store/versioned.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { countStoreCall, storeCallObservers } from "../store/observe.ts";

// Store calls as metrics count them (`store_operations_total`), named as
// the Deno KV store names its.
const GET = { store: "memory", what: "get" };
const SET = { store: "memory", what: "set" };
const DELETE = { store: "memory", what: "delete" };

/** Options of `set` on a cache store: the versioned store's, and more. */
export interface CacheSetOptions extends VersionedSetOptions {
  /**
   * Keep the entry until it expires: never dropped to make room (an
   * idempotency key). When pinned entries leave no room, `set` throws a
   * {@linkcode StoreFullError}. Stores that never evict ignore it.
   */
  pinned?: boolean;
  /**
   * Bytes to hold for the entry, when more than it takes now: an entry in
   * flight reserves the room its final value will need, so that writing
   * that value over it cannot fail for want of room.
   */
  reserveBytes?: number;
}

/**
 * Where `cache()` keeps responses and `idempotency()` keeps keys: a
 * versioned key/value store with expiry. `set` also takes
 * {@linkcode CacheSetOptions} (`pinned`, `reserveBytes`), which the memory
 * store honours.
 */
export interface CacheStore extends VersionedStore {
  /**
   * Writes an entry. Resolves to its new version, or `undefined` when
   * `ifVersion` did not hold (nothing was written).
   *
   * @throws {RangeError} When the value is over `maxValueBytes`.
   * @throws {StoreFullError} When no room can be made for it.
   */
  set(
    key: string,
    value: Uint8Array,
    options: CacheSetOptions,
  ): Promise<string | undefined>;
}

/**
 * A store had no room for an entry it must not drop: the entries it may
 * not evict (idempotency keys in flight or answered) fill it. A
 * `StoreUnavailableError` (`503` with `Retry-After`) the application can
 * tell apart.
 *
 * @example
 * ```ts
 * import { StoreFullError } from "@fetchkit/toolkit/idempotency-middleware";
 *
 * const error = new StoreFullError("memory", 1024);
 * console.log(error.toResponse().status); // 503
 * ```
 */
export class StoreFullError extends StoreUnavailableError {
  /** The store's size limit, in bytes. */
  readonly maxBytes: number;

  /**
   * Creates the error for `store`, full at `maxBytes`.
   *
   * @param store The store's name.
   * @param maxBytes Its size limit.
   * @param retryAfterSeconds The `Retry-After` for the client.
   */
  constructor(store: string, maxBytes: number, retryAfterSeconds = 60) {
    super(
      store,
      `the ${store} store is full: entries that are kept until they expire (idempotency keys) fill its ${maxBytes} bytes`,
      { retryAfterSeconds },
    );
    this.name = "StoreFullError";
    this.maxBytes = maxBytes;
  }
}

/**
 * The memory store's synchronous read: a memory hit needs no `await`, so
 * `cache()` can answer it in the same call (no promise for the router or
 * the server to wait on). Symbol-keyed: not part of the store interface.
 */
export const PEEK: unique symbol = Symbol("fetchkit.memoryStore.peek");

/**
 * What {@linkcode PEEK} gives: the entry's value and version (the store's
 * own record; not to be changed) and `memo`, a slot the reader may fill
 * with what it made of `value` (kept while this value is, dropped with it).
 */
export interface PeekedValue {
  readonly value: Uint8Array;
  readonly version: string;
  memo?: unknown;
}

interface Entry {
  value: Uint8Array;
  version: string;
  memo?: unknown;
  expiresAt: number;
  /** What it counts against `maxBytes`: its size or its reservation. */
  bytes: number;
  pinned: boolean;
}

/** Bytes an entry costs beyond its value: the key and the bookkeeping. */
function costOf(key: string, value: Uint8Array): number {
  return 2 * key.length + value.byteLength + 96;
}

/** Options of {@linkcode createMemoryStore}. */
export interface MemoryStoreOptions {
  /** The most bytes the entries may take. */
  maxBytes: number;
}

/** A memory store, with what it holds. */
export interface MemoryStore extends CacheStore {
  /**
   * Reads an entry now, as `get` does (it counts as a use for eviction):
   * `undefined` when there is none or it expired at `now`.
   */
  [PEEK](key: string, now: number): PeekedValue | undefined;
  /** Bytes the entries count now. */
  readonly bytes: number;
  /** Bytes the pinned entries count now. */
  readonly pinnedBytes: number;
}

/**
 * A memory store: cache entries dropped least recently used first past
 * `maxBytes`, pinned entries kept until they expire.
 */
export function createMemoryStore(options: MemoryStoreOptions): MemoryStore {
  const maxBytes = options.maxBytes;
  if (!(maxBytes >= 1024) || !Number.isFinite(maxBytes)) {
    throw new RangeError(
      `maxBytes must be a finite number of bytes >= 1024, got ${maxBytes}`,
    );
  }
  const maxValueBytes = Math.floor(maxBytes / 8);
  // Least recently used first (a Map keeps insertion order).
  const evictable = new Map<string, Entry>();
  const pinned = new Map<string, Entry>();
  let bytes = 0;
  // The cache entry put last in `evictable`: already the most recently
  // used, so a read of it (a hot page's hits) moves nothing.
  let newest: Entry | undefined;
  let pinnedBytes = 0;
  let counter = Math.floor(Math.random() * 1e9);
  let lastSweep = 0;

  function find(key: string): Entry | undefined {
    return evictable.get(key) ?? pinned.get(key);
  }

  function remove(key: string, entry: Entry): void {
    (entry.pinned ? pinned : evictable).delete(key);
    if (entry === newest) newest = undefined;
    bytes -= entry.bytes;
    if (entry.pinned) pinnedBytes -= entry.bytes;
  }

  function add(key: string, entry: Entry): void {
    (entry.pinned ? pinned : evictable).set(key, entry);
    if (!entry.pinned) newest = entry;
    bytes += entry.bytes;
    if (entry.pinned) pinnedBytes += entry.bytes;
  }

  function live(key: string, now: number): Entry | undefined {
    const entry = find(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      remove(key, entry);
      return undefined;
    }
    return entry;
  }

  /**
   * Makes room for `needed` more bytes: expired pinned entries first (at
   * most once a second, as it walks them all), then cache entries, least
   * recently used first. Whether there is room now.
   */
  function makeRoom(needed: number, now: number): boolean {
    if (bytes + needed <= maxBytes) return true;
    if (now - lastSweep >= 1000) {
      lastSweep = now;
      for (const [key, entry] of pinned) {
        if (entry.expiresAt <= now) remove(key, entry);
      }
    }
    for (const [key, entry] of evictable) {
      if (bytes + needed <= maxBytes) break;
      remove(key, entry);
    }
    return bytes + needed <= maxBytes;
  }

  function countedPeek(key: string, now: number): Entry | undefined {
    return storeCallObservers().length === 0
      ? peek(key, now)
      : countStoreCall(GET, () => peek(key, now));
  }

  function peek(key: string, now: number): Entry | undefined {
    const entry = live(key, now);
    if (entry !== undefined && !entry.pinned && entry !== newest) {
      // Most recently used last.
      evictable.delete(key);
      evictable.set(key, entry);
      newest = entry;
    }
    return entry;
  }

  const store: MemoryStore = {
    name: "memory",
    maxValueBytes,
    get bytes() {
      return bytes;
    },
    get pinnedBytes() {
      return pinnedBytes;
    },
    // Reads of every cached request: no closure unless observed, and
    // counted as the synchronous reads they are.
    [PEEK]: countedPeek,
    get(key) {
      const entry = countedPeek(key, Date.now());
      if (entry === undefined) return Promise.resolve(undefined);
      return Promise.resolve({ value: entry.value, version: entry.version });
    },
    set(key, value, options) {
      try {
        return Promise.resolve(
          countStoreCall(SET, () => set(key, value, options)),
        );
      } catch (error) {
        return Promise.reject(error);
      }
    },
    delete: (key, options) =>
      Promise.resolve(
        countStoreCall(DELETE, () => deleteEntry(key, options)),
      ),
  };
  return store;

  function set(
    key: string,
    value: Uint8Array,
    options: CacheSetOptions,
  ): string | undefined {
    const ttl = checkSet(store, value, options);
    const now = Date.now();
    const current = live(key, now);
    const expected = options.ifVersion;
    if (
      expected !== undefined &&
      (expected === null
        ? current !== undefined
        : current?.version !== expected)
    ) {
      return undefined;
    }
    const isPinned = options.pinned === true;
    const size = Math.max(
      costOf(key, value),
      Math.min(
        options.reserveBytes ?? 0,
        maxValueBytes + 2 * key.length + 96,
      ),
    );
    if (current !== undefined) remove(key, current);
    if (!makeRoom(size, now)) {
      // Nothing dropped that must be kept: the old entry stays.
      if (current !== undefined) add(key, current);
      throw new StoreFullError("memory", maxBytes);
    }
    const entry: Entry = {
      value,
      version: (++counter).toString(36),
      expiresAt: now + ttl,
      bytes: size,
      pinned: isPinned,
    };
    add(key, entry);
    return entry.version;
  }

  function deleteEntry(
    key: string,
    options?: { ifVersion?: string },
  ): boolean {
    const current = live(key, Date.now());
    if (current === undefined) {
      return options?.ifVersion === undefined;
    }
    if (
      options?.ifVersion !== undefined &&
      current.version !== options.ifVersion
    ) {
      return false;
    }
    remove(key, current);
    return true;
  }
}
