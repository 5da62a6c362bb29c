/**
 * The in-process rate-limit store: state in a `Map`, lost on restart and
 * not shared between processes.
 *
 * @module
 */

import {
  algorithmOf,
  gcra,
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
}

/**
 * Creates a store that keeps rate-limit state in this process. Answers
 * synchronously, so a memory-backed `rateLimit()` adds no I/O. Entries of
 * keys whose limit is fully restored are dropped as the map grows, so
 * memory follows the number of clients active within one window. Counts
 * both algorithms (`policy.algorithm`).
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
 * const store = createMemoryRateLimitStore();
 * const perMinute = rateLimit({ limit: 60, windowMs: 60_000, store });
 * const result = store.hit("client", { limit: 2, windowMs: 1000 });
 * result.remaining; // 1
 * ```
 *
 * @returns The store.
 */
export function createMemoryRateLimitStore(): MemoryRateLimitStore {
  const arrivals = new Map<string, number>();
  // Lockout counts, each with the time it is forgotten.
  const counts = new Map<string, LockoutState & { until: number }>();
  let sweepAt = 1024;
  let sweepCountsAt = 1024;

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
    counts.set(key, { count: 1, last: now, until: now + windowMs });
    if (counts.size > sweepCountsAt) sweepCounts(now);
    return lockoutResult(true, 1, windowMs, policy);
  }

  return {
    hit(key, policy) {
      const algorithm = policy.algorithm;
      if (algorithm !== undefined && algorithm !== "gcra") {
        if (algorithm === "lockout") return hitLockout(key, policy);
        algorithmOf(policy); // throws: an algorithm this store does not know
      }
      const now = Date.now();
      const stored = arrivals.get(key) ?? 0;
      const step = gcra(stored, now, policy);
      if (step.allowed) {
        arrivals.set(key, step.tat);
        if (arrivals.size > sweepAt) sweep(now);
      }
      return resultOf(step.allowed, step.tat - now, policy);
    },
    reset(key) {
      arrivals.delete(key);
      counts.delete(key);
    },
  };
}
