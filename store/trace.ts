/**
 * A hook around every store call, for tracing: `withTimeout` runs each
 * call through the hook when one is set (`tracing({ storeSpans: true })`
 * sets one that makes a child span per call), and calls the store
 * directly otherwise. The store modules stay free of any tracing
 * dependency.
 *
 * @module
 */

/** What a store call is, for the hook. */
export interface StoreCall {
  /** The store's name: `"Redis"`, `"Deno KV"`, `"memory"`, `"S3"`. */
  store: string;
  /** What the call does: `"read session"`. */
  what?: string;
}

/**
 * Runs one store call (`operation`) and returns its result; it may time
 * it, trace it, or count it, but must call `operation` once.
 */
export type StoreCallHook = <T>(
  operation: () => Promise<T>,
  call: StoreCall,
) => Promise<T>;

let hook: StoreCallHook | undefined;

/**
 * Sets the hook every store call runs through (one per process; `undefined`
 * removes it).
 *
 * @example
 * ```ts
 * import { setStoreCallHook, withTimeout } from "@fetchkit/toolkit/store";
 *
 * const calls: string[] = [];
 * setStoreCallHook((operation, { store, what }) => {
 *   calls.push(`${store}: ${what}`);
 *   return operation();
 * });
 * await withTimeout(() => Promise.resolve(1), 1000, { store: "memory", what: "get" });
 * setStoreCallHook(undefined);
 * calls; // ["memory: get"]
 * ```
 *
 * @param next The hook, or `undefined`.
 */
export function setStoreCallHook(next: StoreCallHook | undefined): void {
  hook = next;
}

/**
 * The hook set by {@linkcode setStoreCallHook}, if any.
 *
 * @example
 * ```ts
 * import { storeCallHook } from "@fetchkit/toolkit/store";
 *
 * storeCallHook(); // undefined unless tracing({ storeSpans: true }) or an app set one
 * ```
 *
 * @returns The hook, or `undefined`.
 */
export function storeCallHook(): StoreCallHook | undefined {
  return hook;
}
