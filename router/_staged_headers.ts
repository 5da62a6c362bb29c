/**
 * `context.responseHeaders`: response headers staged in plain JavaScript
 * and applied once to the response, with a real `Headers` made only when
 * the staged headers are read or given a name or value out of the
 * ordinary. On Bun, every call into a native `Headers` with a header name
 * it does not know costs hundreds of instructions; staging one header in
 * a `Headers` and copying it over cost more than building the response
 * (BENCHMARKS.md, "Every runtime against its fastest framework").
 *
 * @module
 */

import { forwardHeaders } from "../runtime/headers_forward.ts";

// A name every runtime's Headers takes as it is (RFC 9110 token).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A value every runtime's Headers stores as it is: visible ASCII, inner
// spaces and tabs; nothing to trim, nothing to refuse, not empty (runtimes
// differ in how they join an empty value with others).
const PLAIN_VALUE = /^[\x21-\x7E](?:[\t\x20-\x7E]*[\x21-\x7E])?$/;

/**
 * Names already found to be tokens, each with its lowercase form: an app
 * stages the same few names on every request, and a regular expression
 * test and a `toLowerCase()` a write cost more on Node than the rest of
 * staging (bounded: names past the limit are checked each time).
 */
const TOKENS = new Map<string, string>();
const TOKENS_MAX = 512;

/** `name` lowercased when it is a token (RFC 9110), else `undefined`. */
function lowerToken(name: string): string | undefined {
  let lower = TOKENS.get(name);
  if (lower !== undefined) return lower;
  if (!TOKEN.test(name)) return undefined;
  lower = name.toLowerCase();
  if (TOKENS.size < TOKENS_MAX) TOKENS.set(name, lower);
  return lower;
}

/**
 * `PLAIN_VALUE.test(value)`, by a loop over the characters for the short
 * values most headers have (cheaper than the regular expression there).
 */
function isPlainValue(value: string): boolean {
  const length = value.length;
  if (length === 0) return false;
  if (length > 64) return PLAIN_VALUE.test(value);
  const last = length - 1;
  let code = value.charCodeAt(0);
  if (code < 0x21 || code > 0x7e) return false;
  code = value.charCodeAt(last);
  if (code < 0x21 || code > 0x7e) return false;
  for (let i = 1; i < last; i++) {
    code = value.charCodeAt(i);
    if (code > 0x7e || (code < 0x20 && code !== 0x09)) return false;
  }
  return true;
}

/**
 * Adds staged cookies to a response's own, but for a line it has already
 * (a handler that gave `context.responseHeaders` as its Response's
 * headers, copied by the runtime: the same cookie twice would be sent).
 */
function appendCookies(
  to: Pick<Headers, "set" | "append"> & { getSetCookie?(): string[] },
  cookies: readonly string[],
): void {
  const own = to.getSetCookie?.() ?? [];
  for (let i = 0; i < cookies.length; i++) {
    const cookie = cookies[i]!;
    if (!own.includes(cookie)) to.append("set-cookie", cookie);
  }
}

/**
 * The arrays of a StagedHeaders with nothing staged: shared and never
 * written (the first header makes arrays of one, where pushing onto an
 * empty literal grew a backing store of 17 each: about 150 bytes a
 * request more to collect, on Node, BENCHMARKS.md "Fifth round: Node").
 */
const NONE: string[] = [];

/**
 * A `Headers` (by prototype, so `instanceof Headers` holds) that keeps
 * what is written to it in arrays until something reads it.
 */
export class StagedHeaders {
  /** Lowercased names, in the order first written (not set-cookie). */
  #names: string[] = NONE;
  /** Each name's value as `get()` would give it; `undefined` once deleted. */
  #values: (string | undefined)[] = NONE;
  /** Set-Cookie values, kept apart as `Headers` keeps them. */
  #cookies: string[] | undefined = undefined;
  /** The real headers, once read or written out of the ordinary. */
  #real: Headers | undefined = undefined;

  /** Sets a header, replacing any value of that name. */
  set(name: string, value: string): void {
    this.#write(name, value, false);
  }

