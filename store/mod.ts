/**
 * The store mechanism below sessions, rate limits, caches, idempotency
 * keys and pub/sub: one error class for outages, their classification,
 * and a time limit on every store call. A store that is down answers
 * `503 Service Unavailable` with `Retry-After` (a thrown
 * {@linkcode StoreUnavailableError}, which the router answers), never
 * `500`. For those who write a store of their own.
 *
 * @example A store call with a time limit
 * ```ts
 * import { withTimeout } from "@fetchkit/toolkit/store";
 *
 * const data = new Map<string, string>();
 * const value = await withTimeout(
 *   () => Promise.resolve(data.get("key")),
 *   5000,
 *   { store: "memory", what: "get key" },
 * );
 * value; // undefined
 * ```
 *
 * @module
 */

export {
  isStoreOutage,
  StoreUnavailableError,
  type StoreUnavailableErrorOptions,
  toStoreError,
} from "./errors.ts";
export {
  checkTimeout,
  DEFAULT_STORE_TIMEOUT_MS,
  withTimeout,
  type WithTimeoutOptions,
} from "./timeout.ts";
export { retryWhileLocked } from "./locked_kv.ts";
export {
  countStoreCall,
  observeStoreCalls,
  type StoreCallObserver,
  storeCallObservers,
  type StoreCallOutcome,
  storeCallOutcome,
} from "./observe.ts";
export {
  setStoreCallHook,
  type StoreCall,
  type StoreCallHook,
  storeCallHook,
} from "./trace.ts";
