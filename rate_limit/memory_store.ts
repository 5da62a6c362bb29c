/**
 * The in-process rate-limit store: state in a `Map`, lost on restart and
 * not shared between processes.
 *
 * @module
 */

import { countStoreCall, storeCallObservers } from "../store/observe.ts";
import {
  algorithmOf,
  gcra,
  gcraGiveBack,
  lockoutResult,
  type LockoutState,
  type RateLimitPolicy,
  type RateLimitResult,
  type RateLimitStore,
  resultOf,
} from "./store.ts";

/** The memory store: it answers synchronously. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** Counts one request for `key`, unless it is over the limit. */
  hit(key: string, policy: RateLimitPolicy): RateLimitResult;
  /** Forgets `key`. */
  reset(key: string): void;
  /** Gives back one counted request of `key`. */
  giveBack(key: string, policy: RateLimitPolicy): void;
  /** Keys held now (both algorithms), expired ones not yet swept included. */
  readonly size: number;
}

/** Options of {@linkcode createMemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /**
   * The most keys held at once. When a new key comes and the store is
   * full, expired keys are swept first; if it is still full, the new
   * key's request is refused (`429`, with `Retry-After` until the earliest
   * held key expires), and keys already held are counted as before.
   *
   * @default {100_000}
   */
  maxKeys?: number;
}

/** Default of {@linkcode MemoryRateLimitStoreOptions.maxKeys}. */
export const DEFAULT_MAX_KEYS = 100_000;
/**
 * The longest key the store takes. `rateLimit()` stores a key longer than
 * 256 characters as its SHA-256, so its keys (name, `:`, key) stay below
 * 330; a longer one is refused before any lookup, as V8 hashes strings
 * over 16,383 characters by their length alone, so long keys of one
 * length would all collide in the map.
 */
export const MAX_STORE_KEY_LENGTH = 512;
// Once full, at most one sweep per second: a sweep walks every key.
const FULL_SWEEP_INTERVAL_MS = 1000;

// Store calls as metrics count them (`store_operations_total`), named as
// the Redis and Deno KV stores name theirs.
const HIT = { store: "memory", what: "rate limit" };
const RESET = { store: "memory", what: "rate limit reset" };

/**
 * Creates a store that keeps rate-limit state in this process. Answers
 * synchronously, so a memory-backed `rateLimit()` adds no I/O. Entries of
 * keys whose limit is fully restored are dropped as the map grows, so
 * memory follows the number of clients active within one window. Counts
 * both algorithms (`policy.algorithm`).
 *
 * Memory is bounded by `maxKeys` (100,000 by default: 11 MB for GCRA, 17
 * MB for lockouts, with keys such as `login-email:user1@example.com`; see
 * BENCHMARKS.md): a client choosing its keys (an email field, say) cannot
 * grow it further. When full, a request under a key the store does not
 * hold is refused rather than another key evicted: evicting would let a
 * flood of fresh keys erase the count of an account under attack. Keys
 * longer than {@linkcode MAX_STORE_KEY_LENGTH} are refused with a
 * `RangeError`.
 *
 * For several processes or servers, use the KV or Redis store.
 *
 * @example
 * ```ts
 * import {
 *   createMemoryRateLimitStore,
 *   rateLimit,
 * } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const store = createMemoryRateLimitStore({ maxKeys: 50_000 });
 * const perMinute = rateLimit({ limit: 60, windowMs: 60_000, store });
 * const result = store.hit("client", { limit: 2, windowMs: 1000 });
 * result.remaining; // 1
 * ```
 *
 * @param options The bound on keys.
 * @returns The store.
 * @throws {TypeError} When `maxKeys` is not a whole number ≥ 1.
 */
