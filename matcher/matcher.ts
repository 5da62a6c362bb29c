/**
 * The router's matcher: routes registered into a trie, compiled into code
 * once the table settles, and looked up by method and path.
 *
 * @module
 */

import { compileTable } from "./codegen.ts";
import { search } from "./interpreter.ts";
import { normalizeEscapes } from "../url_path/url_path.ts";
import {
  compile,
  decode,
  type Entry,
  type Form,
  index,
  insert,
  isWide,
  type Match,
  Table,
} from "./trie.ts";

export type { Match } from "./trie.ts";

/**
 * Routes by method. `ANY` routes join every method's table except `HEAD`'s;
 * a `HEAD` request tries explicit `HEAD` routes, then the `GET` table.
 */
export class Matcher<T> {
  readonly #tables = new Map<string, Table<T>>();
  readonly #any = new Table<T>(prepare);
  /** Every route of every method: a miss is one lookup here, not one per method. */
  readonly #union = new Table<T>(prepare);
  readonly #all: { method: string; forms: Form[]; entries: Entry<T>[] }[] = [];
  /** The GET table, once made: most requests skip the lookup by method. */
  #get: Table<T> | undefined;

  /** Adds a route; `pattern` is compiled here, once. */
  add(method: string, pattern: string, value: T): void {
    const forms = compile(pattern);
    const entries: Entry<T>[] = forms.map((form) => ({
      value,
      names: form.names,
      hit: { value, params: undefined },
    }));
    this.#all.push({ method, forms, entries });
    // The HEAD table holds explicit HEAD routes only: a HEAD request falls
    // back to the GET table (which has the ANY routes) when none matches.
    const targets = method !== "ANY" ? [this.#table(method)] : [
      this.#any,
      ...[...this.#tables].filter(([m]) => m !== "HEAD").map(([, t]) => t),
    ];
    for (const table of [...targets, this.#union]) {
      forms.forEach((form, i) => insert(table, form, entries[i]));
    }
  }

  #table(method: string): Table<T> {
    let table = this.#tables.get(method);
    if (table === undefined) {
      // A new table starts with every earlier route that serves this method.
      table = new Table<T>(prepare);
      this.#tables.set(method, table);
      if (method === "GET") this.#get = table;
      for (const route of this.#all) {
        if (
          route.method === method ||
          (route.method === "ANY" && method !== "HEAD")
        ) {
          route.forms.forEach((form, i) =>
            insert(table!, form, route.entries[i])
          );
        }
      }
    }
    return table;
  }

  /** Finds the best route for a method and an encoded pathname. */
  match(method: string, path: string): Match<T> | undefined {
    // normalizeEscapes returns `path` itself when it has no "%".
    return this.find(method, normalizeEscapes(path));
  }

  /** `match`, for a path already through `normalizeEscapes` (routePathOf). */
  find(method: string, path: string): Match<T> | undefined {
    if (method === "GET") return (this.#get ?? this.#any).find(path);
    if (method === "HEAD") {
      const found = this.#tables.get("HEAD")?.find(path);
      return found ?? (this.#get ?? this.#any).find(path);
    }
    return (this.#tables.get(method) ?? this.#any).find(path);
  }

  /** Whether `method`'s dynamic routes run compiled (for tests). */
  isCompiled(method: string): boolean {
    const table = this.#tables.get(method) ?? this.#any;
    for (let i = 0; i < SETTLE; i++) table.find("/");
    return table.compiled;
  }

  /**
   * Whether any route, of any method, matches a path already through
   * `normalizeEscapes` (routePathOf): one lookup for a likely 404.
   */
  has(path: string): boolean {
    return this.#union.find(path) !== undefined;
  }

  /** The methods with a route for `path`, for a `405` `Allow` header. */
  allowed(path: string): string[] {
    path = normalizeEscapes(path);
    const methods: string[] = [];
    if (this.#union.find(path) === undefined) return methods;
    for (const [method, table] of this.#tables) {
      if (table.find(path) !== undefined) methods.push(method);
    }
    if (methods.includes("GET") && !methods.includes("HEAD")) {
      methods.splice(methods.indexOf("GET") + 1, 0, "HEAD");
    }
    return methods;
  }
}

/**
 * Lookups a table serves with the interpreter after a change before it is
 * compiled: routes added while serving (one at a time, between requests)
 * are not compiled once per add, only when the table has settled.
 */
export const SETTLE = 32;

/** How many tables were compiled (for tests of lazy recompiling). */
export let compilations = 0;

/**
 * Builds a table's `find` after a change: the interpreter for the next
 * SETTLE lookups, then generated code (or the interpreter where code
 * generation is unavailable, or for wide sibling sets).
 */
function prepare<T>(table: Table<T>): (path: string) => Match<T> | undefined {
  const { statics, root, dynamic } = table;
  index(root);
  const longest = longestKey(statics);
  const interpret = (path: string): Match<T> | undefined => {
    if (path.length <= longest) {
      const entry = statics.get(path);
      if (entry !== undefined) return entry.hit;
    }
    return dynamic ? search(root, path, 0, 0) : undefined;
  };
  table.compiled = false;
  // Wide sibling sets are dispatched by prefix in the interpreter; the
  // generated code would try them one by one (and outgrow MAX_SOURCE).
  if (!useCodegen || (dynamic && isWide(root))) return table.find = interpret;
  let lookups = 0;
  return table.find = (path) => {
    if (++lookups === SETTLE) {
      compilations++;
      const compiled = compileTable(
        statics,
        dynamic ? root : undefined,
        decode,
      );
      table.compiled = compiled !== undefined;
      table.find = compiled ?? interpret;
    }
    return interpret(path);
  };
}

/**
 * The longest static path: a longer one cannot match, and is not looked up.
 * V8 hashes strings over 16,383 characters by their length alone, so long
 * paths of one length would all collide in the Map (and slow every lookup).
 */
function longestKey(statics: ReadonlyMap<string, unknown>): number {
  let longest = 0;
  for (const key of statics.keys()) longest = Math.max(longest, key.length);
  return longest;
}

let useCodegen = true;

/**
 * Turns code generation off or on (for tests that compare the compiled
 * matcher with the interpreter). Returns the previous setting.
 */
export function setCodegen(enabled: boolean): boolean {
  const previous = useCodegen;
  useCodegen = enabled;
  return previous;
}
