/**
 * JSON bodies: the content type, the parse, and the checks on what it gave.
 * `JSON.parse` does the parsing (native, and iterative in V8 and JSC, so deep
 * nesting cannot overflow the stack); a walk of the result then refuses
 * what JSON allows but an API should not take (recursive, since it never
 * goes past `maxDepth`; with its own stack for a `maxDepth` past 1,000).
 * A malformed text is scanned again, on that error path only, to say where
 * it broke: engines' own messages give no position and quote the whole
 * body back.
 *
 * @module
 */

import { HttpError } from "../http_error/mod.ts";
import { issueKey } from "../form_validation/issues.ts";

/** 64: the default `maxDepth`. */
export const DEFAULT_MAX_DEPTH = 64;

/**
 * Refuses with 415 a `Content-Type` that is missing, is neither
 * `application/json` nor `application/*+json`, or names a charset other
 * than UTF-8.
 */
export function checkJsonContentType(header: string | null): void {
  if (header === null) {
    throw new HttpError(
      415,
      "Content-Type is missing: send application/json",
    );
  }
  // What nearly every client sends, without a slice, trim or lowercase.
  if (header === "application/json") return;
  const semicolon = header.indexOf(";");
  const essence = (semicolon === -1 ? header : header.slice(0, semicolon))
    .trim().toLowerCase();
  if (
    essence !== "application/json" &&
    !/^application\/[!#$%&'*.^_`|~0-9a-z-]+\+json$/.test(essence)
  ) {
    throw new HttpError(
      415,
      `Content-Type ${
        JSON.stringify(quoteLimit(essence))
      } is not JSON: send application/json or application/*+json`,
    );
  }
  if (semicolon === -1) return;
  for (const param of header.slice(semicolon + 1).split(";")) {
    const equals = param.indexOf("=");
    if (equals === -1) continue;
    if (param.slice(0, equals).trim().toLowerCase() !== "charset") continue;
    const charset = param.slice(equals + 1).trim().replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") {
      throw new HttpError(
        415,
        `Content-Type charset ${
          JSON.stringify(quoteLimit(charset))
        } is refused: JSON must be UTF-8`,
      );
    }
  }
}

function quoteLimit(text: string): string {
  return text.length > 100 ? text.slice(0, 100) + "…" : text;
}

/** Parses JSON text and checks the value; every refusal is a 400. */
export function parseJsonText(text: string, maxDepth: number): unknown {
  if (text.length === 0) {
    throw new HttpError(400, "Request body is empty: expected JSON");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, malformedMessage(text));
  }
  // Lone surrogates can only come from `\u` escapes: raw ones are invalid
  // UTF-8, refused before this. Strings are only looked at when there are.
  const strings = text.includes("\\u");
  const clean = typeof value !== "object" || value === null
    ? checkPrimitive(value, strings) === undefined
    : maxDepth <= RECURSION_MAX
    ? isCleanTree(value, 1, maxDepth, strings)
    : isClean(value, maxDepth, strings);
  if (!clean) {
    // Again, with paths, to say where: on the error path only.
    throw new HttpError(
      400,
      findProblem(value, maxDepth, strings, true) ??
        "JSON value refused",
    );
  }
  return value;
}

const isWellFormed: (text: string) => boolean =
  typeof String.prototype.isWellFormed === "function"
    ? (text) => text.isWellFormed()
    : (text) =>
      !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
        .test(text);

/**
 * The deepest `maxDepth` walked by recursion: the walk goes no deeper than
 * `maxDepth` (a container past it is refused, not entered), so at most this
 * many frames, well within every engine's stack; past it, the walk keeps a
 * stack of its own.
 */
const RECURSION_MAX = 1000;

/**
 * {@linkcode isClean} for `maxDepth` up to {@linkcode RECURSION_MAX}, by
 * recursion: it keeps no stacks of nodes and depths, and checks keys by
 * comparing each against the three refused ones (interned strings: a
 * pointer compare) instead of three `Object.hasOwn` lookups per object;
 * about 2.4 times as fast as `isClean` on an order of 1,900 items. The same
 * refusals: a key that `JSON.parse` made from escapes (`"\u005f_proto__"`)
 * is the same string by then.
 */
