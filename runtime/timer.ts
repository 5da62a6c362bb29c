/**
 * Timers that may be left armed without keeping the program alive.
 *
 * Node, Bun and Deno 2.9 return a timer object from `setTimeout` with
 * `ref()` and `unref()`; older Deno releases return a number, for
 * `Deno.refTimer` / `Deno.unrefTimer`. Runtimes with neither (workerd,
 * browsers) have no process to keep alive: there both calls do nothing.
 *
 * @module
 */

/** What `setTimeout` returns on the runtime at hand. */
export type Timer = ReturnType<typeof setTimeout>;

interface Refable {
  ref(): unknown;
  unref(): unknown;
}

interface DenoTimers {
  refTimer(id: number): void;
  unrefTimer(id: number): void;
}

function denoTimers(): DenoTimers | undefined {
  return (globalThis as { Deno?: DenoTimers }).Deno;
}

/** Lets `timer` keep the program alive again (the default for a timer). */
export function refTimer(timer: Timer): void {
  if (typeof (timer as Partial<Refable>)?.ref === "function") {
    (timer as unknown as Refable).ref();
  } else if (typeof timer === "number") {
    denoTimers()?.refTimer(timer);
  }
}

/** Lets the program exit while `timer` is still armed. */
export function unrefTimer(timer: Timer): void {
  if (typeof (timer as Partial<Refable>)?.unref === "function") {
    (timer as unknown as Refable).unref();
  } else if (typeof timer === "number") {
    denoTimers()?.unrefTimer(timer);
  }
}
