// A valibot schema compiled per schema (validation/_valibot.ts), against
// valibot itself: over many inputs per schema, the same success, a deeply
// equal output with keys in the same order, and valibot's own issues on
// failure. Portable (runs on Node and Bun through _tools/runtimes).
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  parseHeaders,
  parseJson,
  parseParams,
  type StandardSchemaV1,
  withoutCompiling,
} from "@fetchkit/toolkit/validation";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { Route } from "@fetchkit/toolkit/fetch-router/routes";
import { compileValibot, INVALID, validatorOf } from "./_valibot.ts";
import { Rng } from "../_tools/fuzz.ts";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

// The benchmarks' order (bench/runtimes/_app_data.ts).
const Order = v.object({
  customer: v.object({
    name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
    email: v.pipe(v.string(), v.regex(EMAIL)),
  }),
  items: v.pipe(
    v.array(v.object({
      sku: v.pipe(v.string(), v.minLength(1), v.maxLength(32)),
      quantity: v.pipe(v.number(), v.integer(), v.minValue(1)),
      price: v.pipe(v.number(), v.minValue(0)),
    })),
    v.minLength(1),
    v.maxLength(50),
  ),
  note: v.optional(v.pipe(v.string(), v.maxLength(500))),
});
const ORDER = {
  customer: { name: "Ada", email: "ada@example.com" },
  items: [{ sku: "A-1", quantity: 2, price: 9.5 }, {
    sku: "B",
    quantity: 1,
    price: 0,
  }],
  note: "leave at the door",
};

/** Each supported schema with one valid sample to mutate. */
const CASES: [string, StandardSchemaV1, unknown][] = [
  ["order", Order, ORDER],
  [
    "loose, strict and nested",
    v.looseObject({
      id: v.pipe(v.string(), v.length(3)),
      tags: v.pipe(v.array(v.pipe(v.string(), v.nonEmpty())), v.maxLength(3)),
      inner: v.strictObject({ on: v.boolean(), kind: v.picklist(["a", "b"]) }),
      version: v.literal(2),
      nothing: v.null(),
      anything: v.unknown(),
    }),
    {
      id: "abc",
      tags: ["x"],
      inner: { on: true, kind: "a" },
      version: 2,
      nothing: null,
      anything: { deep: [1] },
      extra: "kept by looseObject",
    },
  ],
  [
    "optional, nullable, nullish, defaults",
    v.object({
      a: v.optional(v.pipe(v.string(), v.minLength(2)), "dflt"),
      b: v.nullable(v.number(), 7),
      c: v.nullish(v.pipe(v.number(), v.maxValue(10)), 3),
      d: v.nullish(v.string()),
      e: v.exactOptional(v.string(), "x"),
      f: v.exactOptional(v.number()),
      g: v.undefinedable(v.boolean()),
      h: v.optional(v.array(v.number())),
      i: v.nullable(v.string()),
      j: v.optional(v.object({ k: v.number() }), { k: 1 }),
      k: v.nullish(v.string(), null),
      toString: v.optional(v.string()),
      "1": v.optional(v.number()),
      "0": v.number(),
    }),
    // valibot reads entries with `in`: an inherited toString is a value.
    {
      a: "abc",
      b: 1,
      c: 2,
      d: "d",
      e: "e",
      f: 1,
      g: true,
      i: null,
      toString: "s",
      "0": 0,
    },
  ],
  [
    "string pipes and unicode",
    v.object({
      name: v.pipe(v.string(), v.minLength(2), v.maxLength(4)),
      mail: v.pipe(v.string(), v.email()),
      word: v.pipe(v.string(), v.regex(/^[a-z]+$/i), v.minValue("b")),
    }),
    { name: "ab", mail: "a@b.io", word: "cat" },
  ],
  [
    "a root array with metadata",
    v.pipe(
      v.array(v.pipe(v.number(), v.minValue(-1), v.maxValue(1))),
      v.title("numbers"),
      v.length(2),
    ),
    [0, 1],
  ],
  [
    "nested pipes",
    v.pipe(v.pipe(v.string(), v.minLength(1)), v.maxLength(3)),
    "ab",
  ],
  [
    "literal NaN and picklist of numbers",
    v.object({ n: v.literal(NaN), p: v.picklist([0, 1, NaN]) }),
    { n: NaN, p: 1 },
  ],
];

