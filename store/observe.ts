/**
 * Observers of every store call: {@linkcode countStoreCall} (which
 * `withTimeout` goes through for Deno KV and Redis, and which the memory
 * stores and S3 file storage call directly) tells each observer how a
 * call ended and how long it took, so metrics can count store calls
 * without a store module knowing of them. Unlike the single tracing hook
 * of `store/trace.ts`, any number of observers may listen; with none, a
 * call costs one array length check more.
 *
 * @module
 */

import { StoreUnavailableError } from "./errors.ts";
import type { StoreCall } from "./trace.ts";

/**
 * How a store call ended: `ok`; `timeout` (no answer within the call's
 * limit); `unavailable` (the store could not serve it: a
 * `StoreUnavailableError`, such as a refused connection, a `5xx`, a full
 * memory store); `error` (any other failure: the store answered and
 * refused, or the caller's own error).
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

/**
 * Runs one store call and, while an observer listens, tells it how the
 * call ended and how long it took: `operation` may answer at once or
 * with a promise (the duration then ends when it settles). Nothing is
 * timed or changed while no observer listens, and the call's value or
 * error is the caller's unchanged either way. A store of the app's own
 * counts its calls with it; `withTimeout` counts through it too.
 *
 * @example
 * ```ts
 * import { countStoreCall, observeStoreCalls } from "@fetchkit/toolkit/store";
 *
 * const seen: string[] = [];
 * const stop = observeStoreCalls(({ store, what }, outcome) => {
 *   seen.push(`${store} ${what} ${outcome}`);
 * });
 * const data = new Map([["a", 1]]);
 * const GET = { store: "memory", what: "get" };
 * countStoreCall(GET, () => data.get("a")); // 1
 * await countStoreCall(GET, () => Promise.resolve(data.get("b"))); // undefined
 * stop();
 * seen; // ["memory get ok", "memory get ok"]
 * ```
 *
 * @param call The store's name and the operation, for the observers (a
 * constant object per operation costs nothing per call).
 * @param operation The call.
 * @returns What `operation` returned.
 */
export function countStoreCall<T>(call: StoreCall, operation: () => T): T {
  if (observers.length === 0) return operation();
  return counted(call, operation);
}

function counted<T>(call: StoreCall, operation: () => T): T {
  const start = performance.now();
  let result: T;
  try {
    result = operation();
  } catch (error) {
    notifyStoreCall(call, storeCallOutcome(error), since(start));
    throw error;
  }
  if (result instanceof Promise) {
    return result.then((value) => {
      notifyStoreCall(call, "ok", since(start));
      return value;
    }, (error) => {
      notifyStoreCall(call, storeCallOutcome(error), since(start));
      throw error;
    }) as T;
  }
  notifyStoreCall(call, "ok", since(start));
  return result;
}

function since(start: number): number {
  return (performance.now() - start) / 1000;
}

/** Errors of calls that took longer than their limit. */
const timedOut = new WeakSet<object>();

/**
 * Marks `error` as a call's deadline passing (counted as `timeout`, not
 * `unavailable`): `withTimeout`'s own, and S3 file storage's, which
 * aborts its request. Internal: not exported by `./store`.
 */
export function markTimedOut<E extends object>(error: E): E {
  timedOut.add(error);
  return error;
}

/**
 * The outcome of a store call that failed with `error`.
 *
 * @example
 * ```ts
 * import { StoreUnavailableError, storeCallOutcome } from "@fetchkit/toolkit/store";
 *
 * storeCallOutcome(new StoreUnavailableError("Redis", "connection refused")); // "unavailable"
 * storeCallOutcome(new RangeError("value too large")); // "error"
 * ```
 *
 * @param error What the call threw.
 * @returns `timeout` for a call whose deadline passed, `unavailable` for
 * any other `StoreUnavailableError`, else `error`.
 */
export function storeCallOutcome(error: unknown): StoreCallOutcome {
  if (typeof error === "object" && error !== null && timedOut.has(error)) {
    return "timeout";
  }
  return error instanceof StoreUnavailableError ? "unavailable" : "error";
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