function isCleanTree(
  node: object,
  depth: number,
  maxDepth: number,
  strings: boolean,
): boolean {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const item: unknown = node[i];
      if (typeof item === "object") {
        if (item === null) continue;
        if (depth >= maxDepth) return false;
        if (!isCleanTree(item, depth + 1, maxDepth, strings)) return false;
      } else if (typeof item === "number") {
        // Infinity - Infinity is NaN; JSON has no NaN of its own.
        if (item - item !== 0) return false;
      } else if (strings && typeof item === "string" && !isWellFormed(item)) {
        return false;
      }
    }
    return true;
  }
  const record = node as Record<string, unknown>;
  for (const key in record) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") {
      return false;
    }
    if (strings && !isWellFormed(key)) return false;
    const item = record[key];
    if (typeof item === "object") {
      if (item === null) continue;
      if (depth >= maxDepth) return false;
      if (!isCleanTree(item, depth + 1, maxDepth, strings)) return false;
    } else if (typeof item === "number") {
      if (item - item !== 0) return false;
    } else if (strings && typeof item === "string" && !isWellFormed(item)) {
      return false;
    }
  }
  return true;
}

/**
 * Whether `root` holds nothing {@linkcode findProblem} refuses: the same
 * checks, without paths, as fast as a walk goes (`for...in` over the plain
 * objects `JSON.parse` makes; an explicit stack, so any depth is safe).
 */
function isClean(root: unknown, maxDepth: number, strings: boolean): boolean {
  if (typeof root !== "object") {
    return checkPrimitive(root, strings) === undefined;
  }
  if (root === null) return true;
  if (maxDepth < 1) return false;
  const stack: unknown[] = [root];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === "object") {
          if (item === null) continue;
          if (depth >= maxDepth) return false;
          stack.push(item);
          depths.push(depth + 1);
        } else if (typeof item === "number") {
          // Infinity - Infinity is NaN; JSON has no NaN of its own.
          if (item - item !== 0) return false;
        } else if (strings && typeof item === "string" && !isWellFormed(item)) {
          return false;
        }
      }
      continue;
    }
    if (
      Object.hasOwn(node, "__proto__") || Object.hasOwn(node, "constructor") ||
      Object.hasOwn(node, "prototype")
    ) {
      return false;
    }
    for (const key in node) {
      if (strings && !isWellFormed(key)) return false;
      const item = node[key];
      if (typeof item === "object") {
        if (item === null) continue;
        if (depth >= maxDepth) return false;
        stack.push(item);
        depths.push(depth + 1);
      } else if (typeof item === "number") {
        if (item - item !== 0) return false;
      } else if (strings && typeof item === "string" && !isWellFormed(item)) {
        return false;
      }
    }
  }
  return true;
}

/**
 * Keys refused anywhere in a JSON body, as `parseForm` refuses them in a
 * field name: a deep merge or `Object.assign` of `__proto__`, or of
 * `constructor.prototype`, sets properties on every object.
 */
const FORBIDDEN_KEYS = ["__proto__", "constructor", "prototype"] as const;

function at(path: (string | number)[] | undefined): string {
  const key = path === undefined ? undefined : issueKey(path);
  return key === undefined ? "the top-level value" : JSON.stringify(key);
}

/**
 * The first thing refused in `root`, as a message, or `undefined`: nesting
 * deeper than `maxDepth`, a `__proto__`, `constructor` or `prototype` key, a number out of range
 * (`1e999999` parses to Infinity), and with `strings`, a lone surrogate in a
 * string or key. Iterative, so any depth is safe. With `paths`, messages
 * name where (paths are built for every container: for the error path).
 */
function findProblem(
  root: unknown,
  maxDepth: number,
  strings: boolean,
  paths: boolean,
): string | undefined {
  const primitive = checkPrimitive(root, strings);
  if (primitive !== undefined) return `JSON ${primitive} (at ${at(undefined)})`;
  if (typeof root !== "object" || root === null) return undefined;
  const stack: object[] = [root];
  const depths: number[] = [1];
  const pathStack: (string | number)[][] = [[]];
  if (maxDepth < 1) return depthMessage(maxDepth);
  while (stack.length > 0) {
    const node = stack.pop()!;
    const depth = depths.pop()!;
    const path = paths ? pathStack.pop()! : undefined;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === "object" && item !== null) {
          if (depth >= maxDepth) return depthMessage(maxDepth);
          stack.push(item);
          depths.push(depth + 1);
          if (path !== undefined) pathStack.push([...path, i]);
        } else {
          const problem = checkPrimitive(item, strings);
          if (problem !== undefined) {
            return `JSON ${problem} (at ${
              at(path === undefined ? undefined : [...path, i])
            })`;
          }
        }
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of FORBIDDEN_KEYS) {
      if (Object.hasOwn(record, key)) {
        return `JSON key "${key}" is refused (in ${
          path === undefined || path.length === 0 ? "the object" : at(path)
        }): it could reach an object's prototype`;
      }
    }
    for (const key of Object.keys(record)) {
      if (strings && !isWellFormed(key)) {
        return `JSON key holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape) (in ${
          path === undefined || path.length === 0 ? "the object" : at(path)
        })`;
      }
      const item = record[key];
      if (typeof item === "object" && item !== null) {
        if (depth >= maxDepth) return depthMessage(maxDepth);
        stack.push(item);
        depths.push(depth + 1);
        if (path !== undefined) pathStack.push([...path, key]);
      } else {
        const problem = checkPrimitive(item, strings);
        if (problem !== undefined) {
          return `JSON ${problem} (at ${
            at(path === undefined ? undefined : [...path, key])
          })`;
        }
      }
    }
  }
  return undefined;
}

