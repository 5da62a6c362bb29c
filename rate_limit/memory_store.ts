/**
 * The in-process rate-limit store: state in a `Map`, lost on restart and
 * not shared between processes.
 *
 * @module
 */

import {
  gcra,
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
 * memory follows the number of clients active within one window.
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
  let sweepAt = 1024;

  function sweep(now: number): void {
    for (const [key, tat] of arrivals) {
      if (tat <= now) arrivals.delete(key);
    }
    sweepAt = Math.max(1024, arrivals.size * 2);
  }

  return {
    hit(key, policy) {
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
    },
  };
}
