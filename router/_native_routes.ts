/**
 * Bun.serve({ routes }) for the router: the routes whose paths Bun's
 * native router matches exactly as ours does, so the common request is
 * never matched (nor its URL read) in JavaScript. Everything else, and
 * anything in doubt, goes to the router's own matcher.
 *
 * @module
 */

import {
  compile,
  type Form,
  paramsClass,
  paramsFactory,
} from "../matcher/trie.ts";
import { PLAIN } from "../url_path/url_path.ts";

/** One route as added: its method, pattern and composed chain. */
export interface Registered<T> {
  method: string;
  pattern: string;
  value: T;
}

/**
 * What a native route hands the router: the chain, the params, and the
 * request's method when the route is Bun's for that one method (so the
 * router need not read it from the request).
 */
export type NativeAnswer<T> = (
  request: Request,
  info: unknown,
  value: T,
  params: Record<string, string> | undefined,
  method: string | undefined,
  done: Finish | undefined,
) => Response | Promise<Response>;

/** What a promised answer is passed through before it settles (a server's tracking). */
export type Finish = (response: Response) => Response;

/** The router's own way for a request: its `fetch`, with `done`. */
export type NativeFallback = (
  request: Request,
  info: unknown,
  done?: Finish,
) => Response | Promise<Response>;

/**
 * What a native miss hands the router: its `done`, the request's method
 * when known, and `absent` (see {@linkcode Absent}) while the routes Bun
 * was given are all the router has.
 */
export type NativeMiss = (
  request: Request,
  info: unknown,
  done: Finish | undefined,
  method: string | undefined,
  absent: Absent | undefined,
) => Response | Promise<Response>;

/**
 * Whether no route of any method could match the path of the request's
 * URL (normalised already): `true` only when that is certain without the
 * router's matcher; `false` when in doubt (the matcher then decides).
 */
export type Absent = (request: Request) => boolean;

/** A route for `Bun.serve`: one function, or one per method. */
export type NativeRoute = NativeHandler | Record<string, NativeHandler>;

// The methods Bun.serve takes as keys of a route's object; a pattern with
// another (or an `ANY` route) keeps one function that reads the method.
const BUN_METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

/** A handler as `serve()` calls the functions of its Bun routes. */
export type NativeHandler = (
  request: Request,
  info: unknown,
) => Response | Promise<Response>;

// Static text Bun and our matcher read alike: unreserved characters only
// (Bun matches the raw path, ours decodes escapes of these first; a path
// that differs only so falls through to our matcher).
const PLAIN_TEXT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Shape = (string | { name: string })[];

/** The path of a pattern as segments, or undefined when Bun cannot route it alike. */
function shapeOf(form: Form): Shape | undefined {
  if (form.path !== undefined) {
    if (form.path === "/") return [];
    const parts = form.path.split("/").slice(1);
    return parts.every((part) => PLAIN_TEXT.test(part)) ? parts : undefined;
  }
  if (form.tail !== undefined) return undefined;
  const shape: Shape = [];
  for (const segment of form.segments) {
    if (segment.length !== 1) return undefined;
    const token = segment[0]!;
    if (token.type === "text" && PLAIN_TEXT.test(token.value)) {
      shape.push(token.value);
    } else if (token.type === "param" && PARAM_NAME.test(token.name)) {
      shape.push({ name: token.name });
    } else return undefined;
  }
  return shape;
}

/**
 * Whether two patterns could match one path. A pattern Bun cannot route
 * (`undefined`, with its forms' leading static segments in `prefix`) is
 * assumed to overlap any pattern its static prefix does not rule out.
 */
function overlaps(
  a: Shape,
  b: Shape | undefined,
  prefix: readonly (string | undefined)[],
): boolean {
  if (b === undefined) {
    for (let i = 0; i < prefix.length && i < a.length; i++) {
      const x = a[i]!, y = prefix[i];
      if (typeof x === "string" && y !== undefined && x !== y) return false;
    }
    return true;
  }
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!, y = b[i]!;
    if (typeof x === "string" && typeof y === "string" && x !== y) {
      return false;
    }
  }
  return true;
}

