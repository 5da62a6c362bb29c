/**
 * The compiled matcher: a route table turned into one generated JavaScript
 * function per method, with the interpreter in `interpreter.ts` as the fallback.
 *
 * @module
 */

import type { Entry, Match, Node, ParamsClass, Tail } from "./trie.ts";
import { paramsClass } from "./trie.ts";
import type { Pattern } from "./capture_pattern.ts";

/**
 * Compiles a method's trie into one specialized function: static children
 * become a `switch` on the next character plus inline comparisons at
 * positions known when compiling, captures live in local variables, and
 * each route's params are an object literal. It tries candidates in the
 * same order as the interpreter (`search` in matcher.ts), so both give the
 * same answers; `matcher_codegen_test.ts` checks that.
 */

/** Beyond this much source the interpreter is used: V8 stops optimizing huge functions. */
const MAX_SOURCE = 400_000;

type Position = number | string;

/**
 * Builds the matching function for a trie, or `undefined` when the runtime
 * refuses code generation (some edge runtimes do) or the table is too big.
 *
 * @param statics Routes without parameters, by exact pathname.
 * @param root The trie of the other routes, if there are any.
 * @param decode Percent-decodes a captured value; `undefined` when malformed.
 */
export function compileTable<T>(
  statics: ReadonlyMap<string, Entry<T>>,
  root: Node<T> | undefined,
  decode: (value: string) => string | undefined,
): ((path: string) => Match<T> | undefined) | undefined {
  const values: T[] = [];
  const regexes: Pattern[] = [];
  const classes: ParamsClass[] = [];
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}${counter++}`;

  const plus = (pos: Position, n: number): Position =>
    typeof pos === "number" ? pos + n : n === 0 ? pos : `${pos} + ${n}`;

  function result(entry: Entry<T>, captures: readonly string[]): string {
    const index = values.push(entry.value) - 1;
    const Params = paramsClass(entry.names);
    if (Params === undefined) throw new EvalError("code generation is off");
    const c = classes.push(Params) - 1;
    const args = entry.names.map((_, i) => captures[i]).join(", ");
    return `return { value: V[${index}], params: new C[${c}](${args}) };\n`;
  }

  /** Declares decoded copies of a match's groups; returns their names. */
  function groups(match: string, count: number): [string, string[]] {
    let code = "";
    const names: string[] = [];
    for (let g = 1; g <= count; g++) {
      const name = fresh("v");
      code += `const ${name} = D(${match}[${g}]);\n`;
      names.push(name);
    }
    return [code, names];
  }

  function defined(names: readonly string[]): string {
    return names.length === 0
      ? "true"
      : names.map((name) => `${name} !== undefined`).join(" && ");
  }

  function tails(
    list: readonly Tail<T>[],
    pos: Position,
    captures: readonly string[],
  ): string {
    let code = "";
    for (const tail of list) {
      if (tail.regex.source === "^\\/(.*)$") {
        // A trailing "/*name" takes the rest of the path: no regex needed.
        const value = fresh("v");
        code += `{\nconst ${value} = D(path.slice(${plus(pos, 1)}));\n` +
          `if (${value} !== undefined) {\n${
            result(tail.entries[0], [...captures, value])
          }}\n}\n`;
        continue;
      }
      const x = regexes.push(tail.regex) - 1;
      const m = fresh("t");
      const [decoded, names] = groups(m, groupCount(tail.regex));
      code +=
        `{\nconst ${m} = X[${x}].exec(path.slice(${pos}));\nif (${m} !== null) {\n${decoded}` +
        `if (${defined(names)}) {\n${
          result(tail.entries[0], [...captures, ...names])
        }}\n}\n}\n`;
    }
    return code;
  }

  function node(
    n: Node<T>,
    pos: Position,
    captures: readonly string[],
  ): string {
    let code = "";
    const entry = n.entries[0];
    if (entry !== undefined) {
      code += `if (${pos} === L) {\n${result(entry, captures)}}\n`;
    }
    const statics = n.statics;
    const hasChildren = statics !== undefined || n.empty !== undefined ||
      n.segments.length > 0 ||
      n.param !== undefined || n.prefixedTails.length > 0 || n.tails.length > 0;
    if (!hasChildren) return code;
    const next = plus(pos, 1);
    code += `if (${pos} < L && path.charCodeAt(${pos}) === 47) {\n`;
    if (statics !== undefined) {
      code += `switch (path.charCodeAt(${next})) {\n`;
      statics.forEach((bucket, char) => {
        code += `case ${char}:\n`;
        bucket!.forEach((child, i) => {
          const end = plus(pos, 1 + child.text.length);
          let test = `(${end} === L || path.charCodeAt(${end}) === 47)`;
          if (child.text.length > 1) {
            test += ` && path.startsWith(${
              JSON.stringify(child.text)
            }, ${next})`;
          }
          code += `${i > 0 ? "else " : ""}if (${test}) {\n${
            node(child.node, end, captures)
          }}\n`;
        });
        code += "break;\n";
      });
      code += "}\n";
    }
    if (n.empty !== undefined) {
      code += `if (${next} === L || path.charCodeAt(${next}) === 47) {\n${
        node(n.empty, next, captures)
      }}\n`;
    }
    if (n.segments.length > 0 || n.param !== undefined) {
      const end = fresh("e");
      code +=
        `let ${end} = path.indexOf("/", ${next});\nif (${end} === -1) ${end} = L;\n`;
      if (n.segments.length > 0) {
        code += `if (${end} > ${next}) {\n`;
        for (const segment of n.segments) {
          const x = regexes.push(segment.regex) - 1;
          const m = fresh("m");
          const [decoded, names] = groups(m, groupCount(segment.regex));
          code +=
            `{\nconst ${m} = X[${x}].exec(path.slice(${next}, ${end}));\nif (${m} !== null) {\n${decoded}` +
            `if (${defined(names)}) {\n${
              node(segment.node, end, [...captures, ...names])
            }}\n}\n}\n`;
        }
        code += "}\n";
      }
      code += tails(n.prefixedTails, pos, captures);
      if (n.param !== undefined) {
        const raw = fresh("r");
        const value = fresh("v");
        code +=
          `if (${end} > ${next}) {\nconst ${raw} = path.slice(${next}, ${end});\n` +
          `const ${value} = ${raw}.indexOf("%") === -1 ? ${raw} : D(${raw});\n` +
          `if (${value} !== undefined) {\n${
            node(n.param, end, [...captures, value])
          }}\n}\n`;
      }
    } else {
      code += tails(n.prefixedTails, pos, captures);
    }
    code += tails(n.tails, pos, captures);
    return code + "}\n";
  }

  try {
    // Static paths first: one hash lookup, then the trie for the rest.
    const trie = root === undefined ? "" : node(root, 0, []);
    // Only a path no longer than the longest static one is looked up.
    let longest = 0;
    for (const key of statics.keys()) longest = Math.max(longest, key.length);
    const lookup = statics.size === 0
      ? ""
      : `if (path.length <= ${longest}) {\n` +
        `const s = S.get(path);\nif (s !== undefined) return s.hit;\n}\n`;
    const body = `return function match(path) {\n${lookup}` +
      `const L = path.length;\n${trie}return undefined;\n};`;
    if (body.length > MAX_SOURCE) return undefined;
    return new Function("S", "V", "X", "D", "C", body)(
      statics,
      values,
      regexes,
      decode,
      classes,
    );
  } catch {
    return undefined; // code generation disallowed: the interpreter serves
  }
}

function groupCount(pattern: Pattern): number {
  return pattern.groups;
}
