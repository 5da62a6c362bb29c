/**
 * Field names to an object: `a` → a value, repeats → an array, `a[]` → always
 * an array, `a.b` → nested object, `a[0].b` → array of objects. Hostile names
 * are refused with a message, never thrown, and never reach a prototype: a key
 * that could (`__proto__`, `constructor`, `prototype`) is refused before any
 * object is touched, and an inherited member (a function: a form's values
 * never are) reads as absent. Plain objects rather than null-prototype ones:
 * V8 keeps those in dictionary mode, which made every schema read slower.
 *
 * @module
 */

/** Highest array index a name may hold (`a[1000]`). */
export const MAX_INDEX = 1000;
/** Most segments in one name (`a.b.c` has three). */
export const MAX_DEPTH = 16;
/**
 * Most array slots left empty in one form, across all its arrays: skipped
 * indexes (`a[5]` alone leaves 5). Without a bound, 1,000 fields
 * `o[i].l[1000].x` leave a million holes that a schema reports one by one.
 */
export const MAX_HOLES = 1000;
/**
 * Longest field name. A name is hashed when it becomes a key, and V8 hashes
 * a string longer than 16,383 characters by its length alone, so long
 * equal-length names collide in every object and Map: longer names are
 * refused before any lookup.
 */
export const MAX_NAME_LENGTH = 1000;
/** Longest name quoted in full in a message. */
const QUOTE_LIMIT = 100;

const DOT = 46; // .
const OPEN = 91; // [
const CLOSE = 93; // ]
const ZERO = 48;
const NINE = 57;

/** A name split into keys (strings) and indexes (numbers). */
interface ParsedName {
  readonly path: readonly (string | number)[];
  /** The name ends in `[]`: the value always goes into an array. */
  readonly append: boolean;
}

type Container = Record<string, unknown> | unknown[];

/** What {@linkcode buildValues} gives: the object, and one message per refused name. */
export interface BuiltValues {
  values: Record<string, unknown>;
  errors: string[] | undefined;
}

function quote(name: string): string {
  return JSON.stringify(
    name.length > QUOTE_LIMIT ? name.slice(0, QUOTE_LIMIT) + "…" : name,
  );
}

function refused(name: string, why: string): string {
  return `Field name ${quote(name)} is refused: ${why}`;
}

function isForbiddenKey(key: string): boolean {
  return key === "__proto__" || key === "constructor" || key === "prototype";
}

function forbidden(name: string, key: string): string {
  return refused(name, `"${key}" cannot be a key (prototype pollution)`);
}

// A form sends the same names on every request: parsing each once is most of
// the cost of a nested form. Bounded in count and name length; hostile names
// that churn it only cost a re-parse. Entries are never mutated.
const CACHE_SIZE = 1000;
const CACHE_NAME_LIMIT = 200;
const parsedNames = new Map<string, ParsedName | string>();

/** Splits a name with `.` or `[`; returns a message when it is malformed. */
function parseName(name: string): ParsedName | string {
  const path: (string | number)[] = [];
  const n = name.length;
  let i = 0;
  let append = false;
  while (i < n) {
    const c = name.charCodeAt(i);
    if (i === 0 || c === DOT) {
      const start = i === 0 ? 0 : i + 1;
      let end = start;
      while (end < n) {
        const d = name.charCodeAt(end);
        if (d === DOT || d === OPEN || d === CLOSE) break;
        end++;
      }
      if (end === start) {
        return refused(
          name,
          start === 0
            ? "it must start with a key"
            : `empty key after "." at position ${i}`,
        );
      }
      const key = name.slice(start, end);
      if (isForbiddenKey(key)) return forbidden(name, key);
      path.push(key);
      i = end;
    } else if (c === OPEN) {
      if (name.charCodeAt(i + 1) === CLOSE) {
        if (i + 2 !== n) return refused(name, `"[]" may only end a name`);
        append = true;
        break;
      }
      let end = i + 1;
      while (end < n) {
        const d = name.charCodeAt(end);
        if (d < ZERO || d > NINE) break;
        end++;
      }
      if (end === n) return refused(name, `"[" at position ${i} is not closed`);
      if (name.charCodeAt(end) !== CLOSE || end === i + 1) {
        return refused(
          name,
          `brackets must hold an index from 0 to ${MAX_INDEX}, as in "a[0]"`,
        );
      }
      const digits = end - i - 1;
      if (digits > 1 && name.charCodeAt(i + 1) === ZERO) {
        return refused(name, "an index cannot have leading zeros");
      }
      // At most four digits are parsed: a[99999999] is refused unread.
      const index = digits > 4 ? Infinity : Number(name.slice(i + 1, end));
      if (index > MAX_INDEX) {
        return refused(
          name,
          `index ${
            digits > 12 ? "" : name.slice(i + 1, end) + " "
          }is above the limit of ${MAX_INDEX}`,
        );
      }
      path.push(index);
      i = end + 1;
      if (i < n) {
        const next = name.charCodeAt(i);
        if (next !== DOT && next !== OPEN) {
          return refused(name, `"." or "[" must follow "]" at position ${end}`);
        }
      }
    } else {
      return refused(name, `"]" at position ${i} has no "["`);
    }
    if (path.length > MAX_DEPTH) {
      return refused(name, `it nests deeper than ${MAX_DEPTH} levels`);
    }
  }
  return { path, append };
}

function describe(value: unknown, lists: Set<unknown> | undefined): string {
  if (Array.isArray(value)) {
    return lists?.has(value) ? "a list of values" : "a list (with [index])";
  }
  return typeof value === "object" && !(value instanceof Blob)
    ? "an object (with .key)"
    : "a value";
}

