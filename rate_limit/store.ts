/**
 * What a rate-limit store does, for those who write their own.
 *
 * @module
 */

/**
 * How a limiter counts (see `rateLimit()`):
 *
 * - `"gcra"`: a token bucket; `limit` back to back, then one request
 *   every `windowMs / limit`.
 * - `"lockout"`: a count per key, forgotten `windowMs` after the last
 *   counted request; once it reaches `limit`, every request is refused
 *   (and not counted) until then.
 */
export type RateLimitAlgorithm = "gcra" | "lockout";

/** A policy: `limit` requests per `windowMs`, counted by `algorithm`. */
export interface RateLimitPolicy {
  /** Requests allowed back to back (and, for GCRA, per window on average). */
  readonly limit: number;
  /** The window, in milliseconds. */
  readonly windowMs: number;
  /**
   * How requests are counted; a store must refuse (throw) an algorithm it
   * does not know.
   *
   * @default {"gcra"}
   */
  readonly algorithm?: RateLimitAlgorithm;
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
 * Keeps rate-limit state. Each store keeps, per key, one small value: for
 * GCRA the "theoretical arrival time", for a lockout the count and the
 * time of the last counted request; so a custom store only needs an
 * atomic read-modify-write of it, under the algorithm `policy.algorithm`
 * names.
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
   * Counts one request for `key` under `policy` (by `policy.algorithm`,
   * GCRA when absent), unless it is over the limit; atomic, so concurrent
   * requests are each counted once.
   */
  hit(
    key: string,
    policy: RateLimitPolicy,
  ): RateLimitResult | Promise<RateLimitResult>;
  /** Forgets `key`: its full limit is available again. */
  reset(key: string): void | Promise<void>;
  /**
   * Gives back one request that `hit` counted for `key` under `policy`
   * (its outcome turned out not to count): GCRA moves the arrival time
   * back by one interval, a lockout lowers its count by one. Atomic, and
   * never below nothing: a key with nothing counted stays as it is (its
   * state may have expired or been reset meanwhile). Optional:
   * `rateLimit()` needs it only for `countResponse`.
   */
  giveBack?(key: string, policy: RateLimitPolicy): void | Promise<void>;
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
 * GCRA, giving one request back: the arrival time `tat` moved back by one
 * interval, or `0` (delete the key) when that is not after `now`, so a
 * give-back can never bank credit beyond the full limit.
 */
export function gcraGiveBack(
  tat: number,
  now: number,
  policy: RateLimitPolicy,
): number {
  const back = tat - policy.windowMs / policy.limit;
  return back > now + EPSILON ? back : 0;
}

/**
 * A lockout, giving one request back: the count lowered by one, or
 * `undefined` (delete the key) when nothing live is left. The time of the
 * last counted request stays: the window the given-back request started
 * is not undone, which can only keep earlier counts longer, never drop
 * them.
 */
export function lockoutGiveBack(
  state: LockoutState | undefined,
  now: number,
  policy: RateLimitPolicy,
): LockoutState | undefined {
  if (state === undefined || state.last + policy.windowMs - now <= 0) {
    return undefined;
  }
  return state.count > 1
    ? { count: state.count - 1, last: state.last }
    : undefined;
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

/** The algorithm of `policy`, checked: stores call it before counting. */
export function algorithmOf(policy: RateLimitPolicy): RateLimitAlgorithm {
  const algorithm = policy.algorithm;
  if (algorithm === undefined || algorithm === "gcra") return "gcra";
  if (algorithm === "lockout") return algorithm;
  throw new TypeError(
    `Rate limit store: unknown algorithm ${
      JSON.stringify(algorithm)
    }; expected "gcra" or "lockout"`,
  );
}

/** A lockout's state for one key. */
export interface LockoutState {
  /** Requests counted since the count was last forgotten. */
  count: number;
  /** `Date.now()` of the last counted request. */
  last: number;
}

/** The stored value as a lockout state, or `undefined` when it is none. */
export function asLockoutState(value: unknown): LockoutState | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const { count, last } = value as Partial<LockoutState>;
  return typeof count === "number" && typeof last === "number"
    ? { count, last }
    : undefined;
}

/**
 * A lockout, one step: `state` as stored (or `undefined`), `now` in ms.
 * The count is live while `now < last + windowMs`; below `limit` the
 * request passes and is counted (the window starts again from now), at
 * `limit` it is refused and `state` stays as it was.
 */
export function lockout(
  state: LockoutState | undefined,
  now: number,
  policy: RateLimitPolicy,
): { result: RateLimitResult; state: LockoutState } {
  const { limit, windowMs } = policy;
  const left = state === undefined ? 0 : state.last + windowMs - now;
  const count = left > 0 ? state!.count : 0;
  if (count >= limit) {
    return {
      result: lockoutResult(false, count, left, policy),
      state: state!,
    };
  }
  return {
    result: lockoutResult(true, count + 1, windowMs, policy),
    state: { count: count + 1, last: now },
  };
}

/**
 * A lockout's result, from whether the request passed, the live count
 * (after it) and the milliseconds until the count is forgotten.
 */
export function lockoutResult(
  allowed: boolean,
  count: number,
  leftMs: number,
  policy: RateLimitPolicy,
): RateLimitResult {
  if (leftMs < 0) leftMs = 0;
  return {
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - count),
    resetMs: leftMs,
    retryAfterMs: allowed ? 0 : leftMs,
  };
}
