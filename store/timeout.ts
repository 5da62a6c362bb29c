/**
 * A time limit on one store call.
 *
 * @module
 */

import { StoreUnavailableError, toStoreError } from "./errors.ts";
import { storeCallHook } from "./trace.ts";
import { countStoreCall, markTimedOut, storeCallObservers } from "./observe.ts";

/** Options of {@linkcode withTimeout}. */
export interface WithTimeoutOptions {
  /** The store's name, for the error: `"Redis"`, `"Deno KV"`. */
  store: string;
  /** What the call does, for the error: `"read session"`. */
  what?: string;
}

/** The default time limit of a store call, in milliseconds. */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;

/**
 * Runs one store call with a time limit: when it has not settled within
 * `ms`, the returned promise rejects with a
 * {@linkcode StoreUnavailableError} naming the store, the call and the
 * limit (the call itself goes on; its result is ignored). A failure of
 * the call goes through {@linkcode toStoreError}, so an outage is a
 * `StoreUnavailableError` too and any other error is rethrown as it was.
 * `Infinity` turns the limit off.
 *
 * @example
 * ```ts
 * import { StoreUnavailableError, withTimeout } from "@fetchkit/toolkit/store";
 *
 * const never = () => new Promise<string>(() => {});
 * try {
 *   await withTimeout(never, 10, { store: "Redis", what: "read session" });
 * } catch (error) {
 *   error instanceof StoreUnavailableError; // true
 *   (error as Error).message; // "Redis did not answer within 10 ms (read session)"
 * }
 * ```
 *
 * @param operation The store call.
 * @param ms The time limit in milliseconds, above `0`.
 * @param options The store's name and what the call does.
 * @returns The call's result.
 */
export function withTimeout<T>(
  operation: () => Promise<T>,
  ms: number,
  options: WithTimeoutOptions,
): Promise<T> {
  if (storeCallObservers().length === 0) return timed(operation, ms, options);
  // Observers (metrics) are told how each call ended and how long it took.
  return countStoreCall(options, () => timed(operation, ms, options));
}

function timed<T>(
  operation: () => Promise<T>,
  ms: number,
  options: WithTimeoutOptions,
): Promise<T> {
  const { store } = options;
  let call: Promise<T>;
  try {
    // A hook (tracing's store spans) wraps the call itself, not the wait.
    const hook = storeCallHook();
    call = hook === undefined ? operation() : hook(operation, options);
  } catch (error) {
    return Promise.reject(toStoreError(error, store));
  }
  if (ms === Infinity) {
    return Promise.resolve(call).catch((error) => {
      throw toStoreError(error, store);
    });
  }
  return new Promise<T>((resolve, reject) => {
    const waiting: Waiting = {
      deadline: performance.now() + ms,
      expire() {
        const what = options.what;
        const error = new StoreUnavailableError(
          store,
          `${store} did not answer within ${ms} ms` +
            (what === undefined ? "" : ` (${what})`),
        );
        reject(markTimedOut(error));
      },
    };
    const queue = watch(ms, waiting);
    Promise.resolve(call).then((value) => {
      unwatch(queue, waiting);
      resolve(value);
    }, (error) => {
      unwatch(queue, waiting);
      reject(toStoreError(error, store));
    });
  });
}

/**
 * Calls waiting under one time limit. They share one timer, set for the
 * first deadline, instead of a timer each: setting and clearing a timer
 * per call cost a Redis cache hit about a third more than a bare `GET`
 * on Deno (BENCHMARKS.md, "Response cache"). With one limit, the order
 * calls start in is the order of their deadlines. The timer keeps the
 * process alive only while calls wait (a Node-style timer's `ref`).
 */
interface Queue {
  waiting: Set<Waiting>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** A call waiting for its answer, and what to do when it takes too long. */
interface Waiting {
  deadline: number;
  expire(): void;
}

const queues = new Map<number, Queue>();

function watch(ms: number, waiting: Waiting): Queue {
  let queue = queues.get(ms);
  if (queue === undefined) {
    queue = { waiting: new Set(), timer: undefined };
    queues.set(ms, queue);
  }
  if (queue.waiting.size === 0 && queue.timer !== undefined) {
    refTimer(queue.timer, true);
  }
  queue.waiting.add(waiting);
  if (queue.timer === undefined) arm(queue, waiting.deadline);
  return queue;
}

function unwatch(queue: Queue, waiting: Waiting): void {
  queue.waiting.delete(waiting);
  // Left to fire (it finds nothing due and stops), but not holding the
  // process open meanwhile.
  if (queue.waiting.size === 0 && queue.timer !== undefined) {
    refTimer(queue.timer, false);
  }
}

function arm(queue: Queue, deadline: number): void {
  queue.timer = setTimeout(
    () => sweep(queue),
    Math.max(0, deadline - performance.now()),
  );
}

function sweep(queue: Queue): void {
  queue.timer = undefined;
  const now = performance.now();
  for (const waiting of queue.waiting) {
    if (waiting.deadline > now) {
      arm(queue, waiting.deadline);
      return;
    }
    queue.waiting.delete(waiting);
    waiting.expire();
  }
}

/** `ref()` or `unref()` where timers have them (Deno, Node, Bun). */
function refTimer(timer: unknown, on: boolean): void {
  const handle = timer as { ref?: () => void; unref?: () => void };
  if (typeof handle === "object" && handle !== null) {
    if (on) handle.ref?.();
    else handle.unref?.();
  }
}

/**
 * Checks a store's `timeout` option: a positive number of milliseconds
 * (or `Infinity`).
 *
 * @example
 * ```ts
 * import { checkTimeout } from "@fetchkit/toolkit/store";
 *
 * checkTimeout(undefined, "createRedisCacheStore"); // 5000
 * ```
 *
 * @param timeout The option's value; `undefined` gives the default.
 * @param owner The function whose option it is, for the error.
 * @returns The timeout in milliseconds.
 * @throws {TypeError} When it is not a positive number.
 */
export function checkTimeout(timeout: unknown, owner: string): number {
  if (timeout === undefined) return DEFAULT_STORE_TIMEOUT_MS;
  if (typeof timeout !== "number" || !(timeout > 0)) {
    throw new TypeError(
      `${owner}: timeout must be a positive number of milliseconds, got ${
        String(timeout)
      }`,
    );
  }
  return timeout;
}
