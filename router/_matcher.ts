import {
  encodePathText,
  expandOptionals,
  type FlatToken,
  parsePattern,
} from "../routes/pattern.ts";

/**
 * Route matching. Static paths are one `Map` lookup per method; dynamic
 * ones walk a segment trie (static child, then parameter children, then
 * wildcard tails), so the ranking "static beats parameter beats wildcard,
 * left to right; ties by insertion order" falls out of the search order.
 */

/** What a route registers; `T` is the router's payload (the handler chain). */
interface Entry<T> {
  readonly method: string;
  readonly value: T;
  /** Parameter names in capture order, one list per form of the pattern. */
  readonly names: readonly string[];
}

/** A matched route and its decoded parameters. */
export interface Match<T> {
  readonly value: T;
  readonly params: Record<string, string>;
}

interface Segment<T> {
  readonly regex: RegExp;
  /** Count of static characters: more is more specific, so tried first. */
  readonly specificity: number;
  readonly node: Node<T>;
}

interface Tail<T> {
  readonly regex: RegExp;
  readonly entries: Entry<T>[];
}

class Node<T> {
  statics: Map<string, Node<T>> | undefined;
  /** Mixed segments (`@:id`, `:a.:b`), most specific first, then `param`. */
  segments: Segment<T>[] = [];
  param: Node<T> | undefined;
  tails: Tail<T>[] = [];
  entries: Entry<T>[] = [];
}

/** One method's routes. */
class Table<T> {
  readonly statics = new Map<string, Entry<T>>();
  readonly root = new Node<T>();
  dynamic = false;
}

/** A compiled form of one pattern, ready to insert. */
interface Form {
  /** Set when the form has no parameter: the exact pathname. */
  readonly path: string | undefined;
  /** Segments before the first wildcard. */
  readonly segments: readonly FlatToken[][];
  /** From the first wildcard's segment to the end, as one regex. */
  readonly tail: RegExp | undefined;
  readonly names: readonly string[];
}

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

function escape(text: string): string {
  return encodePathText(text).replace(ESCAPE, "\\$&");
}

function tokensSource(tokens: readonly FlatToken[]): string {
  let source = "";
  for (const token of tokens) {
    if (token.type === "text") source += escape(token.value);
    else if (token.type === "param") source += "([^/]+?)";
    else source += "(.*)";
  }
  return source;
}

/** Compiles a pattern into its forms (one per choice of optional groups). */
export function compile(pattern: string): Form[] {
  return expandOptionals(parsePattern(pattern)).map((tokens) => {
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
      return { path: undefined, segments, tail: undefined, names };
    }
    const rest = segments.slice(wild).map(tokensSource).join("/");
    return {
      path: undefined,
      segments: segments.slice(0, wild),
      tail: new RegExp(`^/${rest}$`),
      names,
    };
  });
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