export function createMemoryRateLimitStore(
  options: MemoryRateLimitStoreOptions = {},
): MemoryRateLimitStore {
  const maxKeys = options?.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
    throw new TypeError(
      `createMemoryRateLimitStore(): maxKeys must be a whole number >= 1, got ${maxKeys}`,
    );
  }
  const arrivals = new Map<string, number>();
  // Lockout counts, each with the time it is forgotten.
  const counts = new Map<string, LockoutState & { until: number }>();
  let sweepAt = 1024;
  let sweepCountsAt = 1024;
  // While full: no new key before this time (the earliest expiry, or the
  // next allowed sweep).
  let fullUntil = 0;

  function sweep(now: number): void {
    for (const [key, tat] of arrivals) {
      if (tat <= now) arrivals.delete(key);
    }
    sweepAt = Math.max(1024, arrivals.size * 2);
  }

  function sweepCounts(now: number): void {
    for (const [key, entry] of counts) {
      if (entry.until <= now) counts.delete(key);
    }
    sweepCountsAt = Math.max(1024, counts.size * 2);
  }

  /**
   * Whether a new key fits; when the store is full, sweeps (at most once
   * a second) and otherwise notes until when it stays full.
   */
  function roomFor(now: number): boolean {
    if (arrivals.size + counts.size < maxKeys) return true;
    if (now < fullUntil) return false;
    sweep(now);
    sweepCounts(now);
    if (arrivals.size + counts.size < maxKeys) return true;
    let earliest = Infinity;
    for (const tat of arrivals.values()) if (tat < earliest) earliest = tat;
    for (const entry of counts.values()) {
      if (entry.until < earliest) earliest = entry.until;
    }
    fullUntil = Math.max(earliest, now + FULL_SWEEP_INTERVAL_MS);
    return false;
  }

  function full(now: number, policy: RateLimitPolicy): RateLimitResult {
    const wait = Math.max(1, fullUntil - now);
    return {
      allowed: false,
      limit: policy.limit,
      remaining: 0,
      resetMs: wait,
      retryAfterMs: wait,
    };
  }

  function checkKey(key: string): void {
    if (key.length > MAX_STORE_KEY_LENGTH) {
      throw new RangeError(
        `Rate limit memory store: a key of ${key.length} characters; the limit is ${MAX_STORE_KEY_LENGTH} (rateLimit() stores long keys as their SHA-256)`,
      );
    }
  }

  // The lockout step (see `lockout()` in store.ts), updating the entry in
  // place: no allocation but the result.
  function hitLockout(key: string, policy: RateLimitPolicy): RateLimitResult {
    const now = Date.now();
    const { limit, windowMs } = policy;
    const entry = counts.get(key);
    if (entry !== undefined && entry.until > now) {
      if (entry.count >= limit) {
        return lockoutResult(false, entry.count, entry.until - now, policy);
      }
      entry.count++;
      entry.last = now;
      entry.until = now + windowMs;
      return lockoutResult(true, entry.count, windowMs, policy);
    }
    if (entry === undefined && !roomFor(now)) return full(now, policy);
    counts.set(key, { count: 1, last: now, until: now + windowMs });
    if (counts.size > sweepCountsAt) sweepCounts(now);
    return lockoutResult(true, 1, windowMs, policy);
  }

  function hit(key: string, policy: RateLimitPolicy): RateLimitResult {
    checkKey(key);
    const algorithm = policy.algorithm;
    if (algorithm !== undefined && algorithm !== "gcra") {
      if (algorithm === "lockout") return hitLockout(key, policy);
      algorithmOf(policy); // throws: an algorithm this store does not know
    }
    const now = Date.now();
    const stored = arrivals.get(key);
    const step = gcra(stored ?? 0, now, policy);
    if (step.allowed) {
      if (stored === undefined && !roomFor(now)) return full(now, policy);
      arrivals.set(key, step.tat);
      if (arrivals.size > sweepAt) sweep(now);
    }
    return resultOf(step.allowed, step.tat - now, policy);
  }

  function reset(key: string): void {
    checkKey(key);
    arrivals.delete(key);
    counts.delete(key);
  }

  function giveBack(key: string, policy: RateLimitPolicy): void {
    checkKey(key);
    const now = Date.now();
    if (algorithmOf(policy) === "lockout") {
      const entry = counts.get(key);
      if (entry === undefined) return;
      if (entry.until <= now || entry.count <= 1) counts.delete(key);
      else entry.count--;
      return;
    }
    const tat = arrivals.get(key);
    if (tat === undefined) return;
    const back = gcraGiveBack(tat, now, policy);
    if (back === 0) arrivals.delete(key);
    else arrivals.set(key, back);
  }

  return {
    // A hit of every request: no closure unless observed.
    hit: (key, policy) =>
      storeCallObservers().length === 0
        ? hit(key, policy)
        : countStoreCall(HIT, () => hit(key, policy)),
    reset: (key) => countStoreCall(RESET, () => reset(key)),
    giveBack: (key, policy) => countStoreCall(HIT, () => giveBack(key, policy)),
    get size() {
      return arrivals.size + counts.size;
    },
  };
}