/** Leading static segments of a form (to rule out overlaps cheaply). */
function staticPrefix(form: Form): (string | undefined)[] {
  if (form.path !== undefined) return form.path.split("/").slice(1);
  const prefix: (string | undefined)[] = [];
  for (const segment of form.segments) {
    const token = segment[0];
    if (segment.length !== 1 || token?.type !== "text") break;
    prefix.push(token.value);
  }
  return prefix;
}

/**
 * A parameter Bun decoded where ours would not match, or would match after
 * the URL's own normalisation (dot segments, backslashes, bad escapes, a
 * fragment in the request target, which Bun keeps and the URL drops).
 */
function doubtful(value: string): boolean {
  // One pass over the characters: three `includes` calls cost Bun more
  // than the loop over a short parameter.
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x5c || code === 0x23 || code === 0xfffd) return true;
  }
  return value === "." || value === "..";
}

/**
 * Reads the parameters Bun's router matched (`request.params`), checked
 * (see `doubtful`): the router's prototype-free params, or `undefined`
 * when the router's own matcher must decide.
 */
type ParamsReader = (
  found: Record<string, string> | undefined,
) => Record<string, string> | undefined;

/**
 * A {@linkcode ParamsReader} for `names`: generated, so that each value
 * is read, checked and passed to the params constructor without an array
 * between (names are plain identifiers, see `PARAM_NAME`); a loop where
 * code generation is off.
 */
function paramsReader(names: readonly string[]): ParamsReader {
  const Params = paramsClass(names);
  if (Params !== undefined) {
    const reads = names.map((name, i) =>
      `const v${i} = f[${JSON.stringify(name)}]; ` +
      `if (v${i} === undefined || d(v${i})) return undefined;`
    ).join(" ");
    const args = names.map((_, i) => `v${i}`).join(", ");
    try {
      return new Function(
        "C",
        "d",
        `return (f) => { if (f === undefined) return undefined; ${reads} return new C(${args}); };`,
      )(Params, doubtful);
    } catch {
      // Code generation is off: the loop below.
    }
  }
  const make = paramsFactory(names);
  return (found) => {
    if (found === undefined) return undefined;
    const values: string[] = [];
    for (const name of names) {
      const one = found[name];
      if (one === undefined || doubtful(one)) return undefined;
      values.push(one);
    }
    return make(values);
  };
}

function paramsOf(
  request: Request,
  read: ParamsReader,
): Record<string, string> | undefined {
  return read((request as { params?: Record<string, string> }).params);
}

/**
 * The `routes` for `Bun.serve`: static patterns, and patterns of whole
 * `:name` segments that no other route could contest. A handler answers
 * the methods its pattern has a route for (first added wins, as in the
 * matcher); another method, a route added since, or a doubtful parameter
 * goes to `fallback`, the router's full path.
 */