/** Values put in every place of a sample (each a new input). */
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  0.5,
  1.5,
  2,
  3,
  7,
  10,
  11,
  NaN,
  Infinity,
  -Infinity,
  1e21,
  Number.MAX_SAFE_INTEGER + 2,
  "",
  "a",
  "b",
  "ab",
  "abc",
  "abcd",
  "abcde",
  "A",
  "dflt",
  "a@b.io",
  "a@b",
  "é",
  "😀",
  "😀😀",
  "😀😀😀",
  "a😀",
  "x".repeat(31),
  "x".repeat(32),
  "x".repeat(33),
  "😀".repeat(16),
  "😀".repeat(17),
  "x".repeat(100),
  "x".repeat(101),
  "😀".repeat(50),
  "😀".repeat(51),
  "x".repeat(500),
  "x".repeat(501),
  [],
  [1],
  [0, 1],
  [0, 1, 2],
  ["x"],
  [""],
  {},
  { k: 1 },
  { on: false, kind: "b" },
];

/** Every input one change away from `sample`, and a few more. */
function* mutations(sample: unknown): Generator<unknown> {
  yield sample;
  for (const value of VALUES) yield value;
  if (Array.isArray(sample)) {
    for (const length of [0, 1, 2, 3, 49, 50, 51]) {
      yield Array.from({ length }, (_, index) => sample[index % sample.length]);
    }
    for (let index = 0; index < sample.length; index++) {
      for (const changed of mutations(sample[index])) {
        const copy = [...sample];
        copy[index] = changed;
        yield copy;
      }
    }
    yield [...sample, sample[0]];
  } else if (sample !== null && typeof sample === "object") {
    const object = sample as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const { [key]: _, ...rest } = object;
      yield rest;
      yield { ...object, [key]: undefined };
      for (const changed of mutations(object[key])) {
        yield { ...object, [key]: changed };
      }
    }
    yield { ...object, extra: 1 };
    yield { ...object, constructor: 1 };
    yield { extra: 1, ...object };
    for (const key of ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "1"]) {
      if (!(key in object)) {
        for (const value of [undefined, null, "x", 5, [1], { k: 2 }]) {
          yield { ...object, [key]: value };
        }
      }
    }
  }
}

/** Several changes at random places of `sample`. */
function scramble(sample: unknown, next: () => number, depth = 0): unknown {
  const pick = next();
  if (pick < 0.15 || depth > 6) {
    return VALUES[Math.floor(next() * VALUES.length)];
  }
  if (Array.isArray(sample)) {
    const length = Math.floor(next() * 4);
    return Array.from(
      { length },
      (_, index) =>
        scramble(sample[index % Math.max(sample.length, 1)], next, depth + 1),
    );
  }
  if (sample !== null && typeof sample === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(sample)) {
      const roll = next();
      if (roll < 0.1) continue;
      out[key] = roll < 0.4 ? scramble(value, next, depth + 1) : value;
    }
    if (next() < 0.2) out.extra = scramble(null, next, depth + 1);
    return out;
  }
  return sample;
}

/** Deep equality that also holds the keys' order. */
function assertSameOutput(actual: unknown, expected: unknown, where: string) {
  assert.deepStrictEqual(actual, expected, where);
  assert.equal(order(actual), order(expected), where);
}