function depthMessage(maxDepth: number): string {
  return `JSON nesting is deeper than maxDepth (${maxDepth} levels)`;
}

function checkPrimitive(value: unknown, strings: boolean): string | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value)
      ? undefined
      : "number is out of range (it parses to Infinity)";
  }
  if (strings && typeof value === "string" && !isWellFormed(value)) {
    return "string holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape)";
  }
  return undefined;
}

/** `Malformed JSON at line 2, column 7: ...`, from a scan of `text`. */
function malformedMessage(text: string): string {
  const error = locateJsonError(text);
  if (error === undefined) return "Malformed JSON";
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < error.offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `Malformed JSON at line ${line}, column ${
    error.offset - lineStart + 1
  } (character ${error.offset}): ${error.problem}`;
}

const OBJECT = 0;
const ARRAY = 1;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Where `text` first breaks the JSON grammar, and how; `undefined` when it
 * does not. Iterative: a stack of open containers, no recursion.
 */
export function locateJsonError(
  text: string,
): { offset: number; problem: string } | undefined {
  const n = text.length;
  const stack: number[] = [];
  let i = 0;
  const fail = (problem: string) => ({ offset: i, problem });
  const describe = () =>
    i >= n ? "end of input" : JSON.stringify(String.fromCodePoint(
      text.codePointAt(i)!,
    ));
  const space = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const string = (): string | undefined => {
    i++; // the opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return undefined;
      }
      if (c < 0x20) return "a control character in a string must be escaped";
      if (c === 92) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            return "\\u must be followed by four hex digits";
          }
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          return `unknown escape \\${e ?? ""} in a string`;
        }
        i += 2;
        continue;
      }
      i++;
    }
    return "unterminated string";
  };
  const key = (): string | undefined => {
    space();
    if (text.charCodeAt(i) !== 34) {
      return `unexpected ${describe()}, expected a string key`;
    }
    const problem = string();
    if (problem !== undefined) return problem;
    space();
    if (text.charCodeAt(i) !== 58) {
      return `unexpected ${describe()}, expected ':'`;
    }
    i++;
    return undefined;
  };
  for (;;) {
    // A value.
    space();
    if (i >= n) return fail("unexpected end of input, expected a value");
    const c = text.charCodeAt(i);
    if (c === 123) {
      i++;
      space();
      if (text.charCodeAt(i) === 125) {
        i++;
      } else {
        stack.push(OBJECT);
        const problem = key();
        if (problem !== undefined) return fail(problem);
        continue;
      }
    } else if (c === 91) {
      i++;
      space();
      if (text.charCodeAt(i) === 93) {
        i++;
      } else {
        stack.push(ARRAY);
        continue;
      }
    } else if (c === 34) {
      const problem = string();
      if (problem !== undefined) return fail(problem);
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (match === null) return fail("malformed number");
      i += match[0].length;
      const next = text.charCodeAt(i);
      if (
        next === 46 || next === 101 || next === 69 || (next >= 48 && next <= 57)
      ) {
        return fail("malformed number");
      }
    } else if (text.startsWith("true", i)) {
      i += 4;
    } else if (text.startsWith("false", i)) {
      i += 5;
    } else if (text.startsWith("null", i)) {
      i += 4;
    } else {
      return fail(`unexpected ${describe()}, expected a value`);
    }
    // After a value: separators and closing brackets.
    for (;;) {
      space();
      if (stack.length === 0) {
        return i < n
          ? fail(`unexpected ${describe()} after the JSON value`)
          : undefined;
      }
      const top = stack[stack.length - 1];
      const close = top === OBJECT ? "}" : "]";
      if (i >= n) {
        return fail(`unexpected end of input, expected ',' or '${close}'`);
      }
      const d = text[i];
      if (d === ",") {
        i++;
        if (top === OBJECT) {
          const problem = key();
          if (problem !== undefined) return fail(problem);
        }
        break;
      }
      if (d === close) {
        i++;
        stack.pop();
        continue;
      }
      return fail(`unexpected ${describe()}, expected ',' or '${close}'`);
    }
  }
}
