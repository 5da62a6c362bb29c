/**
 * Deadlines for body reads on one coarse process clock. A timer per
 * request cost a `Deno.serve` handler about a quarter of its throughput on
 * short forms (BENCHMARKS.md, "HTTP load"), and referencing and
 * unreferencing one shared timer per read still cost about 6k instructions
 * a request on Deno. Here watching a deadline is a clock read and a `Set`
 * entry: one timer ticks while any read is pending, at least once a
 * {@linkcode TICK_MS} and exactly at a nearer deadline, and stops at the
 * first tick that finds nothing watched. A steady stream of requests arms
 * it about once a tick, never per request; a program whose reads have all
 * finished ends within one tick (the timer is not left armed past it).
 *
 * @module
 */

/** A deadline being watched; see {@linkcode watch}. */
export interface Watch {
  readonly deadline: number;
  readonly expire: () => void;
}

/** The longest the clock waits between ticks while anything is watched. */
export const TICK_MS = 1_000;

const watches = new Set<Watch>();
let timer: ReturnType<typeof setTimeout> | undefined;
/** When the armed timer fires; Infinity when none is armed. */
let due = Infinity;

/** Calls `expire` in `ms` milliseconds, unless `unwatch()` comes first. */
export function watch(ms: number, expire: () => void): Watch {
  const now = performance.now();
  const entry: Watch = { deadline: now + ms, expire };
  watches.add(entry);
  // Armed already for a time before this deadline (the steady case): the
  // tick that comes first looks again.
  if (entry.deadline < due) arm(Math.min(entry.deadline, now + TICK_MS), now);
  return entry;
}

/**
 * Stops watching `entry` (it is finished). The clock is left as it is:
 * its next tick stops it when nothing else is watched.
 */
export function unwatch(entry: Watch): void {
  watches.delete(entry);
}

/** How many deadlines are watched (for tests). */
export function watching(): number {
  return watches.size;
}

function arm(at: number, now: number): void {
  if (timer !== undefined) clearTimeout(timer);
  due = at;
  timer = setTimeout(tick, Math.max(0, at - now));
}

function tick(): void {
  timer = undefined;
  due = Infinity;
  const now = performance.now();
  let next = Infinity;
  // An expire callback may watch again (the body reader re-arms itself):
  // a Set visits entries added while it is iterated, so a new deadline is
  // either expired here or counted for the next tick (a watch() made from
  // a callback may have armed the timer already: `due` says when).
  for (const entry of watches) {
    if (entry.deadline <= now) {
      watches.delete(entry);
      entry.expire();
    } else if (entry.deadline < next) {
      next = entry.deadline;
    }
  }
  if (next !== Infinity) {
    const at = Math.min(next, now + TICK_MS);
    if (at < due) arm(at, now);
  }
}
