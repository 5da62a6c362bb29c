/**
 * The route trie: static segments, parameters and wildcards as nodes,
 * built from the patterns of `matcher/pattern.ts`, shared by the compiled
 * matcher and the interpreter.
 *
 * @module
 */

import { compilePattern, type Pattern } from "./capture_pattern.ts";
import {
  encodePathText,
  expandOptionals,
  type FlatToken,
  parsePattern,
} from "./pattern.ts";
import { normalizeEscapes } from "../url_path/url_path.ts";

/**
 * Route matching. Static paths are one `Map` lookup per method; dynamic
 * ones walk a segment trie (static child, then parameter children, then
 * wildcard tails), so the ranking "more static text wins, then a parameter
 * beats a wildcard, left to right; ties by insertion order" falls out of the
 * search order; wildcard tails are ranked whole (`rankOf`).
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
  /** Static text before the first variable: the key of sibling dispatch. */
  readonly prefix: string;
  /** Static text after the last variable: the key when the prefix is empty. */
  readonly suffix: string;
  /** Count of static characters: more is more specific, so tried first. */
  readonly specificity: number;
  readonly node: Node<T>;
}

export interface Tail<T> {
  readonly regex: Pattern;
  /** Static text before the first variable of its segment (`f` of `/f*`). */
  readonly prefix: string;
  /** Static text after the last variable, at the end of the path. */
  readonly suffix: string;
  /** Static characters before the wildcard in its segment (`x*` has 1). */
  readonly specificity: number;
  /** The whole tail's rank, segment by segment (see `rankOf`). */
  readonly rank: readonly number[];
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
  /**
   * Built by `index()` where siblings are many (see WIDE): static children
   * by their text, and mixed segments and tails by their static prefix, so
   * a lookup tries only the siblings whose prefix the path has.
   */
  staticMap: Map<string, StaticChild<T>> | undefined;
  /** The longest key of `staticMap`: a longer segment is not looked up. */
  staticLongest = 0;
  /** Children by kind and text or source, so an insert finds its own at once. */
  readonly children = new Map<string, StaticChild<T> | Segment<T> | Tail<T>>();
  segmentIndex: PrefixIndex | undefined;
  prefixedIndex: PrefixIndex | undefined;
  tailIndex: PrefixIndex | undefined;
}

/**
 * Beyond this many mixed segments or tails, a node dispatches them by
 * prefix; beyond STATIC_WIDE static children sharing a first character, it
 * looks them up in a map (the generated switch handles fewer well).
 */
export const WIDE = 8;
export const STATIC_WIDE = 32;

/**
 * Positions of siblings (in their ranked list) by their static prefix, or
 * by their static suffix where the prefix is empty (`:x.t1`). A lookup
 * probes one map entry per distinct prefix or suffix length, so its cost is
 * set by those lengths, not by the number of siblings; siblings with
 * neither are always tried.
 */
export class PrefixIndex {
  readonly #prefixes = new Affix();
  readonly #suffixes = new Affix();
  readonly #always: number[] = [];

  constructor(affixes: readonly { prefix: string; suffix: string }[]) {
    affixes.forEach(({ prefix, suffix }, i) => {
      if (prefix !== "") this.#prefixes.add(prefix, i);
      else if (suffix !== "") this.#suffixes.add(suffix, i);
      else this.#always.push(i);
    });
  }

  /**
   * The positions worth trying, best ranked first: a prefix must start the
   * text at `from` and end by `to`; a suffix must end it at `end`.
   */
  candidates(text: string, from: number, to: number, end: number): number[] {
    const found: number[] = [];
    this.#prefixes.collect(text, from, to, true, found);
    this.#suffixes.collect(text, from, end, false, found);
    if (this.#always.length > 0) found.push(...this.#always);
    return found.length > 1 ? found.sort((a, b) => a - b) : found;
  }
}

/** Positions by a text, probed once per distinct text length. */
class Affix {
  /** Distinct lengths, ascending. */
  lengths: number[] = [];
  readonly map = new Map<string, number[]>();

  add(text: string, position: number): void {
    let list = this.map.get(text);
    if (list === undefined) this.map.set(text, list = []);
    list.push(position);
    if (!this.lengths.includes(text.length)) {
      this.lengths = [...this.lengths, text.length].sort((a, b) => a - b);
    }
  }