export function nativeRoutes<T>(
  registered: readonly Registered<T>[],
  answer: NativeAnswer<T>,
  fallback: NativeFallback,
  missed?: NativeMiss,
  done?: Finish,
): Record<string, NativeRoute> {
  const snapshot = registered.length;
  const live = () => registered.length === snapshot;
  interface Candidate {
    shape: Shape | undefined;
    prefix: (string | undefined)[];
    routes: Registered<T>[];
  }
  const byPattern = new Map<string, Candidate>();
  for (const route of registered) {
    let candidate = byPattern.get(route.pattern);
    if (candidate === undefined) {
      const forms = compile(route.pattern);
      const shape = forms.length === 1 ? shapeOf(forms[0]!) : undefined;
      candidate = {
        shape,
        prefix: forms.length === 1 ? staticPrefix(forms[0]!) : [],
        routes: [],
      };
      byPattern.set(route.pattern, candidate);
    }
    candidate.routes.push(route);
  }
  const candidates = [...byPattern.values()];
  // Rivals of a parameter pattern, found by bucket rather than by a scan of
  // every pattern (quadratic in the routes): patterns Bun cannot route,
  // and parameter patterns of the same length whose first segment is the
  // same text or a parameter.
  const complex = candidates.filter((candidate) =>
    candidate.shape === undefined
  );
  interface Bucket {
    byFirst: Map<string, Candidate[]>;
    paramFirst: Candidate[];
    all: Candidate[];
  }
  const byLength = new Map<number, Bucket>();
  for (const candidate of candidates) {
    const { shape } = candidate;
    if (
      shape === undefined || shape.every((part) => typeof part === "string")
    ) {
      continue;
    }
    let bucket = byLength.get(shape.length);
    if (bucket === undefined) {
      bucket = { byFirst: new Map(), paramFirst: [], all: [] };
      byLength.set(shape.length, bucket);
    }
    bucket.all.push(candidate);
    const first = shape[0];
    if (typeof first === "string") {
      const list = bucket.byFirst.get(first);
      if (list === undefined) bucket.byFirst.set(first, [candidate]);
      else list.push(candidate);
    } else bucket.paramFirst.push(candidate);
  }
  const rivalsOf = (shape: Shape): Candidate[] => {
    const bucket = byLength.get(shape.length)!;
    const first = shape[0];
    return typeof first === "string"
      ? [...(bucket.byFirst.get(first) ?? []), ...bucket.paramFirst]
      : bucket.all;
  };
  const routes: Record<string, NativeRoute> = {};
  const keys = new Set<string>();
  // Whether every pattern went to Bun's router: then a request it matched
  // to none is almost always a 404 (see `missed`).
  let everyRoute = true;
  for (const candidate of candidates) {
    const { shape } = candidate;
    if (shape === undefined) {
      everyRoute = false;
      continue;
    }
    const names = shape.flatMap((part) =>
      typeof part === "string" ? [] : [part.name]
    );
    // Bun.serve refuses a pattern that names a parameter twice (the
    // router gives the last value); it stays with the router.
    if (new Set(names).size !== names.length) {
      everyRoute = false;
      continue;
    }
    if (names.length > 0) {
      // Bun's order among parameter patterns is its own: give it only
      // those no other non-static pattern could contest.
      const contested = complex.some((other) =>
        overlaps(shape, undefined, other.prefix)
      ) ||
        rivalsOf(shape).some((other) =>
          other !== candidate && overlaps(shape, other.shape, other.prefix)
        );
      if (contested) {
        everyRoute = false;
        continue;
      }
    }
    const key = "/" +
      shape.map((part) => typeof part === "string" ? part : `:${part.name}`)
        .join("/");
    // Two patterns that look alike to Bun (`/:a` and `/:b`) are contested.
    if (keys.has(key)) {
      everyRoute = false;
      continue;
    }
    keys.add(key);
    // Per method, the first route that serves it (ANY serves all but HEAD).
    const table: Record<string, T> = Object.create(null);
    const methods = new Set(candidate.routes.map((route) => route.method));
    for (const method of methods) {
      if (method === "ANY") continue;
      table[method] = candidate.routes.find((route) =>
        route.method === method || (route.method === "ANY" && method !== "HEAD")
      )!.value;
    }
    const read = paramsReader(names);
    // Bun picks the function by method (as Elysia's routes are given), so
    // none is read or looked up per request; a method the object lacks
    // goes to serve()'s handler, the router's full path (405, OPTIONS).
    // A GET route also takes HEAD, as in the matcher, unless one is added.
    if (!methods.has("ANY") && [...methods].every((m) => BUN_METHODS.has(m))) {
      const byMethod: Record<string, NativeHandler> = {};
      if (table.GET !== undefined && table.HEAD === undefined) {
        table.HEAD = table.GET;
      }
      for (const method in table) {
        const value = table[method]!;
        byMethod[method] = names.length === 0
          ? (request, info) =>
            live()
              ? answer(request, info, value, undefined, method, done)
              : fallback(request, info, done)
          : (request, info) => {
            if (!live()) return fallback(request, info, done);
            const params = paramsOf(request, read);
            return params === undefined
              ? fallback(request, info, done)
              : answer(request, info, value, params, method, done);
          };
      }
      routes[key] = byMethod;
      continue;
    }
    if (names.length === 0) {
      routes[key] = (request, info) => {
        const value = table[request.method];
        return value === undefined || !live()
          ? fallback(request, info, done)
          : answer(request, info, value, undefined, undefined, done);
      };
      continue;
    }
    routes[key] = (request, info) => {
      const value = table[request.method];
      if (value === undefined || !live()) return fallback(request, info, done);
      const params = paramsOf(request, read);
      return params === undefined
        ? fallback(request, info, done)
        : answer(request, info, value, params, undefined, done);
    };
  }
  // Every route is Bun's: what its router matched to none of them goes to
  // `missed` (Bun prefers any other route to a wildcard), which looks for
  // any route of the path once before it answers 404. Not skipped: Bun's
  // router saw the raw target, the request's URL is normalised (`/x/../a`
  // arrives as `/a`), and ours decodes escapes Bun's does not.
  // One function, which reads the method (a method-keyed wildcard makes
  // Bun hand a method it does not know to the GET function as GET).
  if (missed !== undefined && everyRoute && !("/*" in routes)) {
    const absent = absentOf(candidates, live);
    routes["/*"] = (request, info) =>
      missed(request, info, done, undefined, absent);
  }
  return routes;
}

