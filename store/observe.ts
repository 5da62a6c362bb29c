/**
 * Observers of every store call: `withTimeout` (the one path every store
 * call of the toolkit takes) tells each observer how a call ended and how
 * long it took, so metrics can count store calls without a store module
 * knowing of them. Unlike the single tracing hook of `store/trace.ts`,
 * any number of observers may listen; with none, a call costs one array
 * length check more.
 *
 * @module
 */

import type { StoreCall } from "./trace.ts";

/**
 * How a store call ended: `ok`; `timeout` (no answer within the call's
 * limit); `unavailable` (the store could not be reached:
 * `StoreUnavailableError`); `error` (any other failure).
 */
export type StoreCallOutcome = "ok" | "error" | "timeout" | "unavailable";

/** Told of each store call once it settled; `seconds` is its duration. */
export type StoreCallObserver = (
  call: StoreCall,
  outcome: StoreCallOutcome,
  seconds: number,
) => void;

const observers: StoreCallObserver[] = [];

/**
 * Adds an observer of every store call; returns the function that
 * removes it. An observer that throws is ignored (the call's result is
 * the store's).
 *
 * @example
 * ```ts
 * import { observeStoreCalls, withTimeout } from "@fetchkit/toolkit/store";
 *
 * const seen: string[] = [];
 * const stop = observeStoreCalls(({ store, what }, outcome) => {
 *   seen.push(`${store} ${what} ${outcome}`);
 * });
 * await withTimeout(() => Promise.resolve(1), 1000, { store: "memory", what: "get" });
 * stop();
 * seen; // ["memory get ok"]
 * ```
 *
 * @param observer Told of each call's store, operation, outcome and duration.
 * @returns A function that removes the observer.
 */
export function observeStoreCalls(observer: StoreCallObserver): () => void {
  observers.push(observer);
  return () => {
    const index = observers.indexOf(observer);
    if (index !== -1) observers.splice(index, 1);
  };
}

/**
 * The observers added by {@linkcode observeStoreCalls} (read by
 * `withTimeout`).
 *
 * @example
 * ```ts
 * import { storeCallObservers } from "@fetchkit/toolkit/store";
 *
 * storeCallObservers().length; // 0 unless metrics or an app observe store calls
 * ```
 *
 * @returns The observers, in the order they were added.
 */
export function storeCallObservers(): readonly StoreCallObserver[] {
  return observers;
}

/** Tells every observer, ignoring what they throw. */
export function notifyStoreCall(
  call: StoreCall,
  outcome: StoreCallOutcome,
  seconds: number,
): void {
  for (const observer of observers) {
    try {
      observer(call, outcome, seconds);
    } catch {
      // An observer's failure is not the store call's.
    }
  }
}
