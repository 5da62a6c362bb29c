/**
 * What a rate-limit store does, for those who write their own.
 *
 * @module
 */

/**
 * A policy: `limit` requests per `windowMs`, as GCRA counts them (see
 * `rateLimit()`).
 */
export interface RateLimitPolicy {
  /** Requests allowed back to back, and per window on average. */
  readonly limit: number;
  /** The window, in milliseconds. */
  readonly windowMs: number;
}

/** The answer for one counted request. */
export interface RateLimitResult {
  /** `false`: over the limit; the request was not counted. */
  readonly allowed: boolean;
  /** The policy's `limit`. */
  readonly limit: number;
  /** Requests that may follow right away. */
  readonly remaining: number;
  /** Milliseconds until the full `limit` is available again. */
  readonly resetMs: number;
  /** When refused: milliseconds until one request is allowed; else `0`. */
  readonly retryAfterMs: number;
}

/**
 * Keeps rate-limit state. Each store keeps, per key, one number: the
 * GCRA "theoretical arrival time", so a custom store only needs an atomic
 * read-modify-write of it.
 *
 * @example A store that forwards to the memory store, counting calls
 * ```ts
 * import {
 *   createMemoryRateLimitStore,
 *   type RateLimitStore,
 * } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * const inner = createMemoryRateLimitStore();
 * let calls = 0;
 * const store: RateLimitStore = {
 *   hit(key, policy) {
 *     calls++;
 *     return inner.hit(key, policy);
 *   },
 *   reset: (key) => inner.reset(key),
 * };
 * ```
 */
export interface RateLimitStore {
  /**
   * Counts one request for `key` under `policy`, unless it is over the
   * limit; atomic, so concurrent requests are each counted once.
   */
  hit(
    key: string,
    policy: RateLimitPolicy,
  ): RateLimitResult | Promise<RateLimitResult>;
  /** Forgets `key`: its full limit is available again. */
  reset(key: string): void | Promise<void>;
}

// Sub-millisecond slack for floating-point sums of windowMs / limit.
const EPSILON = 1e-6;

/**
 * GCRA, one step: `tat` is the stored theoretical arrival time (0 when
 * none), `now` the current time, both in ms. Returns whether the request
 * passes, and the time to store (`tat` unchanged when refused).
 */
export function gcra(
  tat: number,
  now: number,
  policy: RateLimitPolicy,
): { allowed: boolean; tat: number } {
  const interval = policy.windowMs / policy.limit;
  const next = (tat > now ? tat : now) + interval;
  return next - now > policy.windowMs + EPSILON
    ? { allowed: false, tat }
    : { allowed: true, tat: next };
}

/**
 * The result, from whether the request passed and `delta`: the stored
 * arrival time minus now (after the update when allowed).
 */
export function resultOf(
  allowed: boolean,
  delta: number,
  policy: RateLimitPolicy,
): RateLimitResult {
  const { limit, windowMs } = policy;
  const interval = windowMs / limit;
  if (delta < 0) delta = 0;
  if (allowed) {
    return {
      allowed,
      limit,
      remaining: Math.max(
        0,
        Math.floor((windowMs - delta) / interval + EPSILON),
      ),
      resetMs: delta,
      retryAfterMs: 0,
    };
  }
  return {
    allowed,
    limit,
    remaining: 0,
    resetMs: delta,
    retryAfterMs: Math.max(0, delta + interval - windowMs),
  };
}
