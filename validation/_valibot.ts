/**
 * A valibot schema compiled once into one function specialised to it, as
 * Elysia compiles TypeBox and Fastify compiles JSON Schema: the function
 * only decides whether a value is valid and builds valibot's output for a
 * valid one; a value it finds invalid is handed to valibot's own
 * `validate`, so every issue, message and path is valibot's.
 *
 * Valibot is recognised by its structure (`~standard.vendor`, `kind`,
 * `type`, `entries`, `item`, `wrapped`, `default`, `pipe`, `requirement`),
 * never imported. Compiled: `object`, `looseObject`, `strictObject`,
 * `array`, `string`, `number`, `boolean`, `literal`, `picklist`, `null`,
 * `unknown`, `any`, `optional`, `exactOptional`, `undefinedable`,
 * `nullable` and `nullish` (a default that is a value, not a function),
 * and `pipe` of such a schema with the validations `minLength`,
 * `maxLength`, `length`, `nonEmpty`, `minValue`, `maxValue`, `integer`,
 * `regex` and `email` (a regular expression without the `g` or `y` flag)
 * and metadata (`title`, `description`, ...). Anything else anywhere in the
 * tree (a transformation, `check`, `fallback`, `lazy`, `union`, an async
 * schema, a function default, an unknown type or action) leaves the whole
 * schema to valibot's own `validate`, as does a runtime that refuses code
 * from text (a Content-Security-Policy without `unsafe-eval`).
 *
 * @module
 */

import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";

/** A schema's `validate`, compiled or its own. */
export type Validate = (
  value: unknown,
) =>
  | StandardSchemaV1.Result<unknown>
  | Promise<StandardSchemaV1.Result<unknown>>;

/** A valibot node as read here: any object (its fields are checked). */
type Node = Record<string, unknown>;

const compiled = new WeakMap<object, Validate>();
let codeRefused = false;

/**
 * The function to validate a value with `schema`: a valibot schema's
 * compiled form when every part of it is supported, else the schema's own
 * `validate`. Built once per schema.
 */