  collect(
    text: string,
    from: number,
    to: number,
    atStart: boolean,
    into: number[],
  ): void {
    for (const length of this.lengths) {
      if (from + length > to) break;
      const list = this.map.get(
        atStart ? text.slice(from, from + length) : text.slice(to - length, to),
      );
      if (list !== undefined) into.push(...list);
    }
  }
}

/** Builds the dispatch indexes of wide nodes, once per compile. */
export function index<T>(node: Node<T>): void {
  node.staticMap = undefined;
  node.staticLongest = 0;
  if (node.statics !== undefined) {
    let widest = 0;
    for (const bucket of node.statics) {
      widest = Math.max(widest, bucket?.length ?? 0);
    }
    if (widest > STATIC_WIDE) {
      node.staticMap = new Map();
      for (const bucket of node.statics) {
        for (const child of bucket ?? []) {
          node.staticMap.set(child.text, child);
          node.staticLongest = Math.max(node.staticLongest, child.text.length);
        }
      }
    }
    for (const bucket of node.statics) {
      for (const child of bucket ?? []) index(child.node);
    }
  }
  const wide = <X extends { prefix: string; suffix: string }>(
    list: readonly X[],
  ) => list.length > WIDE ? new PrefixIndex(list) : undefined;
  node.segmentIndex = wide(node.segments);
  node.prefixedIndex = wide(node.prefixedTails);
  node.tailIndex = wide(node.tails);
  for (const segment of node.segments) index(segment.node);
  if (node.param !== undefined) index(node.param);
  if (node.empty !== undefined) index(node.empty);
}

/** Whether any node of the trie dispatches by prefix (then it is interpreted). */
export function isWide<T>(node: Node<T>): boolean {
  if (
    node.staticMap !== undefined || node.segmentIndex !== undefined ||
    node.prefixedIndex !== undefined || node.tailIndex !== undefined
  ) return true;
  for (const bucket of node.statics ?? []) {
    for (const child of bucket ?? []) if (isWide(child.node)) return true;
  }
  return node.segments.some((s) => isWide(s.node)) ||
    (node.param !== undefined && isWide(node.param)) ||
    (node.empty !== undefined && isWide(node.empty));
}

/** Static text before the first variable. */
function prefixOf(tokens: readonly FlatToken[]): string {
  let prefix = "";
  for (const token of tokens) {
    if (token.type !== "text") break;
    prefix += token.value;
  }
  return encodePathText(prefix);
}

/** Static text after the last variable. */
function suffixOf(tokens: readonly FlatToken[]): string {
  let suffix = "";
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i];
    if (token.type !== "text") break;
    suffix = token.value + suffix;
  }
  return encodePathText(suffix);
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
  /** From the first wildcard's segment to the end, as one matcher. */
  readonly tail: Pattern | undefined;
  /** Static characters before the wildcard in its segment. */
  readonly tailSpecificity: number;
  /** Static text before the first variable of the tail's first segment. */
  readonly tailPrefix: string;
  /** Static text after the tail's last variable. */
  readonly tailSuffix: string;
  readonly tailRank: readonly number[];
  readonly names: readonly string[];
}

/** Compiles a pattern into its forms (one per choice of optional groups). */
export function compile(pattern: string): Form[] {
  return expandOptionals(parsePattern(pattern)).map((raw) => {
    // Static text is compared with request paths after normalizeEscapes,
    // so it goes through the same decoding: `/%61` is the route `/a`.
    // The form that leaves out every group of `(/a)(/b)` is the path "/".
    const tokens = raw.length === 0
      ? [{ type: "text", value: "/" } as const]
      : raw.map((token): FlatToken =>
        token.type === "text"
          ? { type: "text", value: normalizeEscapes(token.value) }
          : token
      );
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
        tailPrefix: "",
        tailSuffix: "",
        tailRank: [],
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
        tailPrefix: "",
        tailSuffix: "",
        tailRank: [],
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
      tailPrefix: prefixOf(first),
      tailSuffix: suffixOf(rest),
      tailRank: rankOf(segments.slice(wild)),
      names,
    };
  });
}

/**
 * The rank of a wildcard tail, three numbers per segment, compared left to
 * right: static characters (more wins, so `7*` beats `:id` and `*`), then
 * no wildcard over a wildcard, then no parameter over a parameter. A tail
 * equal to another's start but longer wins (it has more static text, the
 * slashes). So `/*\/123/:id/7*` beats `/*\/123/:id/*`, and `/*\/*` beats
 * `/*`, whatever the order they were added in.
 */
function rankOf(segments: readonly FlatToken[][]): number[] {
  const rank: number[] = [];
  for (const segment of segments) {
    rank.push(
      staticLength(segment),
      segment.some((t) => t.type === "wildcard") ? 0 : 1,
      segment.some((t) => t.type === "param") ? 0 : 1,
    );
  }
  return rank;
}

/** Orders tails best first: higher rank left to right; longer wins a tie. */
function compareRanks(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a[i] !== b[i]) return b[i] - a[i];
  }
  return b.length - a.length;
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

/** Inserts `item` before the first element that ranks below it. */
function placeAfterEqual<X>(
  list: X[],
  item: X,
  below: (other: X) => boolean,
): void {
  let at = list.length;
  while (at > 0 && below(list[at - 1])) at--;
  list.splice(at, 0, item);
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
      let child = node.children.get("s" + text) as StaticChild<T> | undefined;
      if (child === undefined) {
        child = { text, node: new Node() };
        node.children.set("s" + text, child);
        ((node.statics ??= [])[text.charCodeAt(0)] ??= []).push(child);
      }
      node = child.node;
    } else if (isParam(segment)) {
      node = node.param ??= new Node();
    } else {
      const pattern = compilePattern(segment);
      const source = pattern.source;
      let found = node.children.get("m" + source) as Segment<T> | undefined;
      if (found === undefined) {
        found = {
          regex: pattern,
          prefix: prefixOf(segment),
          suffix: suffixOf(segment),
          specificity: staticLength(segment),
          node: new Node(),
        };
        node.children.set("m" + source, found);
        // More static text first; equal ones keep their order.
        const specificity = found.specificity;
        placeAfterEqual(
          node.segments,
          found,
          (s) => s.specificity < specificity,
        );
      }
      node = found.node;
    }
  }
  if (form.tail === undefined) {
    node.entries.push(entry);
    return;
  }
  const tails = form.tailSpecificity > 0 ? node.prefixedTails : node.tails;
  const key = (form.tailSpecificity > 0 ? "p" : "t") + form.tail.source;
  let tail = node.children.get(key) as Tail<T> | undefined;
  if (tail === undefined) {
    tail = {
      regex: form.tail,
      prefix: form.tailPrefix,
      suffix: form.tailSuffix,
      specificity: form.tailSpecificity,
      rank: form.tailRank,
      entries: [],
    };
    node.children.set(key, tail);
    // The whole tail ranked left to right; ties keep the order routes were
    // added in.
    const rank = tail.rank;
    placeAfterEqual(tails, tail, (t) => compareRanks(t.rank, rank) > 0);
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
