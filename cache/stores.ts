/**
 * The stores of cache() and idempotency(): the versioned store of
 * store/versioned*.ts under the names users import.
 *
 * @module
 */

import {
  type CacheSetOptions,
  type CacheStore,
  createMemoryStore,
  StoreFullError,
} from "./memory_store.ts";
import {
  createKvVersionedStore,
  KV_MAX_VALUE_BYTES,
  type VersionedKv,
} from "../store/versioned_kv.ts";
import {
  createRedisVersionedStore,
  type VersionedRedisClient,
} from "../store/versioned_redis.ts";

export type {
  KvKeyPart,
  VersionedKv,
  VersionedKvAtomic,
} from "../store/versioned_kv.ts";
export type {
  VersionedRedisClient,
  VersionedRedisEvalOptions,
} from "../store/versioned_redis.ts";
export type {
  VersionedSetOptions,
  VersionedStore,
  VersionedValue,
} from "../store/versioned.ts";
export { KV_MAX_VALUE_BYTES };
export { type CacheSetOptions, type CacheStore, StoreFullError };

/** Options of {@linkcode createMemoryCacheStore}. */
export interface MemoryCacheStoreOptions {
  /**
   * The most bytes kept (bodies, headers, keys and about 96 bytes an
   * entry); past it the least recently used cache entries go.
   *
   * @default {67108864} (64 MiB)
   */
  maxBytes?: number;
}

/**
 * A store in this process's memory. One entry may take up to an eighth of
 * `maxBytes`. Not shared between processes: use the Deno KV or Redis
 * store for that.
 *
 * Two kinds of entries share `maxBytes`. `cache()` entries are dropped,
 * least recently used first, to make room. `idempotency()` keys, in flight
 * or answered, are pinned: kept until they expire (`lockTimeout` while in
 * flight, then `ttl`), never dropped for other keys or for cache entries;
 * when pinned keys fill the store, a new key is refused (`idempotency()`
 * answers `503` with `Retry-After`) rather than an old one forgotten.
 *
 * @example
 * ```ts
 * import { cache, createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
 *
 * const store = createMemoryCacheStore({ maxBytes: 16 * 1024 * 1024 });
 * const middleware = cache({ store, ttl: 30 });
 * ```
 *
 * @param options The size limit.
 * @returns The store.
 * @throws {RangeError} When `maxBytes` is under 1024.
 */
export function createMemoryCacheStore(
  options: MemoryCacheStoreOptions = {},
): CacheStore {
  return createMemoryStore({ maxBytes: options.maxBytes ?? 64 * 1024 * 1024 });
}

/** Options of {@linkcode createKvCacheStore}. */
export interface KvCacheStoreOptions {
  /** An open Deno KV database (`await Deno.openKv()`, or `npm:@deno/kv`). */
  client: VersionedKv;
  /** First part of every key. Default `"cache"`. */
  prefix?: string;
  /**
   * Milliseconds one store call may take before it fails as an outage.
   *
   * @default {5000}
   */
  timeout?: number;
}

/**
 * A store on Deno KV, shared by every process that opens the same
 * database. Deno KV refuses values over 64 KiB, so an entry may take up
 * to 65,280 bytes, of which `cache()` and `idempotency()` leave 8 KiB for
 * the status, headers and times: bodies up to 57,088 bytes are kept.
 * Larger bodies are not split over several entries: `cache()` passes
 * such a response through unstored (`X-Cache: MISS`), and
 * `idempotency()` keeps its status and headers but not its body. Use the
 * Redis store (8 MiB entries by default) for larger responses. Each entry keeps its own expiry time, checked on
 * read, since KV deletes expired keys lazily.
 *
 * @example
 * ```ts
 * import { cache, createKvCacheStore } from "@fetchkit/toolkit/cache-middleware";
 *
 * // A file such as "./app.sqlite" in production; ":memory:" here.
 * const kv = await Deno.openKv(":memory:");
 * const middleware = cache({ store: createKvCacheStore({ client: kv }) });
 * kv.close();
 * ```
 *
 * @param options The database and the key prefix.
 * @returns The store.
 * @throws {TypeError} When `client` is not a KV database.
 */
export function createKvCacheStore(options: KvCacheStoreOptions): CacheStore {
  return createKvVersionedStore({
    client: options?.client,
    prefix: options?.prefix ?? "cache",
    timeout: options?.timeout,
  });
}

/** Options of {@linkcode createRedisCacheStore}. */
export interface RedisCacheStoreOptions {
  /**
   * A connected client (`npm:redis`): `createClient()`, or
   * `createCluster()` for Redis Cluster (each entry is one key, so
   * entries spread over the masters).
   */
  client: VersionedRedisClient;
  /** Prefix of every key. Default `"cache:"`. */
  prefix?: string;
  /**
   * How a `durable` write (an idempotency claim or answer) is confirmed:
   * `"replica"` (default for a cluster client) once a replica has it
   * (`WAIT 1 <replicaTimeout>`), else a 503; `"none"` (default for one
   * node) once the master has it; `"replica-aof"` as `"replica"`, with
   * `WAITAOF 0 1` (the replica's append-only file has it too; Redis 7.2
   * and later). Cached answers are never waited for.
   */
  durability?: "replica" | "replica-aof" | "none";
  /** Milliseconds a replica has to confirm. Default 1000. */
  replicaTimeout?: number;
  /**
   * The largest entry, in bytes.
   *
   * @default {8388608} (8 MiB)
   */
  maxEntryBytes?: number;
  /**
   * Milliseconds one store call may take before it fails as an outage
   * (node-redis queues commands while disconnected).
   *
   * @default {5000}
   */
  timeout?: number;
}

/**
 * A store on Redis, shared by every process that uses the same Redis:
 * one `GET` per lookup, entries expire with Redis' own `PX`. With an
 * `npm:redis` client, the store reads binary replies through the client's
 * `withTypeMapping` (the client itself is left as it is).
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { cache, createRedisCacheStore } from "@fetchkit/toolkit/cache-middleware";
 *
 * const client = await createClient({ url: "redis://127.0.0.1:6379" }).connect();
 * const middleware = cache({ store: createRedisCacheStore({ client }) });
 * ```
 *
 * @param options The client, the key prefix and the entry size limit.
 * @returns The store.
 * @throws {TypeError} When `client` lacks `get`, `set`, `del` or `eval`.
 */
export function createRedisCacheStore(
  options: RedisCacheStoreOptions,
): CacheStore {
  return createRedisVersionedStore({
    client: options?.client,
    prefix: options?.prefix ?? "cache:",
    maxValueBytes: options?.maxEntryBytes,
    timeout: options?.timeout,
    durability: options?.durability,
    replicaTimeout: options?.replicaTimeout,
  });
}
