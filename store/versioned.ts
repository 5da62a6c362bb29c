/**
 * A versioned key/value store with expiry: `get`, compare-and-set and
 * delete, the operations a response cache, idempotency keys and locks
 * across processes need. Three kinds share this shape: memory (this
 * file), Deno KV (`versioned_kv.ts`) and Redis (`versioned_redis.ts`).
 *
 * @module
 */

/** A value read from a {@linkcode VersionedStore}, with its version. */
export interface VersionedValue {
  /** The bytes stored. */
  value: Uint8Array;
  /** Changes on every write; pass it to `set` or `delete` as `ifVersion`. */
  version: string;
}

/** Options of {@linkcode VersionedStore.set}. */
export interface VersionedSetOptions {
  /** Milliseconds until the entry expires (at least 1). */
  ttlMs: number;
  /**
   * Write only if the entry still has this version; `null`: only if there
   * is no entry. Left out: write whatever is there.
   */
  ifVersion?: string | null;
  /**
   * A write that must survive the loss of the store's primary (an
   * idempotency claim or answer): a store that replicates confirms it
   * only once a replica has it, where it is set to (Redis:
   * `durability: "replica"`), else fails with a `StoreUnavailableError`.
   * A new entry (`ifVersion: null`) that no replica confirmed is taken
   * back first. Stores without replicas ignore it.
   */
  durable?: boolean;
}

/**
 * A key/value store with versions and expiry, shared by every process that
 * opens the same backend (the memory kind: one process).
 *
 * Keys are strings; a store may hash a long one. An expired entry is never
 * returned, however lazily the backend deletes it.
 */
export interface VersionedStore {
  /** What the store is, for error messages: `"memory"`, `"Deno KV"`, `"Redis"`. */
  readonly name: string;
  /** The largest value `set` accepts, in bytes. */
  readonly maxValueBytes: number;
  /** Reads an entry; `undefined` when there is none or it expired. */
  get(key: string): Promise<VersionedValue | undefined>;
  /**
   * Writes an entry. Resolves to its new version, or `undefined` when
   * `ifVersion` did not hold (nothing was written).
   *
   * @throws {RangeError} When the value is over `maxValueBytes`.
   */
  set(
    key: string,
    value: Uint8Array,
    options: VersionedSetOptions,
  ): Promise<string | undefined>;
  /**
   * Deletes an entry; with `ifVersion`, only if it still has that version.
   * Resolves to `false` when the check failed.
   */
  delete(key: string, options?: { ifVersion?: string }): Promise<boolean>;
}

/** A random version or token: 16 hexadecimal digits (64 bits). */
export function randomVersion(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let text = "";
  for (const byte of bytes) text += byte.toString(16).padStart(2, "0");
  return text;
}

/** Checks `set`'s arguments, the same way for every store. */
export function checkSet(
  store: VersionedStore,
  value: Uint8Array,
  options: VersionedSetOptions,
): number {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${store.name} store: a value must be a Uint8Array`);
  }
  if (value.byteLength > store.maxValueBytes) {
    throw new RangeError(
      `${store.name} store: a value of ${value.byteLength} bytes is over the limit of ${store.maxValueBytes} bytes`,
    );
  }
  const ttl = Math.ceil(options?.ttlMs);
  if (!(ttl >= 1) || !Number.isFinite(ttl)) {
    throw new RangeError(
      `${store.name} store: ttlMs must be a finite number of milliseconds >= 1, got ${options?.ttlMs}`,
    );
  }
  return ttl;
}

interface MemoryEntry {
  value: Uint8Array;
  version: string;
  expiresAt: number;
  bytes: number;
}

/** Bytes an entry costs beyond its value: the key and the bookkeeping. */
function costOf(key: string, value: Uint8Array): number {
  return 2 * key.length + value.byteLength + 96;
}

/** Options of {@linkcode createMemoryVersionedStore}. */
export interface MemoryVersionedStoreOptions {
  /**
   * The most bytes the entries may take (values, keys and about 96 bytes
   * each); past it the least recently used are dropped.
   *
   * @default {67108864} (64 MiB)
   */
  maxBytes?: number;
  /**
   * The largest value, in bytes.
   *
   * @default {maxBytes / 8}
   */
  maxValueBytes?: number;
}

/** A memory store, with how many bytes it holds. */
export interface MemoryVersionedStore extends VersionedStore {
  /** Bytes the entries take now. */
  readonly bytes: number;
  /** Number of entries (expired ones included until touched). */
  readonly size: number;
}

/**
 * A versioned store in this process's memory, least recently used entries
 * dropped past `maxBytes`. Versions count up from a random start.
 */
export function createMemoryVersionedStore(
  options: MemoryVersionedStoreOptions = {},
): MemoryVersionedStore {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  if (!(maxBytes >= 1024) || !Number.isFinite(maxBytes)) {
    throw new RangeError(
      `maxBytes must be a finite number of bytes >= 1024, got ${maxBytes}`,
    );
  }
  const maxValueBytes = options.maxValueBytes ?? Math.floor(maxBytes / 8);
  if (!(maxValueBytes >= 1) || maxValueBytes > maxBytes) {
    throw new RangeError(
      `maxValueBytes must be between 1 and maxBytes (${maxBytes}), got ${maxValueBytes}`,
    );
  }
  const entries = new Map<string, MemoryEntry>();
  let bytes = 0;
  let counter = Math.floor(Math.random() * 1e9);

  function live(key: string, now: number): MemoryEntry | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      entries.delete(key);
      bytes -= entry.bytes;
      return undefined;
    }
    return entry;
  }

  const store: MemoryVersionedStore = {
    name: "memory",
    maxValueBytes,
    get bytes() {
      return bytes;
    },
    get size() {
      return entries.size;
    },
    get(key) {
      const entry = live(key, Date.now());
      if (entry === undefined) return Promise.resolve(undefined);
      // Most recently used last: Map keeps insertion order.
      entries.delete(key);
      entries.set(key, entry);
      return Promise.resolve({ value: entry.value, version: entry.version });
    },
    // deno-lint-ignore require-await
    async set(key, value, options) {
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
      if (current !== undefined) {
        entries.delete(key);
        bytes -= current.bytes;
      }
      const entry: MemoryEntry = {
        value,
        version: (++counter).toString(36),
        expiresAt: now + ttl,
        bytes: costOf(key, value),
      };
      entries.set(key, entry);
      bytes += entry.bytes;
      for (const [oldest, old] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(oldest);
        bytes -= old.bytes;
      }
      return entries.has(key) ? entry.version : undefined;
    },
    delete(key, options) {
      const current = live(key, Date.now());
      if (current === undefined) {
        return Promise.resolve(options?.ifVersion === undefined);
      }
      if (
        options?.ifVersion !== undefined &&
        current.version !== options.ifVersion
      ) {
        return Promise.resolve(false);
      }
      entries.delete(key);
      bytes -= current.bytes;
      return Promise.resolve(true);
    },
  };
  return store;
}
