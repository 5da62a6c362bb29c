/**
 * Route patterns compiled for matching: a regex where one is safe, else a
 * `CapturePattern` that matches in linear steps without backtracking.
 *
 * @module
 */

import { encodePathText, type FlatToken } from "./pattern.ts";

// Patterns with several captures in one regex (`/:a-:b-:c.txt`,
// `/*a/x/*b/end`) make a backtracking regex try every split of the input:
// O(n^k) for k captures, seconds for one crafted 4 KB path. A
// `CapturePattern` matches such patterns in O(n * m) steps (n the input
// length, m the pattern's items) by remembering which (item, position)
// pairs already failed, with the same captures the regex would give
// (parameters lazy, wildcards greedy, first match in the regex's order).
// Short inputs, where the regex's worst case is small, still use the regex,
// which is faster there.

const TEXT = 0;
const PARAM = 1; // one or more characters other than "/", lazy
const WILD = 2; // zero or more characters, greedy

type Item =
  | { readonly kind: typeof TEXT; readonly text: string }
  | { readonly kind: typeof PARAM | typeof WILD };

/** The regex steps a short input may cost before the linear matcher takes over. */
const REGEX_BUDGET = 100_000;

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/** The regex source of tokens: text escaped, params lazy, wildcards greedy. */
export function tokensSource(tokens: readonly FlatToken[]): string {
  let source = "";
  for (const token of tokens) {
    if (token.type === "text") {
      source += encodePathText(token.value).replace(ESCAPE, "\\$&");
    } else if (token.type === "param") source += "([^/]+?)";
    else source += "(.*)";
  }
  return source;
}

/** What the matchers need of a compiled segment or tail. */
export interface Pattern {
  /** The regex source: equal sources are the same pattern. */
  readonly source: string;
  /** Captured groups per match. */
  readonly groups: number;
  /** A match array like `RegExp.prototype.exec`'s (whole input, then groups), or `null`. */
  exec(input: string): string[] | null;
}

/**
 * Compiles tokens (with `/` inside text tokens) that must match a whole
 * input: a `RegExp` for at most one capture, else a linear-time matcher.
 */
export function compilePattern(tokens: readonly FlatToken[]): Pattern {
  const source = `^${tokensSource(tokens)}$`;
  const regex = new RegExp(source);
  const items: Item[] = [];
  for (const token of tokens) {
    if (token.type !== "text") {
      items.push({ kind: token.type === "param" ? PARAM : WILD });
      continue;
    }
    const text = encodePathText(token.value);
    const last = items.at(-1);
    if (last?.kind === TEXT) {
      items[items.length - 1] = { kind: TEXT, text: last.text + text };
    } else if (text !== "") items.push({ kind: TEXT, text });
  }
  const groups = items.filter((item) => item.kind !== TEXT).length;
  if (groups <= 1) {
    return {
      source,
      groups,
      exec: (input) => regex.exec(input) as string[] | null,
    };
  }
  // The regex's worst case grows as length^groups: below this it is cheap.
  const limit = Math.floor(Math.pow(REGEX_BUDGET, 1 / groups));
  return {
    source,
    groups,
    exec: (input) =>
      input.length <= limit
        ? regex.exec(input) as string[] | null
        : linearExec(items, groups, input),
  };
}

/**
 * Depth-first search in the regex's order over (item, position), each
 * pair explored at most once: a failed pair is remembered, and a
 * parameter or wildcard skips the exits an earlier, wider attempt of the
 * same item already tried. Recursion depth is the number of items.
 */
export function linearExec(
  items: readonly Item[],
  groups: number,
  input: string,
): string[] | null {
  const n = input.length;
  const m = items.length;
  const width = n + 1;
  const failed = new Uint8Array(m * width);
  // Per wildcard: every exit >= tried[i] failed. Per parameter, by the
  // end of its segment: every exit > tried[i * width + end] failed.
  const tried = new Int32Array(m * width).fill(width);
  const starts = new Int32Array(m);
  const ends = new Int32Array(m);

  function match(i: number, pos: number): boolean {
    if (i === m) return pos === n;
    const key = i * width + pos;
    if (failed[key] === 1) return false;
    const item = items[i];
    if (item.kind === TEXT) {
      if (
        input.startsWith(item.text, pos) && match(i + 1, pos + item.text.length)
      ) {
        return true;
      }
    } else if (item.kind === WILD) {
      // Greedy: the longest first; exits from tried[i] up already failed.
      const from = Math.min(tried[i], width) - 1;
      for (let q = from; q >= pos; q--) {
        if (match(i + 1, q)) {
          starts[i] = pos;
          ends[i] = q;
          return true;
        }
      }
      if (pos < tried[i]) tried[i] = pos;
    } else {
      // Lazy, within the segment: the shortest first.
      let end = input.indexOf("/", pos);
      if (end === -1) end = n;
      const slot = i * width + end;
      const known = tried[slot]; // an entry whose exits (known, end] failed
      const to = known < width ? Math.min(known, end) : end;
      for (let q = pos + 1; q <= to; q++) {
        if (match(i + 1, q)) {
          starts[i] = pos;
          ends[i] = q;
          return true;
        }
      }
      if (pos < known) tried[slot] = pos;
    }
    failed[key] = 1;
    return false;
  }

  if (!match(0, 0)) return null;
  const result = [input];
  for (let i = 0; i < m; i++) {
    if (items[i].kind !== TEXT) result.push(input.slice(starts[i], ends[i]));
  }
  return result.length === groups + 1 ? result : null;
}