export function validatorOf(schema: StandardSchemaV1): Validate {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = build(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function build(schema: StandardSchemaV1): Validate {
  const own = schema["~standard"];
  const fallback: Validate = (value) => own.validate(value);
  if (own.vendor !== "valibot" || codeRefused) {
    return fallback;
  }
  let fast: ((value: unknown) => unknown) | undefined;
  try {
    fast = compileValibot(schema as unknown as Node);
  } catch {
    // A tree this code cannot read (a getter that throws, a proxy):
    // valibot's own validate, which meets the same tree.
    fast = undefined;
  }
  if (fast === undefined) return fallback;
  return (value) => {
    const output = fast(value);
    return output !== INVALID ? { value: output } : own.validate(value);
  };
}

/** What a compiled function gives for a value it does not prove valid. */
export const INVALID: unique symbol = Symbol("invalid");

/** Thrown while generating: a part of the schema that is not compiled. */
class Unsupported extends Error {}

/** At most this many schema nodes are compiled (a generated function's size). */
const MAX_NODES = 2000;

/**
 * Compiles a valibot schema into `(value) => output | INVALID`, or gives
 * `undefined` when a part of it is not supported or code from text is
 * refused.
 */
export function compileValibot(
  schema: Node,
): ((value: unknown) => unknown) | undefined {
  const generator = new Generator();
  let body: string;
  try {
    body = generator.root(schema);
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  const names = generator.constants.map((_, index) => `c${index}`);
  const source = `"use strict";\n` +
    names.map((name, index) => `const ${name} = c[${index}];\n`).join("") +
    `return function valibotCompiled(input) {\n${body}};`;
  try {
    // The constants (regular expressions, defaults, literals, key lists)
    // are passed in; only keys (through JSON.stringify) and generated
    // names are written into the source.
    const factory = new Function("c", "F", "hasOwn", source) as (
      c: unknown[],
      invalid: symbol,
      hasOwn: (object: object, key: PropertyKey) => boolean,
    ) => (value: unknown) => unknown;
    return factory(generator.constants, INVALID, hasOwn);
  } catch (error) {
    if (error instanceof EvalError) {
      codeRefused = true;
      return undefined;
    }
    throw error;
  }
}

function hasOwn(object: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Types whose value actions may follow: `.length` reads and compares. */
const LENGTH_TYPES = new Set(["string", "array"]);
const VALUE_TYPES = new Set(["string", "number"]);

class Generator {
  readonly constants: unknown[] = [];
  #names = 0;
  #nodes = 0;

  root(schema: Node): string {
    return `let r;\n${this.node(schema, "input", "r")}return r;\n`;
  }

  #name(prefix: string): string {
    return `${prefix}${this.#names++}`;
  }

  #constant(value: unknown): string {
    this.constants.push(value);
    return `c${this.constants.length - 1}`;
  }

  /**
   * Statements that check the value in variable `input` against `schema`
   * and assign the output to variable `out` (declared by the caller), or
   * `return F`.
   */
  node(schema: unknown, input: string, out: string): string {
    if (schema === null || typeof schema !== "object") {
      throw new Unsupported();
    }
    const node = schema as Node;
    if (++this.#nodes > MAX_NODES) throw new Unsupported();
    if (
      node.kind !== "schema" || node.async !== false ||
      typeof node["~run"] !== "function" || "fallback" in node ||
      "cache" in node
    ) {
      throw new Unsupported();
    }
    if (node.pipe !== undefined) return this.#pipe(node, input, out);
    switch (node.type) {
      case "string":
      case "number":
      case "boolean":
      case "null":
        return `if (!(${TYPE_TESTS[node.type](input)})) return F;\n` +
          `${out} = ${input};\n`;
      case "unknown":
      case "any":
        return `${out} = ${input};\n`;
      case "literal": {
        const literal = node.literal;
        // SameValueZero, as valibot compares: NaN equals NaN.
        const test = typeof literal === "number" && Number.isNaN(literal)
          ? `Number.isNaN(${input})`
          : `${input} === ${this.#constant(literal)}`;
        return `if (!(${test})) return F;\n${out} = ${input};\n`;
      }
      case "picklist": {
        if (!Array.isArray(node.options)) throw new Unsupported();
        return `if (!${this.#constant(node.options)}.includes(${input})) ` +
          `return F;\n${out} = ${input};\n`;
      }
      case "optional":
      case "undefinedable":
        return this.#wrapped(node, input, out, (v) => `${v} === undefined`);
      case "nullable":
        return this.#wrapped(node, input, out, (v) => `${v} === null`);
      case "nullish":
        return this.#wrapped(
          node,
          input,
          out,
          (v) => `(${v} === null || ${v} === undefined)`,
        );
      case "exact_optional":
        this.#defaultOf(node);
        return this.node(node.wrapped, input, out);
      case "array":
        return this.#array(node, input, out);
      case "object":
      case "loose_object":
      case "strict_object":
        return this.#object(node, input, out);
      default:
        throw new Unsupported();
    }
  }

  /** A default valibot would read: a value (a function is not compiled). */
  #defaultOf(node: Node): unknown {
    const value = node.default;
    if (typeof value === "function") throw new Unsupported();
    return value;
  }

  /** optional, undefinedable, nullable, nullish: `empty` is their test. */
  #wrapped(
    node: Node,
    input: string,
    out: string,
    empty: (name: string) => string,
  ): string {
    const fallback = this.#defaultOf(node);
    if (fallback === undefined) {
      return `if (${empty(input)}) ${out} = ${input};\nelse {\n${
        this.node(node.wrapped, input, out)
      }}\n`;
    }
    // valibot puts the default in the value's place and checks it again.
    const value = this.#name("d");
    return `let ${value} = ${input};\n` +
      `if (${empty(input)}) ${value} = ${this.#constant(fallback)};\n` +
      `if (${empty(value)}) ${out} = ${value};\n` +
      `else {\n${this.node(node.wrapped, value, out)}}\n`;
  }

  #pipe(node: Node, input: string, out: string): string {
    const pipe = node.pipe;
    if (!Array.isArray(pipe) || pipe.length === 0) throw new Unsupported();
    const first = pipe[0] as Node;
    if (first === null || typeof first !== "object") throw new Unsupported();
    const type = first.type as string;
    let code = this.node(first, input, out);
    for (let index = 1; index < pipe.length; index++) {
      const action = pipe[index] as Node | null;
      if (action === null || typeof action !== "object") {
        throw new Unsupported();
      }
      if (action.kind === "metadata") continue;
      if (action.kind !== "validation" || action.async !== false) {
        throw new Unsupported();
      }
      code += `if (!(${this.#action(action, type, out)})) return F;\n`;
    }
    return code;
  }

  /** The test an action passes, on the output in variable `value`. */
  #action(action: Node, type: string, value: string): string {
    const requirement = action.requirement;
    switch (action.type) {
      case "min_length":
      case "max_length":
      case "length": {
        if (!LENGTH_TYPES.has(type) || !isCount(requirement)) {
          throw new Unsupported();
        }
        const op = action.type === "min_length"
          ? ">="
          : action.type === "max_length"
          ? "<="
          : "===";
        return `${value}.length ${op} ${requirement}`;
      }
      case "non_empty":
        if (!LENGTH_TYPES.has(type)) throw new Unsupported();
        return `${value}.length !== 0`;
      case "min_value":
      case "max_value": {
        if (
          !VALUE_TYPES.has(type) ||
          (typeof requirement !== "number" && typeof requirement !== "string")
        ) {
          throw new Unsupported();
        }
        // As valibot writes it: NaN fails both.
        return `${value} ${action.type === "min_value" ? ">=" : "<="} ${
          this.#constant(requirement)
        }`;
      }
      case "integer":
        if (type !== "number" || requirement !== Number.isInteger) {
          throw new Unsupported();
        }
        return `Number.isInteger(${value})`;
      case "regex":
      case "email":
        if (
          type !== "string" || !(requirement instanceof RegExp) ||
          requirement.global || requirement.sticky
        ) {
          throw new Unsupported();
        }
        return `${this.#constant(requirement)}.test(${value})`;
      default:
        throw new Unsupported();
    }
  }

  #array(node: Node, input: string, out: string): string {
    const index = this.#name("i");
    const items = this.#name("a");
    const item = this.#name("v");
    const output = this.#name("o");
    return `if (!Array.isArray(${input})) return F;\n` +
      `const ${items} = [];\n` +
      `for (let ${index} = 0; ${index} < ${input}.length; ${index}++) {\n` +
      `const ${item} = ${input}[${index}];\nlet ${output};\n` +
      this.node(node.item, item, output) +
      `${items}.push(${output});\n}\n${out} = ${items};\n`;
  }

  #object(node: Node, input: string, out: string): string {
    const entries = node.entries as Node | null;
    if (entries === null || typeof entries !== "object") {
      throw new Unsupported();
    }
    const object = this.#name("b");
    let code = `if (!(${input} && typeof ${input} === "object")) return F;\n`;
    // What the output holds, in valibot's order: [key, output, presence]
    // (`undefined` when always there, else the name of a flag).
    const built: [string, string, string | undefined][] = [];
    // The entries in valibot's order (for...in over the entries).
    for (const key in entries) {
      if (key === "__proto__") throw new Unsupported();
      const entry = entries[key] as Node | null;
      if (entry === null || typeof entry !== "object") throw new Unsupported();
      const name = JSON.stringify(key);
      const value = this.#name("v");
      const output = this.#name("o");
      const optional = entry.type === "exact_optional" ||
        entry.type === "optional" || entry.type === "nullish";
      const fallback = optional ? this.#defaultOf(entry) : undefined;
      const check = this.node(entry, value, output);
      if (!optional) {
        // valibot checks `${name} in input`, then input[name]; an absent
        // key reads as undefined, which a schema refusing undefined
        // refuses as valibot refuses the absent key.
        code += (refusesUndefined(entry)
          ? ""
          : `if (!(${name} in ${input})) return F;\n`) +
          `const ${value} = ${input}[${name}];\nlet ${output};\n${check}`;
        built.push([name, output, undefined]);
      } else if (fallback !== undefined) {
        // An absent key takes the default, then the entry's checks.
        code += `const ${value} = ${name} in ${input} ? ${input}[${name}] : ${
          this.#constant(fallback)
        };\nlet ${output};\n${check}`;
        built.push([name, output, undefined]);
      } else {
        const present = this.#name("p");
        code += `let ${output};\nconst ${present} = ${name} in ${input};\n` +
          `if (${present}) {\nconst ${value} = ${input}[${name}];\n${check}}\n`;
        built.push([name, output, present]);
      }
    }
    // One literal for the entries always there up to the first that may
    // be absent (the object made with its final shape), then the rest.
    let first = built.findIndex(([, , present]) => present !== undefined);
    if (first === -1) first = built.length;
    code += `const ${object} = {${
      built.slice(0, first).map(([name, output]) => `${name}: ${output}`)
        .join(", ")
    }};\n`;
    for (const [name, output, present] of built.slice(first)) {
      code += `${
        present === undefined ? "" : `if (${present}) `
      }${object}[${name}] = ${output};\n`;
    }
    if (node.type === "loose_object") {
      const key = this.#name("k");
      code +=
        `for (const ${key} in ${input}) if (hasOwn(${input}, ${key}) && ` +
        `${key} !== "__proto__" && ${key} !== "prototype" && ` +
        `${key} !== "constructor" && !hasOwn(${
          this.#constant(entries)
        }, ${key})) ` +
        `${object}[${key}] = ${input}[${key}];\n`;
    } else if (node.type === "strict_object") {
      const key = this.#name("k");
      code += `for (const ${key} in ${input}) if (!hasOwn(${
        this.#constant(entries)
      }, ${key})) return F;\n`;
    }
    return code + `${out} = ${object};\n`;
  }
}

/** Whether valibot's `schema` refuses `undefined` (checked as written). */
function refusesUndefined(schema: Node): boolean {
  if (Array.isArray(schema.pipe)) return refusesUndefined(schema.pipe[0]);
  switch (schema.type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
    case "array":
    case "object":
    case "loose_object":
    case "strict_object":
      return true;
    case "literal":
      return schema.literal !== undefined;
    case "picklist":
      return Array.isArray(schema.options) &&
        !schema.options.includes(undefined);
    default:
      return false;
  }
}

const TYPE_TESTS: Record<string, (input: string) => string> = {
  string: (input) => `typeof ${input} === "string"`,
  // valibot's number() refuses NaN.
  number: (input) => `typeof ${input} === "number" && !Number.isNaN(${input})`,
  boolean: (input) => `typeof ${input} === "boolean"`,
  null: (input) => `${input} === null`,
};

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