function insert<T>(table: Table<T>, form: Form, entry: Entry<T>): void {
  if (form.path !== undefined) {
    // The first route added for a path wins; later ones stay reachable by
    // other methods only.
    if (!table.statics.has(form.path)) table.statics.set(form.path, entry);
    return;
  }
  table.dynamic = true;
  let node = table.root;
  for (const segment of form.segments) {
    if (isStatic(segment)) {
      const text = encodePathText(
        segment.map((t) => (t as { value: string }).value).join(""),
      );
      node.statics ??= new Map();
      let child = node.statics.get(text);
      if (child === undefined) node.statics.set(text, child = new Node());
      node = child;
    } else if (isParam(segment)) {
      node = node.param ??= new Node();
    } else {
      const source = `^${tokensSource(segment)}$`;
      let found = node.segments.find((s) => s.regex.source === source);
      if (found === undefined) {
        found = {
          regex: new RegExp(source),
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
  let tail = node.tails.find((t) => t.regex.source === form.tail!.source);
  if (tail === undefined) {
    node.tails.push(tail = { regex: form.tail, entries: [] });
  }
  tail.entries.push(entry);
}

/** Decodes a captured value; `undefined` for a malformed escape. */
function decode(value: string): string | undefined {
  if (value.indexOf("%") === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function paramsOf(
  names: readonly string[],
  values: readonly string[],
): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) params[names[i]] = values[i];
  return params;
}

/**
 * Depth-first search from `node` with the path position at `pos` (a "/"
 * or the end). `values` holds decoded captures so far.
 */
function search<T>(
  node: Node<T>,
  path: string,
  pos: number,
  values: string[],
): Match<T> | undefined {
  const length = path.length;
  if (pos === length) {
    const entry = node.entries[0];
    return entry === undefined
      ? undefined
      : { value: entry.value, params: paramsOf(entry.names, values) };
  }
  if (path.charCodeAt(pos) !== 47 /* "/" */) return undefined;
  let end = path.indexOf("/", pos + 1);
  if (end === -1) end = length;
  if (node.statics !== undefined) {
    const child = node.statics.get(path.slice(pos + 1, end));
    if (child !== undefined) {
      const found = search(child, path, end, values);
      if (found !== undefined) return found;
    }
  }
  if (end > pos + 1) {
    for (const segment of node.segments) {
      const match = segment.regex.exec(path.slice(pos + 1, end));
      if (match === null) continue;
      const depth = values.length;
      let ok = true;
      for (let i = 1; i < match.length && ok; i++) {
        const value = decode(match[i]);
        if (value === undefined) ok = false;
        else values.push(value);
      }
      const found = ok ? search(segment.node, path, end, values) : undefined;
      values.length = depth;
      if (found !== undefined) return found;
    }
    if (node.param !== undefined) {
      const value = decode(path.slice(pos + 1, end));
      if (value !== undefined) {
        values.push(value);
        const found = search(node.param, path, end, values);
        values.length--;
        if (found !== undefined) return found;
      }
    }
  }
  for (const tail of node.tails) {
    const match = tail.regex.exec(path.slice(pos));
    if (match === null) continue;
    const captured = values.slice();
    let ok = true;
    for (let i = 1; i < match.length && ok; i++) {
      const value = decode(match[i]);
      if (value === undefined) ok = false;
      else captured.push(value);
    }
    if (ok) {
      const entry = tail.entries[0];
      return { value: entry.value, params: paramsOf(entry.names, captured) };
    }
  }
  return undefined;
}

/**
 * Routes by method. `ANY` routes join every method's table; `GET` routes
 * also serve `HEAD`.
 */
export class Matcher<T> {
  readonly #tables = new Map<string, Table<T>>();
  readonly #any = new Table<T>();
  readonly #all: { method: string; forms: Form[]; entries: Entry<T>[] }[] = [];

  /** Adds a route; `pattern` is compiled here, once. */
  add(method: string, pattern: string, value: T): void {
    const forms = compile(pattern);
    const entries = forms.map((form) => ({ method, value, names: form.names }));
    this.#all.push({ method, forms, entries });
    const targets = method === "ANY"
      ? [this.#any, ...this.#tables.values()]
      : [this.#table(method)];
    if (method === "GET") targets.push(this.#table("HEAD"));
    for (const table of new Set(targets)) {
      forms.forEach((form, i) => insert(table, form, entries[i]));
    }
  }

  #table(method: string): Table<T> {
    let table = this.#tables.get(method);
    if (table === undefined) {
      // A new table starts with every earlier route that serves this method.
      table = new Table<T>();
      this.#tables.set(method, table);
      for (const route of this.#all) {
        if (
          route.method === "ANY" || route.method === method ||
          (method === "HEAD" && route.method === "GET")
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
    const table = this.#tables.get(method) ?? this.#any;
    const entry = table.statics.get(path);
    if (entry !== undefined) return { value: entry.value, params: {} };
    return table.dynamic ? search(table.root, path, 0, []) : undefined;
  }

  /** The methods with a route for `path`, for a `405` `Allow` header. */
  allowed(path: string): string[] {
    const methods: string[] = [];
    for (const [method, table] of this.#tables) {
      if (
        table.statics.has(path) ||
        (table.dynamic && search(table.root, path, 0, []))
      ) {
        methods.push(method);
      }
    }
    return methods;
  }
}