  /** Adds a value to a header (joined with ", ", except Set-Cookie). */
  append(name: string, value: string): void {
    this.#write(name, value, true);
  }

  /** `set` (`add` false) or `append` (`add` true). */
  #write(name: string, value: string, add: boolean): void {
    let real = this.#real;
    if (real === undefined) {
      name = `${name}`;
      value = `${value}`;
      const lower = lowerToken(name);
      if (lower !== undefined && isPlainValue(value)) {
        this.#stage(lower, value, add);
        return;
      }
      real = this.#materialize();
    }
    if (add) real.append(name, value);
    else real.set(name, value);
  }

  /** Stages a plain value under a lowercased name. */
  #stage(lower: string, value: string, add: boolean): void {
    if (lower === "set-cookie") {
      if (add) (this.#cookies ??= []).push(value);
      else this.#cookies = [value];
      return;
    }
    const names = this.#names;
    if (names === NONE) {
      this.#names = [lower];
      this.#values = [value];
      return;
    }
    const index = names.indexOf(lower);
    if (index === -1) {
      names.push(lower);
      this.#values.push(value);
      return;
    }
    const before = this.#values[index];
    this.#values[index] = add && before !== undefined
      ? `${before}, ${value}`
      : value;
  }

  /** Removes a staged header (the response keeps its own of that name). */
  delete(name: string): void {
    if (this.#real !== undefined) return this.#real.delete(name);
    name = `${name}`;
    if (!TOKEN.test(name)) return this.#materialize().delete(name);
    const lower = name.toLowerCase();
    if (lower === "set-cookie") {
      this.#cookies = undefined;
      return;
    }
    const index = this.#names.indexOf(lower);
    if (index !== -1) this.#values[index] = undefined;
  }

  /** The real `Headers`, made from what was staged so far. */
  #materialize(): Headers {
    if (this.#real !== undefined) return this.#real;
    const real = new Headers();
    const names = this.#names;
    for (let i = 0; i < names.length; i++) {
      const value = this.#values[i];
      if (value !== undefined) real.append(names[i]!, value);
    }
    for (const cookie of this.#cookies ?? []) real.append("set-cookie", cookie);
    this.#names = NONE;
    this.#values = NONE;
    this.#cookies = undefined;
    return this.#real = real;
  }

  /**
   * Writes the staged headers onto `to`: each replaces the header of its
   * name; Set-Cookie values are added to the response's own.
   */
  static applyTo(
    to: Pick<Headers, "set" | "append"> & { getSetCookie?(): string[] },
    staged: StagedHeaders,
  ): void {
    // A handler gave `context.responseHeaders` as its Response's headers and
    // the Response kept the object as its own (@hono/node-server's does):
    // they are on it already, and appending its cookies to itself would
    // never end.
    if ((to as unknown) === staged) return;
    const real = staged.#real;
    if (real !== undefined) {
      let cookies = false;
      // forEach, not for-of: Deno's Headers iterator costs about 5x more.
      real.forEach((value, name) => {
        if (name === "set-cookie") cookies = true;
        else to.set(name, value);
      });
      if (cookies) appendCookies(to, real.getSetCookie());
      return;
    }
    const names = staged.#names;
    for (let i = 0; i < names.length; i++) {
      const value = staged.#values[i];
      if (value !== undefined) to.set(names[i]!, value);
    }
    const cookies = staged.#cookies;
    if (cookies !== undefined) appendCookies(to, cookies);
  }

  /** Whether nothing is staged (so the response needs no change). */
  static isEmpty(staged: StagedHeaders): boolean {
    if (staged.#real !== undefined) return false;
    if (staged.#cookies !== undefined && staged.#cookies.length > 0) {
      return false;
    }
    for (const value of staged.#values) if (value !== undefined) return false;
    return true;
  }

  static {
    // Every other member of the runtime's Headers (get, has, forEach,
    // entries, getSetCookie, the iterator, and Bun's toJSON, count and
    // getAll) reads the real headers.
    forwardHeaders(StagedHeaders.prototype, (self) => self.#materialize());
  }
}
