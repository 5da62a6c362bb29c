/**
 * Whether this process's `serve()` began a shutdown: from the moment a
 * signal (or `shutdown()`, or the abort signal) starts it, through the
 * `drainMs` in which the listener still serves, until the process ends,
 * the last server of the process has closed, or a new `serve()` starts
 * listening. Readiness checks
 * (`@fetchkit/toolkit/health`) answer 503 from then on, so a load
 * balancer stops sending before connections close. The state is
 * process-wide (found through `Symbol.for`, so two copies of the package
 * share it).
 *
 * @module
 */

interface DrainState {
  draining: boolean;
  listeners: Set<() => void>;
}

const KEY = Symbol.for("fetchkit.serve.draining");

function state(): DrainState {
  const global = globalThis as { [KEY]?: DrainState };
  return global[KEY] ??= { draining: false, listeners: new Set() };
}

/**
 * Whether a `serve()` of this process began shutting down.
 *
 * @example
 * ```ts
 * import { isDraining } from "@fetchkit/toolkit/serve";
 *
 * isDraining(); // false until SIGTERM, SIGINT or server.shutdown()
 * ```
 *
 * @returns `true` from the start of a shutdown.
 */
export function isDraining(): boolean {
  return state().draining;
}

/**
 * Calls `listener` when a `serve()` of this process begins shutting down
 * (at once if one already has); returns the function that removes it.
 *
 * @example
 * ```ts
 * import { onDrain } from "@fetchkit/toolkit/serve";
 *
 * const stop = onDrain(() => console.log("draining: readiness is 503 now"));
 * stop();
 * ```
 *
 * @param listener Called once a shutdown begins.
 * @returns A function that removes the listener.
 */
export function onDrain(listener: () => void): () => void {
  const { listeners, draining } = state();
  if (draining) {
    listener();
    return () => {};
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Marks the process as draining and tells the listeners (serve() calls it). */
export function beginDrain(): void {
  const current = state();
  if (current.draining) return;
  current.draining = true;
  const listeners = [...current.listeners];
  current.listeners.clear();
  for (const listener of listeners) {
    try {
      listener();
    } catch (error) {
      console.error("onDrain listener failed:", error);
    }
  }
}

/** A new `serve()` listens: the process serves again (serve() calls it). */
export function endDrain(): void {
  state().draining = false;
}
