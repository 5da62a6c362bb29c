/**
 * A fixed-count limiter on Deno KV: at most `limit` attempts per key, with
 * the count forgotten `windowMs` after the last counted attempt.
 *
 * The time of the last attempt is kept in the value and checked on every
 * read, because KV's own `expireIn` is lazy (an expired entry can stay
 * readable for a while); `expireIn` is still set so old counters are
 * cleaned up. Updates are atomic, so concurrent attempts are all counted.
 * A refused attempt is not counted and does not push the window further,
 * so an attacker cannot keep an account locked for longer than one window
 * after their fifth attempt.
 *
 * @module
 */

/** The answer of {@linkcode RateLimiter.attempt}. */
export interface Attempt {
  /** `false` when the limit was reached: refuse the request. */
  allowed: boolean;
  /** When refused: milliseconds until an attempt is allowed again. */
  retryAfterMs: number;
}

/** Counts attempts per key. */
export interface RateLimiter {
  /** Counts one attempt for `key`, or refuses it when the limit is reached. */
  attempt(key: string): Promise<Attempt>;
  /** Forgets `key`'s attempts (after a success). */
  reset(key: string): Promise<void>;
}

/** Options of {@linkcode createKvRateLimiter}. */
export interface KvRateLimiterOptions {
  kv: Deno.Kv;
  /** Attempts allowed within the window. */
  limit: number;
  /** How long after the last attempt the count is forgotten. */
  windowMs: number;
  /** First part of the KV keys. Default `"rate_limit"`. */
  prefix?: string;
}

interface Counter {
  count: number;
  /** `Date.now()` of the last counted attempt. */
  last: number;
}

/** Creates a limiter that keeps its counters in `kv`. */
export function createKvRateLimiter(
  options: KvRateLimiterOptions,
): RateLimiter {
  const { kv, limit, windowMs, prefix = "rate_limit" } = options;
  if (!(limit >= 1) || !(windowMs > 0)) {
    throw new TypeError(
      `createKvRateLimiter(): limit must be >= 1 and windowMs > 0 (got ${limit}, ${windowMs})`,
    );
  }
  return {
    async attempt(key) {
      while (true) {
        const entry = await kv.get<Counter>([prefix, key]);
        const now = Date.now();
        const live = entry.value !== null && now - entry.value.last < windowMs;
        const count = live ? entry.value!.count : 0;
        if (count >= limit) {
          return {
            allowed: false,
            retryAfterMs: entry.value!.last + windowMs - now,
          };
        }
        const next: Counter = { count: count + 1, last: now };
        const result = await kv.atomic().check(entry)
          .set([prefix, key], next, { expireIn: windowMs }).commit();
        if (result.ok) return { allowed: true, retryAfterMs: 0 };
      }
    },
    async reset(key) {
      await kv.delete([prefix, key]);
    },
  };
}