function order(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(order).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${
      Object.keys(value).map((key) =>
        `${JSON.stringify(key)}:${
          order((value as Record<string, unknown>)[key])
        }`
      ).join(",")
    }}`;
  }
  return typeof value;
}

function compare(schema: StandardSchemaV1, input: unknown, where: string) {
  const fast = compileValibot(schema as never);
  assert.ok(fast !== undefined, `${where}: compiled`);
  const expected = schema["~standard"].validate(
    input,
  ) as StandardSchemaV1.Result<unknown>;
  const output = fast(input);
  const label = `${where}: ${describe(input)}`;
  if (expected.issues === undefined) {
    // Valid for valibot: the compiled function agrees and builds the same
    // output, a new object where valibot made one.
    assert.notEqual(output, INVALID, `${label} is valid`);
    assertSameOutput(output, expected.value, label);
    if (output !== null && typeof output === "object") {
      assert.notEqual(output, input, `${label}: a new value`);
    }
  } else {
    assert.equal(output, INVALID, `${label} is invalid`);
  }
  // What callers get: valibot's own result on failure.
  const result = validatorOf(schema)(input) as StandardSchemaV1.Result<unknown>;
  if (expected.issues === undefined) {
    assert.equal(result.issues, undefined, label);
    assertSameOutput(
      (result as { value: unknown }).value,
      expected.value,
      label,
    );
  } else {
    assert.deepStrictEqual(result.issues, expected.issues, label);
  }
  return expected.issues === undefined;
}

function describe(input: unknown): string {
  try {
    return JSON.stringify(input)?.slice(0, 120) ?? String(input);
  } catch {
    return String(input);
  }
}

for (const [name, schema, sample] of CASES) {
  Deno.test(`valibot compiled: ${name}: same as valibot over mutated and random inputs`, () => {
    let valid = 0;
    let invalid = 0;
    const count = (ok: boolean) => ok ? valid++ : invalid++;
    for (const input of mutations(sample)) count(compare(schema, input, name));
    const rng = new Rng(0x5eed + name.length);
    const next = () => rng.next();
    for (let round = 0; round < 400; round++) {
      count(compare(schema, scramble(sample, next), `${name} (random)`));
    }
    // Not a test that cannot fail: both outcomes were seen, many times.
    assert.ok(valid >= 5, `${name}: ${valid} valid inputs`);
    assert.ok(invalid >= 20, `${name}: ${invalid} invalid inputs`);
  });
}

Deno.test("valibot compiled: the order's edges, one by one", () => {
  const item = ORDER.items[0];
  const edges: [unknown, boolean][] = [
    [{ ...ORDER, items: Array(50).fill(item) }, true],
    [{ ...ORDER, items: Array(51).fill(item) }, false],
    [{ ...ORDER, items: [] }, false],
    [{ ...ORDER, note: "😀".repeat(250) }, true],
    [{ ...ORDER, note: "😀".repeat(250) + "x" }, false],
    [{ ...ORDER, note: undefined }, true],
    [{ ...ORDER, items: [{ ...item, sku: "😀".repeat(16) }] }, true],
    [{ ...ORDER, items: [{ ...item, sku: "😀".repeat(16) + "x" }] }, false],
    [{ ...ORDER, items: [{ ...item, quantity: 1.5 }] }, false],
    [{ ...ORDER, items: [{ ...item, quantity: 0 }] }, false],
    [{ ...ORDER, items: [{ ...item, price: -0.01 }] }, false],
    [{ ...ORDER, items: [{ ...item, price: NaN }] }, false],
    [{ ...ORDER, customer: { ...ORDER.customer, email: "a b@c.d" } }, false],
    [{ ...ORDER, customer: [] }, false],
  ];
  for (const [input, ok] of edges) {
    assert.equal(compare(Order, input, "order edge"), ok, describe(input));
  }
  // present-undefined stays present, absent stays absent
  const present = compileValibot(Order as never)!({
    ...ORDER,
    note: undefined,
  });
  assert.ok(Object.hasOwn(present as object, "note"));
  const { note: _, ...absent } = ORDER;
  assert.ok(
    !Object.hasOwn(compileValibot(Order as never)!(absent) as object, "note"),
  );
});

Deno.test("valibot compiled: unsupported parts leave the whole schema to valibot", async () => {
  const unsupported: [string, () => StandardSchemaV1, unknown][] = [
    [
      "transform",
      () => v.object({ a: v.pipe(v.string(), v.transform((s) => s.length)) }),
      { a: "xy" },
    ],
    ["check", () => v.pipe(v.string(), v.check((s) => s !== "no")), "yes"],
    ["fallback", () => v.object({ a: v.fallback(v.string(), "f") }), { a: 1 }],
    [
      "function default",
      () => v.object({ a: v.optional(v.string(), () => "d") }),
      {},
    ],
    ["global regex", () => v.pipe(v.string(), v.regex(/a/g)), "a"],
    ["sticky regex", () => v.pipe(v.string(), v.regex(/a/y)), "a"],
    ["union", () => v.union([v.string(), v.number()]), 1],
    ["lazy", () => v.object({ a: v.lazy(() => v.string()) }), { a: "x" }],
    ["async", () => v.objectAsync({ a: v.string() }), { a: "x" }],
    // @ts-expect-error: refused by valibot's types, not by JavaScript
    ["minLength after a number", () => v.pipe(v.number(), v.minLength(1)), 1],
    [
      "optional first in a pipe",
      // @ts-expect-error: refused by valibot's types, not by JavaScript
      () => v.pipe(v.optional(v.string()), v.minLength(1)),
      "x",
    ],
    ["cache", () => v.cache(v.object({ a: v.string() })), { a: "x" }],
    ["record", () => v.record(v.string(), v.number()), { a: 1 }],
    [
      "a __proto__ entry",
      () => v.object({ ["__proto__"]: v.optional(v.string()) }),
      {},
    ],
  ];
  for (const [name, make, input] of unsupported) {
    assert.equal(compileValibot(make() as never), undefined, name);
    // Still valibot's exact result, through its own validate (a fresh
    // schema each: a global regular expression keeps its lastIndex).
    assert.deepStrictEqual(
      await validatorOf(make())(input),
      await make()["~standard"].validate(input),
      name,
    );
  }
  // A tree that throws when read is valibot's to meet, not the compiler's.
  const odd = v.object({ a: v.string() });
  Object.defineProperty(odd, "entries", {
    get() {
      throw new RangeError("no entries");
    },
  });
  const validate = validatorOf(odd);
  assert.throws(() => validate({ a: "x" }), RangeError);
  // The transform still runs (valibot's own validate), on parseParams too.
  const length = v.object({
    a: v.pipe(v.string(), v.transform((s) => s.length)),
  });
  assert.deepStrictEqual(validatorOf(length)({ a: "xyz" }), {
    typed: true,
    value: { a: 3 },
  });
  // Not valibot: its own validate, untouched.
  const other: StandardSchemaV1<unknown, string> = {
    "~standard": {
      version: 1,
      vendor: "other",
      validate: (value) => ({ value: `seen ${String(value)}` }),
    },
  };
  assert.deepStrictEqual(validatorOf(other)(1), { value: "seen 1" });
});

Deno.test("valibot compiled: withoutCompiling runs valibot's own validate", () => {
  const schema = withoutCompiling(Order);
  assert.equal(schema["~standard"].vendor, "valibot");
  assert.equal(compileValibot(schema as never), undefined);
  const result = validatorOf(schema)(ORDER) as { value: unknown };
  // valibot's own dataset, `typed` and all
  assert.deepStrictEqual(result, Order["~standard"].validate(ORDER));
});

Deno.test("valibot compiled: parseJson, parseParams and parseHeaders give the same results", async () => {
  const post = (body: unknown) =>
    new Request("http://localhost/orders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  for (const body of [ORDER, { ...ORDER, items: [] }, { ...ORDER, extra: 1 }]) {
    assert.deepStrictEqual(
      await parseJson(post(body), Order),
      await parseJson(post(body), withoutCompiling(Order)),
    );
  }
  const Id = v.object({ id: v.pipe(v.string(), v.regex(/^[0-9]+$/)) });
  for (const params of [{ id: "42" }, { id: "x" }, {}]) {
    assert.deepStrictEqual(
      await parseParams(params, Id),
      await parseParams(params, withoutCompiling(Id)),
    );
  }
  const Version = v.looseObject({ "x-api-version": v.picklist(["1", "2"]) });
  for (const value of ["1", "3"]) {
    const headers = new Headers({ "x-api-version": value, "x-other": "o" });
    assert.deepStrictEqual(
      await parseHeaders(headers, Version),
      await parseHeaders(headers, withoutCompiling(Version)),
    );
  }
});

Deno.test("valibot compiled: a route with a valibot body answers as before", async () => {
  const answers = async (schema: StandardSchemaV1) => {
    const router = createRouter();
    router.post(
      new Route("POST", "/orders", { body: schema }),
      ({ input }) => Response.json(input.body),
    );
    const out: [number, string][] = [];
    for (
      const body of [
        JSON.stringify(ORDER),
        JSON.stringify({ ...ORDER, extra: 1, note: undefined }),
        JSON.stringify({ ...ORDER, items: [] }),
        JSON.stringify({ customer: 1 }),
        '{"customer": {"__proto__": 1}}',
        "[1,",
      ]
    ) {
      const response = await router.fetch(
        new Request("http://localhost/orders", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }),
      );
      out.push([response.status, await response.text()]);
    }
    return out;
  };
  const compiled = await answers(Order);
  assert.deepStrictEqual(compiled, await answers(withoutCompiling(Order)));
  assert.deepStrictEqual(compiled.map(([status]) => status), [
    200,
    200,
    422,
    422,
    400,
    400,
  ]);
  assert.deepStrictEqual(JSON.parse(compiled[0][1]), ORDER);
});
