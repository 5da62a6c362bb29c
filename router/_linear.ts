import type { FlatToken } from "../routes/pattern.ts";

/**
 * A linear-time matcher for the pieces of a pattern that hold two or more
 * variables (`:a-:b.txt`, `*a/x/*b`). A backtracking regex tries every split
 * of the text between its variables: with k variables one failing path
 * costs O(n^k) (a 4 KB path against `/:a-:b-:c.txt` took seconds). This
 * runs the same pattern as a Pike VM: every NFA state advances in lock step
 * over the text, once per character, so a match costs O(n × m) for a text of
 * n characters and a pattern of m instructions (its static characters plus
 * about three per variable). Threads are kept in priority order, so the
 * captures are exactly the regex's: a parameter is lazy (`[^/]+?`), a
 * wildcard greedy (`.*`), anchored at both ends.
 *
 * It answers `exec(text)` like `RegExp.prototype.exec` (index 0 the whole
 * text, then one entry per variable), so the trie and the generated code
 * use either.
 */

const CHAR = 0; // arg: the char code
const NOT_SLASH = 1;
const ANY = 2;
const SPLIT = 3; // arg: the preferred target; next: the other
const JUMP = 4; // arg: target
const SAVE = 5; // arg: capture slot
const MATCH = 6;

export class LinearPattern {
  /** The equivalent regex source, so equal patterns share one trie entry. */
  readonly source: string;
  /** How many variables (capture groups). */
  readonly groups: number;
  readonly #op: Int32Array;
  readonly #arg: Int32Array;
  readonly #next: Int32Array;

  constructor(tokens: readonly FlatToken[], source: string) {
    this.source = source;
    const op: number[] = [];
    const arg: number[] = [];
    const next: number[] = [];
    const emit = (o: number, a = 0, n = -1): number => {
      op.push(o);
      arg.push(a);
      next.push(n);
      return op.length - 1;
    };
    let groups = 0;
    for (const token of tokens) {
      if (token.type === "text") {
        for (let i = 0; i < token.value.length; i++) {
          emit(CHAR, token.value.charCodeAt(i));
        }
      } else if (token.type === "param") {
        // ([^/]+?): one character, then prefer leaving over taking more.
        const slot = 2 * groups++;
        emit(SAVE, slot);
        const body = emit(NOT_SLASH);
        const split = emit(SPLIT);
        arg[split] = split + 1; // leave (preferred)
        next[split] = body; // take another
        emit(SAVE, slot + 1);
      } else {
        // (.*): prefer taking another character over leaving.
        const slot = 2 * groups++;
        emit(SAVE, slot);
        const split = emit(SPLIT);
        const body = emit(ANY);
        emit(JUMP, split);
        arg[split] = body;
        next[split] = body + 2;
        emit(SAVE, slot + 1);
      }
    }
    emit(MATCH);
    this.groups = groups;
    this.#op = Int32Array.from(op);
    this.#arg = Int32Array.from(arg);
    this.#next = Int32Array.from(next);
  }

  /** Matches the whole text; `null` when it does not match. */
  exec(text: string): string[] | null {
    const op = this.#op, arg = this.#arg, next = this.#next;
    const size = op.length;
    const slots = 2 * this.groups;
    const length = text.length;
    // Two thread lists, in priority order: program counters, and each
    // thread's captures as one row of a flat array.
    let pcs = new Int32Array(size);
    let caps = new Int32Array(size * slots);
    let nextPcs = new Int32Array(size);
    let nextCaps = new Int32Array(size * slots);
    let count = 0;
    const seen = new Int32Array(size).fill(-1);
    // The captures of the thread being followed; saves write here and are
    // undone on the way back.
    const current = new Int32Array(slots);
    let found: Int32Array | undefined;

    // Follows jumps, splits and saves from `pc` in priority order; a thread
    // that waits on a character joins the list `into` at `count`.
    const add = (
      pc: number,
      at: number,
      into: Int32Array,
      rows: Int32Array,
    ) => {
      if (seen[pc] === at || found !== undefined) return;
      seen[pc] = at;
      const o = op[pc];
      if (o === JUMP) add(arg[pc], at, into, rows);
      else if (o === SPLIT) {
        add(arg[pc], at, into, rows);
        add(next[pc], at, into, rows);
      } else if (o === SAVE) {
        const slot = arg[pc];
        const old = current[slot];
        current[slot] = at;
        add(pc + 1, at, into, rows);
        current[slot] = old;
      } else if (o === MATCH) {
        // Anchored at the end: only a thread there matches, and the first
        // to arrive has the highest priority.
        if (at === length) found = current.slice();
      } else {
        into[count] = pc;
        rows.set(current, count * slots);
        count++;
      }
    };

    add(0, 0, pcs, caps);
    for (let at = 0; at < length; at++) {
      const threads = count;
      if (threads === 0) break;
      const char = text.charCodeAt(at);
      count = 0;
      for (let t = 0; t < threads && found === undefined; t++) {
        const pc = pcs[t];
        const o = op[pc];
        if (
          o === ANY || (o === NOT_SLASH && char !== 47) ||
          (o === CHAR && arg[pc] === char)
        ) {
          for (let k = 0; k < slots; k++) current[k] = caps[t * slots + k];
          add(pc + 1, at + 1, nextPcs, nextCaps);
        }
      }
      [pcs, nextPcs] = [nextPcs, pcs];
      [caps, nextCaps] = [nextCaps, caps];
    }
    if (found === undefined) return null;
    const result: string[] = [text];
    for (let g = 0; g < slots; g += 2) {
      result.push(text.slice(found[g], found[g + 1]));
    }
    return result;
  }
}

/** How many variables a piece of a pattern holds. */
export function variables(tokens: readonly FlatToken[]): number {
  let count = 0;
  for (const token of tokens) if (token.type !== "text") count++;
  return count;
}
