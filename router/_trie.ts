import { compilePattern, type Pattern } from "./_linear.ts";
import {
  encodePathText,
  expandOptionals,
  type FlatToken,
  parsePattern,
  type PatternToken,
} from "../routes/pattern.ts";

/**
 * Route matching. Static paths are one `Map` lookup per method; dynamic
 * ones walk a segment trie (static child, then parameter children, then
 * wildcard tails), so the ranking "static beats parameter beats wildcard,
 * left to right; ties by insertion order" falls out of the search order.
 */

/** What a route registers; `T` is the router's payload (the handler chain). */
export interface Entry<T> {
  readonly value: T;
  /** Parameter names in capture order. */
  readonly names: readonly string[];
  /** The answer for a static path, made once: a static hit allocates nothing. */
  readonly hit: Match<T>;
  /**
   * Builds the params object from the captured values, in capture order.
   * Made on first use: only the interpreter needs it (generated code writes
   * its own object literals).
   */
  build?: ParamsFactory;
}

export type ParamsFactory = (
  values: readonly string[],
) => Record<string, string>;

/** A matched route and its decoded parameters. */
export interface Match<T> {
  readonly value: T;
  /** `undefined` for a route without parameters. */
  readonly params: Record<string, string> | undefined;
}

export interface Segment<T> {
  readonly regex: Pattern;
  /** Count of static characters: more is more specific, so tried first. */
  readonly specificity: number;
  readonly node: Node<T>;
}

export interface Tail<T> {
  readonly regex: Pattern;
  /** Static characters before the wildcard in its segment (`x*` has 1). */
  readonly specificity: number;
  readonly entries: Entry<T>[];
}

export interface StaticChild<T> {
  readonly text: string;
  readonly node: Node<T>;
}

export class Node<T> {
  /**
   * Static children by the char code of their first character (pathnames
   * are ASCII once percent-encoded): a segment is compared in place with
   * `startsWith`, so no substring is cut or hashed on the way down.
   */
  statics: (StaticChild<T>[] | undefined)[] | undefined;
  /** Mixed segments (`@:id`, `:a.:b`), most specific first, then `param`. */
  segments: Segment<T>[] = [];
  param: Node<T> | undefined;
  /** Wildcard tails with static text before the `*`: tried before `param`. */
  prefixedTails: Tail<T>[] = [];
  tails: Tail<T>[] = [];
  /** The child for an empty segment (`/a//b`, or `/:id/` at the end). */
  empty: Node<T> | undefined;
  entries: Entry<T>[] = [];
}

/** One method's routes: statics by pathname, the rest in a trie. */
export class Table<T> {
  readonly statics = new Map<string, Entry<T>>();
  readonly root = new Node<T>();
  dynamic = false;
  /** Whether `find` runs generated code (for tests). */
  compiled = false;
  /**
   * Finds the route for a pathname. It starts as a stub that prepares the
   * table (compiles it) and replaces itself; an insert puts the stub back,
   * so routes added at start-up are compiled once, on the first lookup.
   */
  find: (path: string) => Match<T> | undefined;
  readonly #prepare: (
    table: Table<T>,
  ) => (path: string) => Match<T> | undefined;

  constructor(
    prepare: (table: Table<T>) => (path: string) => Match<T> | undefined,
  ) {
    this.#prepare = prepare;
    this.find = (path) => this.#prepare(this)(path);
  }

  /** Puts the preparing stub back after a change. */
  invalidate(): void {
    this.find = (path) => this.#prepare(this)(path);
  }
}

/** A compiled form of one pattern, ready to insert. */
export interface Form {
  /** Set when the form has no parameter: the exact pathname. */
  readonly path: string | undefined;
  /** Segments before the first wildcard. */
  readonly segments: readonly FlatToken[][];
  /** From the first wildcard's segment to the end, as one regex. */
  readonly tail: Pattern | undefined;
  /** Static characters before the wildcard in its segment. */
  readonly tailSpecificity: number;
  readonly names: readonly string[];
}

/** Compiles a pattern into its forms (one per choice of optional groups). */
export function compile(pattern: string): Form[] {
  const tokens = parsePattern(pattern);
  const forms = countForms(tokens);
  if (forms > MAX_FORMS) {
    throw new TypeError(
      `Route pattern "${pattern}" expands to more than ${MAX_FORMS} ` +
        `combinations of optional groups (each group doubles them); ` +
        `split it into several routes`,
    );
  }
  return expandOptionals(tokens).map((tokens) => {
    const names: string[] = [];
    for (const token of tokens) {
      if (token.type === "param") names.push(token.name);
      else if (token.type === "wildcard") names.push(token.name ?? "*");
    }
    if (!tokens.some((token) => token.type !== "text")) {
      const text = tokens.map((token) => (token as { value: string }).value)
        .join("");
      return {
        path: encodePathText(text),
        segments: [],
        tail: undefined,
        tailSpecificity: 0,
        names,
      };
    }
    // Split into segments at "/" inside text tokens.
    const segments: FlatToken[][] = [];
    let current: FlatToken[] | undefined;
    for (const token of tokens) {
      if (token.type !== "text") {
        if (current === undefined) segments.push(current = []);
        current.push(token);
        continue;
      }
      const parts = token.value.split("/");
      parts.forEach((part, i) => {
        if (i > 0) segments.push(current = []);
        else if (current === undefined) segments.push(current = []);
        if (part !== "") current!.push({ type: "text", value: part });
      });
    }
    // segments[0] is what precedes the leading "/", empty for valid patterns.
    segments.shift();
    const wild = segments.findIndex((s) =>
      s.some((t) => t.type === "wildcard")
    );
    if (wild === -1) {
      return {
        path: undefined,
        segments,
        tail: undefined,
        tailSpecificity: 0,
        names,
      };
    }
    const first = segments[wild];
    const prefix = first.slice(
      0,
      first.findIndex((t) => t.type === "wildcard"),
    );
    const rest: FlatToken[] = [];
    for (const segment of segments.slice(wild)) {
      rest.push({ type: "text", value: "/" }, ...segment);
    }
    return {
      path: undefined,
      segments: segments.slice(0, wild),
      tail: compilePattern(rest),
      tailSpecificity: staticLength(prefix),
      names,
    };
  });
}