/**
 * Builds the object that a form's names describe. Names that cannot be placed
 * are left out, with one message each in `errors`.
 */
export function buildValues(input: FormData | URLSearchParams): BuiltValues {
  const values: Record<string, unknown> = {};
  let errors: string[] | undefined;
  // Arrays made of repeated values (`tags`, `tags[]`), as opposed to arrays
  // made by indexes (`items[0]`); created on the first one.
  let lists: Set<unknown> | undefined;
  // Empty array slots now in the form: skipped indexes, less those filled
  // since (so the order of the fields does not matter).
  let holes = 0;

  // forEach: twice as fast as the entries iterator in Deno.
  (input as FormData).forEach((value, name) => {
    // A file input left empty: as if absent.
    if (typeof value !== "string" && value.name === "" && value.size === 0) {
      return;
    }
    if (name.length > MAX_NAME_LENGTH) {
      (errors ??= []).push(
        refused(name, `it is longer than ${MAX_NAME_LENGTH} characters`),
      );
      return;
    }
    // Fast path: a flat name.
    let plain = name.length > 0;
    for (let i = 0; plain && i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c === DOT || c === OPEN || c === CLOSE) plain = false;
    }
    if (plain) {
      if (isForbiddenKey(name)) {
        (errors ??= []).push(forbidden(name, name));
        return;
      }
      const existing = values[name];
      if (existing === undefined || typeof existing === "function") {
        values[name] = value;
      } else if (lists?.has(existing)) {
        (existing as unknown[]).push(value);
      } else if (
        typeof existing === "string" || existing instanceof Blob
      ) {
        const list = [existing, value];
        (lists ??= new Set()).add(list);
        values[name] = list;
      } else {
        (errors ??= []).push(
          refused(
            name,
            `"${name}" is already ${describe(existing, lists)}`,
          ),
        );
      }
      return;
    }

    if (name.length === 0) {
      (errors ??= []).push("A field with an empty name is refused");
      return;
    }
    // Only short names are cached: a longer one is never looked up there.
    let parsed = name.length <= CACHE_NAME_LIMIT
      ? parsedNames.get(name)
      : undefined;
    if (parsed === undefined) {
      parsed = parseName(name);
      if (name.length <= CACHE_NAME_LIMIT) {
        if (parsedNames.size >= CACHE_SIZE) parsedNames.clear();
        parsedNames.set(name, parsed);
      }
    }
    if (typeof parsed === "string") {
      (errors ??= []).push(parsed);
      return;
    }
    const { path, append } = parsed;
    let container: Container = values;
    let failure: string | undefined;
    const last = path.length - 1;
    for (let depth = 0; depth < last; depth++) {
      const key = path[depth];
      const wantsArray = typeof path[depth + 1] === "number";
      const existing: unknown = (container as Record<string | number, unknown>)[
        key
      ];
      if (existing === undefined || typeof existing === "function") {
        if (typeof key === "number") {
          const change = slotChange(container as unknown[], key);
          if (holes + change > MAX_HOLES) {
            failure = tooManyHoles();
            break;
          }
          holes += change;
        }
        const created: Container = wantsArray ? [] : {};
        (container as Record<string | number, unknown>)[key] = created;
        container = created;
      } else if (
        wantsArray
          ? Array.isArray(existing) && !lists?.has(existing)
          : typeof existing === "object" && existing !== null &&
            !Array.isArray(existing) && !(existing instanceof Blob)
      ) {
        container = existing as Container;
      } else {
        failure = `${quote(pathName(path, depth + 1))} is already ${
          describe(existing, lists)
        }`;
        break;
      }
    }
    if (failure === undefined) {
      const key = path[last];
      const slot = container as Record<string | number, unknown>;
      const existing = slot[key];
      if (existing === undefined || typeof existing === "function") {
        if (typeof key === "number") {
          const change = slotChange(container as unknown[], key);
          if (holes + change > MAX_HOLES) {
            (errors ??= []).push(refused(name, tooManyHoles()));
            return;
          }
          holes += change;
        }
        if (append) {
          const list = [value];
          (lists ??= new Set()).add(list);
          slot[key] = list;
        } else {
          slot[key] = value;
        }
      } else if (lists?.has(existing)) {
        (existing as unknown[]).push(value);
      } else if (typeof existing === "string" || existing instanceof Blob) {
        const list = [existing, value];
        (lists ??= new Set()).add(list);
        slot[key] = list;
      } else {
        failure = `${quote(pathName(path, path.length))} is already ${
          describe(existing, lists)
        }`;
      }
    }
    if (failure !== undefined) (errors ??= []).push(refused(name, failure));
  });
  return { values, errors };
}

/**
 * How the count of empty slots changes when `array[index]`, now empty, is
 * set: the indexes it skips past the end become holes, or a hole is filled.
 */
function slotChange(array: unknown[], index: number): number {
  return index >= array.length ? index - array.length : -1;
}

function tooManyHoles(): string {
  return `it would leave more than ${MAX_HOLES} array indexes empty in the form (skipped indexes count, across all arrays)`;
}

/** The first `length` segments of a path, written as a field name. */
export function pathName(
  path: readonly (string | number)[],
  length: number = path.length,
): string {
  let name = "";
  for (let i = 0; i < length; i++) {
    const key = path[i];
    name += typeof key === "number"
      ? `[${key}]`
      : name === "" && i === 0
      ? key
      : "." + key;
  }
  return name;
}