// Characters of a host and port as a URL serializes them (no userinfo).
const HOST = new Uint8Array(128);
for (
  const char
    of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:[]"
) HOST[char.charCodeAt(0)] = 1;

/**
 * The {@linkcode Absent} of `candidates` (every one a shape Bun routes):
 * by number of segments, the first segments of the patterns of that
 * length, or `true` when one of them starts with a parameter. A route
 * added since (`live()` false) makes it answer `false`.
 */
function absentOf(
  candidates: readonly { shape: Shape | undefined }[],
  live: () => boolean,
): Absent {
  const byLength: (Set<string> | true | undefined)[] = [];
  for (const { shape } of candidates) {
    const length = shape!.length;
    const first = shape![0];
    // The root ("/") is looked up.
    if (length === 0) byLength[0] = true;
    else if (typeof first !== "string") byLength[length] = true;
    else if (byLength[length] !== true) {
      ((byLength[length] ??= new Set()) as Set<string>).add(first);
    }
  }
  return (request) => {
    if (!live()) return false;
    const url = request.url;
    // "http://" or "https://", then a plain host and port up to the path.
    let i = url.charCodeAt(4) === 115 /* s */ ? 8 : 7;
    if (
      url.charCodeAt(i - 1) !== 47 || url.charCodeAt(i - 2) !== 47 ||
      url.charCodeAt(i - 3) !== 58 /* : */
    ) return false;
    const length = url.length;
    for (; i < length; i++) {
      const code = url.charCodeAt(i);
      if (code === 47 /* / */) break;
      if (code > 127 || HOST[code] === 0) return false;
    }
    const start = i;
    let slashes = 0;
    let firstEnd = -1;
    for (; i < length; i++) {
      const code = url.charCodeAt(i);
      if (code === 47 /* / */) {
        if (++slashes === 2) firstEnd = i;
      } else if (code === 63 /* ? */) break;
      else if (code > 127 || PLAIN[code] === 0) return false;
    }
    if (slashes === 0) return false;
    const count = i - start === 1 ? 0 : slashes;
    const firsts = byLength[count];
    if (firsts === undefined) return true;
    if (firsts === true) return false;
    return !firsts.has(url.slice(start + 1, firstEnd === -1 ? i : firstEnd));
  };
}
