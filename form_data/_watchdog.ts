/**
 * Deadlines for body reads on one shared timer. A timer per request cost a
 * `Deno.serve` handler about a quarter of its throughput on short forms
 * (BENCHMARKS.md, "HTTP load"): here the timer is armed for the earliest
 * deadline only, and left armed, unreferenced, when nothing is watched, so
 * a steady stream of requests arms it about once per timeout instead of
 * once per request, and it never keeps a finished program alive.
 *
 * @module
 */

/** A deadline being watched; see {@linkcode watch}. */
export interface Watch {
  readonly deadline: number;
  readonly expire: () => void;
}

import { refTimer, type Timer, unrefTimer } from "../runtime/timer.ts";

const watches = new Set<Watch>();
let timer: Timer | undefined;
/** When the armed timer fires; Infinity when none is armed. */
let due = Infinity;
/** Whether the armed timer keeps the program alive. */
let referenced = false;

/** Calls `expire` in `ms` milliseconds, unless `unwatch()` comes first. */
export function watch(ms: number, expire: () => void): Watch {
  const entry: Watch = { deadline: performance.now() + ms, expire };
  watches.add(entry);
  if (entry.deadline < due) {
    arm(entry.deadline);
  } else if (!referenced) {
    // The armed timer fires first and re-arms for this deadline.
    refTimer(timer!);
    referenced = true;
  }
  return entry;
}

/** Stops watching `entry` (it is finished). */
export function unwatch(entry: Watch): void {
  if (watches.delete(entry) && watches.size === 0 && referenced) {
    unrefTimer(timer!);
    referenced = false;
  }
}

/** How many deadlines are watched (for tests). */
export function watching(): number {
  return watches.size;
}

function arm(deadline: number): void {
  clearTimeout(timer);
  due = deadline;
  timer = setTimeout(fire, Math.max(0, deadline - performance.now()));
  referenced = true;
}

function fire(): void {
  timer = undefined;
  due = Infinity;
  referenced = false;
  const now = performance.now();
  let next = Infinity;
  // An expire callback may watch again (the body reader re-arms itself):
  // a Set visits entries added while it is iterated, so a new deadline is
  // either expired here or counted for the next timer.
  for (const entry of watches) {
    if (entry.deadline <= now) {
      watches.delete(entry);
      entry.expire();
    } else if (entry.deadline < next) {
      next = entry.deadline;
    }
  }
  if (next !== Infinity) arm(next);
}