/**
 * The most forms one pattern may expand to: each optional group doubles
 * them, so 10 independent groups. Expanding is eager (one trie branch per
 * form), so without a bound 20 groups cost seconds and gigabytes.
 */
export const MAX_FORMS = 1024;

/** How many forms a pattern expands to, counted without expanding (capped). */
function countForms(tokens: readonly PatternToken[]): number {
  let count = 1;
  for (const token of tokens) {
    if (token.type === "optional") {
      count = Math.min(count * (1 + countForms(token.tokens)), MAX_FORMS + 1);
    }
  }
  return count;
}

/** Whether a segment is exactly one parameter. */
function isParam(segment: readonly FlatToken[]): boolean {
  return segment.length === 1 && segment[0].type === "param";
}

function isStatic(segment: readonly FlatToken[]): boolean {
  return segment.every((token) => token.type === "text");
}

/** Count of static characters: more is more specific. */
function staticLength(segment: readonly FlatToken[]): number {
  let length = 0;
  for (const token of segment) {
    if (token.type === "text") length += token.value.length;
  }
  return length;
}

export function insert<T>(table: Table<T>, form: Form, entry: Entry<T>): void {
  table.invalidate();
  if (form.path !== undefined) {
    // The first route added for a path wins; later ones stay reachable by
    // other methods only.
    if (!table.statics.has(form.path)) table.statics.set(form.path, entry);
    return;
  }
  table.dynamic = true;
  let node = table.root;
  for (const segment of form.segments) {
    if (segment.length === 0) {
      node = node.empty ??= new Node();
    } else if (isStatic(segment)) {
      const text = encodePathText(
        segment.map((t) => (t as { value: string }).value).join(""),
      );
      const bucket = (node.statics ??= [])[text.charCodeAt(0)] ??= [];
      let child = bucket.find((c) => c.text === text);
      if (child === undefined) bucket.push(child = { text, node: new Node() });
      node = child.node;
    } else if (isParam(segment)) {
      node = node.param ??= new Node();
    } else {
      const pattern = compilePattern(segment);
      let found = node.segments.find((s) => s.regex.source === pattern.source);
      if (found === undefined) {
        found = {
          regex: pattern,
          specificity: staticLength(segment),
          node: new Node(),
        };
        node.segments.push(found);
        // Stable sort: more static text first; equal ones keep their order.
        node.segments.sort((a, b) => b.specificity - a.specificity);
      }
      node = found.node;
    }
  }
  if (form.tail === undefined) {
    node.entries.push(entry);
    return;
  }
  const tails = form.tailSpecificity > 0 ? node.prefixedTails : node.tails;
  let tail = tails.find((t) => t.regex.source === form.tail!.source);
  if (tail === undefined) {
    tails.push(
      tail = {
        regex: form.tail,
        specificity: form.tailSpecificity,
        entries: [],
      },
    );
    // Stable sort: more static text before the "*" first.
    tails.sort((a, b) => b.specificity - a.specificity);
  }
  tail.entries.push(entry);
}

/** Decodes a captured value; `undefined` for a malformed escape. */
export function decode(value: string): string | undefined {
  if (value.indexOf("%") === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/**
 * The prototype of every params object: empty, itself without prototype,
 * so request data never meets `Object.prototype` (`params.constructor` is
 * `undefined` unless a parameter is named so, and a parameter named
 * `__proto__` is an ordinary property). An object literal with
 * `__proto__: null` would do the same but is built 60 times slower.
 */
export const PARAMS_PROTOTYPE: object = Object.freeze(Object.create(null));

/**
 * Makes a function that builds a route's params object with a fixed
 * shape, so V8 sees one object layout per route instead of a megamorphic
 * keyed store. Where code generation is disallowed (some edge runtimes),
 * it falls back to a loop.
 */
export function paramsFactory(names: readonly string[]): ParamsFactory {
  const Params = paramsClass(names);
  if (Params !== undefined) {
    const args = names.map((_, i) => `v[${i}]`).join(", ");
    return new Function("C", `return (v) => new C(${args});`)(Params);
  }
  return (values) => {
    const params = Object.create(PARAMS_PROTOTYPE);
    for (let i = 0; i < names.length; i++) params[names[i]] = values[i];
    return params;
  };
}

/** A params constructor taking the values in order; `new` gives a fixed shape. */
export type ParamsClass = new (...values: string[]) => Record<string, string>;

/** Generates a {@linkcode ParamsClass}; `undefined` where code generation is off. */
export function paramsClass(names: readonly string[]): ParamsClass | undefined {
  const fields = names.map((name, i) =>
    `this[${JSON.stringify(name)}] = a${i};`
  )
    .join(" ");
  const args = names.map((_, i) => `a${i}`).join(", ");
  try {
    return new Function(
      "P",
      `function Params(${args}) { ${fields} }\nParams.prototype = P;\nreturn Params;`,
    )(PARAMS_PROTOTYPE);
  } catch {
    return undefined;
  }
}
