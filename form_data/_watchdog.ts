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
 * The deadlines are a doubly linked list, not a `Set`: watching and
 * unwatching are a few pointer writes, with no hash of a new object per
 * read (a `Set` add and delete were a third of the deadline's cost per
 * request on Deno). A long deadline watched while the timer is armed (the
 * steady case: a 30 s idle timeout under load) reads no clock either: the
 * next tick times it ({@linkcode COARSE_MS}).
 *
 * @module
 */

/** A deadline being watched; see {@linkcode watch}. */
export interface Watch {
  readonly deadline: number;
  readonly expire: () => void;
}

/**
 * A watched deadline, linked between its neighbours while it is watched.
 * A caller may make its own (see {@linkcode watchEntry}): an object of
 * its own with these fields and an `expire` method is then the entry.
 */
export interface Entry extends Watch {
  deadline: number;
  prev: Entry | undefined;
  next: Entry | undefined;
  linked: boolean;
}

/** The longest the clock waits between ticks while anything is watched. */
export const TICK_MS = 1_000;

/**
 * A deadline at least this far off, watched while the clock is armed, is
 * timed by the next tick instead of a clock read of its own: it may then
 * expire up to one tick late (a 30 s idle timeout after 30-31 s). Shorter
 * ones are exact.
 */
export const COARSE_MS = 4 * TICK_MS;

let head: Entry | undefined;
let tail: Entry | undefined;
let count = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
/** When the armed timer fires; Infinity when none is armed. */
let due = Infinity;

/** Calls `expire` in `ms` milliseconds, unless `unwatch()` comes first. */
export function watch(ms: number, expire: () => void): Watch {
  const entry: Entry = {
    deadline: 0,
    expire,
    prev: undefined,
    next: undefined,
    linked: false,
  };
  watchEntry(entry, ms);
  return entry;
}

/**
 * `watch()` with an entry the caller made (a read's own state, whose
 * `expire` method is called as `entry.expire()`): no object or closure of
 * the clock's per deadline. Its fields are the clock's while it is linked.
 */
export function watchEntry(entry: Entry, ms: number): void {
  entry.prev = tail;
  entry.next = undefined;
  entry.linked = true;
  if (tail === undefined) head = entry;
  else tail.next = entry;
  tail = entry;
  count++;
  if (ms >= COARSE_MS && due !== Infinity) {
    // A tick comes within TICK_MS (the armed timer was set at most that
    // far ahead), before this deadline: it reads the clock for this
    // entry, which then expires at most one tick late (`-ms`: not yet
    // timed). A steady stream of reads reads no clock per read.
    entry.deadline = -ms;
    return;
  }
  const now = performance.now();
  entry.deadline = now + ms;
  // Armed already for a time before this deadline (the steady case): the
  // tick that comes first looks again.
  if (entry.deadline < due) arm(Math.min(entry.deadline, now + TICK_MS), now);
}

/**
 * Stops watching `entry` (it is finished). The clock is left as it is:
 * its next tick stops it when nothing else is watched.
 */
export function unwatch(watched: Watch): void {
  const entry = watched as Entry;
  if (!entry.linked) return;
  entry.linked = false;
  count--;
  const { prev, next } = entry;
  if (prev === undefined) head = next;
  else prev.next = next;
  if (next === undefined) tail = prev;
  else next.prev = prev;
  // Nothing kept alive through a finished read's entry.
  entry.prev = entry.next = undefined;
}

/** How many deadlines are watched (for tests). */
export function watching(): number {
  return count;
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
  // a new deadline is appended, and either expired here or counted for the
  // next tick (a watch() made from a callback may have armed the timer
  // already: `due` says when). One that unwatched the entry after its own
  // (a read ending another) sends the walk back to the head: what expired
  // is gone from the list, the rest is looked at again.
  let entry = head;
  while (entry !== undefined) {
    const following = entry.next;
    // Watched since the last tick without a clock read: timed from now.
    if (entry.deadline < 0) entry.deadline = now - entry.deadline;
    if (entry.deadline <= now) {
      unwatch(entry);
      entry.expire();
      if (following !== undefined && !following.linked) {
        entry = head;
        continue;
      }
    } else if (entry.deadline < next) {
      next = entry.deadline;
    }
    entry = following;
  }
  if (next !== Infinity) {
    const at = Math.min(next, now + TICK_MS);
    if (at < due) arm(at, now);
  }
}
