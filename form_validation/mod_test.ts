import assert from "node:assert/strict";
import type { StandardSchemaV1 } from "@fetchkit/toolkit/form-validation";
import * as z from "zod";
import * as v from "valibot";
import {
  parseForm,
  type ParseFormResult,
} from "@fetchkit/toolkit/form-validation";
import { parseForm as fromRoot } from "@fetchkit/toolkit";

/** Every rule runs once with zod and once with valibot. */
function both(
  name: string,
  schemas: { zod: StandardSchemaV1; valibot: StandardSchemaV1 },
  fn: (schema: StandardSchemaV1, lib: string) => Promise<void>,
): void {
  for (const [lib, schema] of Object.entries(schemas)) {
    Deno.test(`parseForm (${lib}): ${name}`, () => fn(schema, lib));
  }
}

function form(...entries: [string, string | File][]): FormData {
  const data = new FormData();
  for (const [name, value] of entries) data.append(name, value);
  return data;
}

/** A copy with ordinary prototypes, for deepEqual against literals. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value, plain);
  if (typeof value === "object" && value !== null && !(value instanceof Blob)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, plain(item)]),
    );
  }
  return value;
}

function ok<T>(result: ParseFormResult<T>): T {
  if (!result.success) {
    assert.fail(`expected success, got ${JSON.stringify(result.issues)}`);
  }
  return result.value;
}

function failed<T>(result: ParseFormResult<T>) {
  if (result.success) assert.fail("expected a failure");
  return result;
}

const anything = {
  zod: z.looseObject({}),
  valibot: v.looseObject({}),
};

both("a name sent once gives its value; a File stays a File", {
  zod: z.object({ title: z.string(), avatar: z.instanceof(File) }),
  valibot: v.object({ title: v.string(), avatar: v.instance(File) }),
}, async (schema) => {
  const avatar = new File(["png"], "a.png", { type: "image/png" });
  const value = ok(
    await parseForm(form(["title", "Hi"], ["avatar", avatar]), schema),
  ) as Record<string, unknown>;
  assert.equal(value.title, "Hi");
  assert.equal(value.avatar, avatar);
});

both("a name sent more than once gives an array in order", {
  zod: z.object({ color: z.array(z.string()), one: z.string() }),
  valibot: v.object({ color: v.array(v.string()), one: v.string() }),
}, async (schema) => {
  const value = ok(
    await parseForm(
      form(["color", "red"], ["one", "1"], ["color", "green"], [
        "color",
        "blue",
      ]),
      schema,
    ),
  );
  assert.deepEqual(plain(value), {
    color: ["red", "green", "blue"],
    one: "1",
  });
});

both("name[] always gives an array, even with one value", {
  zod: z.object({ tags: z.array(z.string()), more: z.array(z.string()) }),
  valibot: v.object({ tags: v.array(v.string()), more: v.array(v.string()) }),
}, async (schema) => {
  const value = ok(
    await parseForm(
      form(["tags[]", "a"], ["more[]", "x"], ["more[]", "y"]),
      schema,
    ),
  );
  assert.deepEqual(plain(value), { tags: ["a"], more: ["x", "y"] });
});

both("a.b gives nested objects", {
  zod: z.object({
    address: z.object({ city: z.string(), geo: z.object({ lat: z.string() }) }),
  }),
  valibot: v.object({
    address: v.object({ city: v.string(), geo: v.object({ lat: v.string() }) }),
  }),
}, async (schema) => {
  const value = ok(
    await parseForm(
      form(["address.city", "Paris"], ["address.geo.lat", "48.8"]),
      schema,
    ),
  );
  assert.deepEqual(plain(value), {
    address: { city: "Paris", geo: { lat: "48.8" } },
  });
});

both("a[0].b gives an array of objects; a[0][1] nested arrays", {
  zod: z.object({
    items: z.array(z.object({ sku: z.string(), qty: z.string() })),
    grid: z.array(z.array(z.string())),
  }),
  valibot: v.object({
    items: v.array(v.object({ sku: v.string(), qty: v.string() })),
    grid: v.array(v.array(v.string())),
  }),
}, async (schema) => {
  const value = ok(
    await parseForm(
      form(
        ["items[0].sku", "A"],
        ["items[1].sku", "B"],
        ["items[0].qty", "1"],
        ["items[1].qty", "2"],
        ["grid[0][0]", "a"],
        ["grid[0][1]", "b"],
        ["grid[1][0]", "c"],
      ),
      schema,
    ),
  );
  assert.deepEqual(plain(value), {
    items: [{ sku: "A", qty: "1" }, { sku: "B", qty: "2" }],
    grid: [["a", "b"], ["c"]],
  });
});

both("a skipped index leaves a hole that the schema reports by index", {
  zod: z.object({ items: z.array(z.object({ sku: z.string() })) }),
  valibot: v.object({ items: v.array(v.object({ sku: v.string() })) }),
}, async (schema) => {
  const result = failed(
    await parseForm(form(["items[0].sku", "A"], ["items[2].sku", "C"]), schema),
  );
  assert.deepEqual(Object.keys(result.fieldErrors), ["items[1]"]);
  assert.equal((result.values.items as unknown[]).length, 3);
  assert.equal(result.formErrors.length, 0);
});

both("an empty file input is left out, as if absent", {
  zod: z.object({ name: z.string(), avatar: z.instanceof(File).optional() }),
  valibot: v.object({
    name: v.string(),
    avatar: v.optional(v.instance(File)),
  }),
}, async (schema) => {
  const empty = new File([], "", { type: "application/octet-stream" });
  const value = ok(
    await parseForm(form(["name", "Ada"], ["avatar", empty]), schema),
  ) as Record<string, unknown>;
  assert.equal("avatar" in value, false);
  // A file with a name but no content is a real (empty) file.
  const named = new File([], "empty.txt");
  const kept = ok(
    await parseForm(form(["name", "Ada"], ["avatar", named]), schema),
  ) as Record<string, unknown>;
  assert.equal(kept.avatar, named);
});

both("a required file left empty is the schema's error, under its name", {
  zod: z.object({ avatar: z.instanceof(File) }),
  valibot: v.object({ avatar: v.instance(File) }),
}, async (schema) => {
  const result = failed(
    await parseForm(form(["avatar", new File([], "")]), schema),
  );
  assert.deepEqual(Object.keys(result.fieldErrors), ["avatar"]);
  assert.deepEqual(plain(result.values), {});
});

both("strings stay strings; coercion is the schema's", {
  zod: z.object({ age: z.coerce.number(), raw: z.string() }),
  valibot: v.object({
    age: v.pipe(v.string(), v.toNumber()),
    raw: v.string(),
  }),
}, async (schema) => {
  const value = ok(
    await parseForm(form(["age", "42"], ["raw", "42"]), schema),
  );
  assert.deepEqual(plain(value), { age: 42, raw: "42" });
});

both("URLSearchParams work as FormData does", {
  zod: z.object({
    q: z.string(),
    page: z.coerce.number(),
    f: z.array(z.string()),
  }),
  valibot: v.object({
    q: v.string(),
    page: v.pipe(v.string(), v.toNumber()),
    f: v.array(v.string()),
  }),
}, async (schema) => {
  const value = ok(
    await parseForm(new URLSearchParams("q=deno&page=2&f[]=a"), schema),
  );
  assert.deepEqual(plain(value), { q: "deno", page: 2, f: ["a"] });
});

both("fieldErrors are keyed in the inputs' syntax; values refill the form", {
  zod: z.object({
    email: z.email("Enter an email"),
    address: z.object({ city: z.string().min(1, "City is required") }),
    items: z.array(z.object({ qty: z.coerce.number().min(1, "At least 1") })),
    tags: z.array(z.string().max(3, "Too long")),
  }),
  valibot: v.object({
    email: v.pipe(v.string(), v.email("Enter an email")),
    address: v.object({
      city: v.pipe(v.string(), v.minLength(1, "City is required")),
    }),
    items: v.array(v.object({
      qty: v.pipe(v.string(), v.toNumber(), v.minValue(1, "At least 1")),
    })),
    tags: v.array(v.pipe(v.string(), v.maxLength(3, "Too long"))),
  }),
}, async (schema) => {
  const result = failed(
    await parseForm(
      form(
        ["email", "nope"],
        ["address.city", ""],
        ["items[0].qty", "2"],
        ["items[1].qty", "0"],
        ["tags[]", "ok"],
        ["tags[]", "toolong"],
      ),
      schema,
    ),
  );
  assert.deepEqual(plain(result.fieldErrors), {
    email: ["Enter an email"],
    "address.city": ["City is required"],
    "items[1].qty": ["At least 1"],
    "tags[1]": ["Too long"],
  });
  assert.deepEqual(result.formErrors, []);
  assert.equal(result.issues.length, 4);
  assert.deepEqual(plain(result.values), {
    email: "nope",
    address: { city: "" },
    items: [{ qty: "2" }, { qty: "0" }],
    tags: ["ok", "toolong"],
  });
});

both("an issue without a path goes to formErrors", {
  zod: z.object({ password: z.string(), confirm: z.string() }).refine(
    (form) => form.password === form.confirm,
    "Passwords differ",
  ),
  valibot: v.pipe(
    v.object({ password: v.string(), confirm: v.string() }),
    v.check((form) => form.password === form.confirm, "Passwords differ"),
  ),
}, async (schema) => {
  const result = failed(
    await parseForm(form(["password", "a"], ["confirm", "b"]), schema),
  );
  assert.deepEqual(result.formErrors, ["Passwords differ"]);
  assert.deepEqual(plain(result.fieldErrors), {});
});

both("several messages for one field are all kept, in order", {
  zod: z.object({
    code: z.string().min(4, "Too short").regex(/^\d+$/, "Digits only"),
  }),
  valibot: v.object({
    code: v.pipe(
      v.string(),
      v.minLength(4, "Too short"),
      v.regex(/^\d+$/, "Digits only"),
    ),
  }),
}, async (schema) => {
  const result = failed(await parseForm(form(["code", "x"]), schema));
  assert.deepEqual(result.fieldErrors.code, ["Too short", "Digits only"]);
});

both("async schemas are awaited", {
  zod: z.object({
    email: z.string().refine(async (email) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return email !== "taken@example.com";
    }, "Email already in use"),
  }),
  valibot: v.objectAsync({
    email: v.pipeAsync(
      v.string(),
      v.checkAsync(async (email) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return email !== "taken@example.com";
      }, "Email already in use"),
    ),
  }),
}, async (schema) => {
  const taken = failed(
    await parseForm(form(["email", "taken@example.com"]), schema),
  );
  assert.deepEqual(taken.fieldErrors.email, ["Email already in use"]);
  const free = ok(await parseForm(form(["email", "new@example.com"]), schema));
  assert.deepEqual(plain(free), { email: "new@example.com" });
});

both(
  "__proto__, constructor and prototype segments are refused, prototypes untouched",
  anything,
  async (schema) => {
    const names = [
      "__proto__",
      "__proto__.polluted",
      "a.__proto__.polluted",
      "items[0].__proto__",
      "constructor.prototype.polluted",
      "constructor",
      "x.prototype",
      "prototype",
    ];
    const result = failed(
      await parseForm(
        form(
          ["ok", "1"],
          ...names.map((name): [string, string] => [name, "yes"]),
        ),
        schema,
      ),
    );
    assert.equal(result.formErrors.length, names.length);
    names.forEach((name, i) => {
      assert.ok(
        result.formErrors[i].startsWith(
          `Field name ${JSON.stringify(name)} is refused`,
        ),
        result.formErrors[i],
      );
      assert.match(result.formErrors[i], /cannot be a key/);
    });
    assert.deepEqual(plain(result.values), { ok: "1" });
    assert.equal(Object.getPrototypeOf(result.values), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(
      Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"),
      false,
    );
    assert.equal(result.issues.length, 0, "the schema accepted the rest");
  },
);

both("names of Object.prototype's members are ordinary keys", {
  zod: z.object({ toString: z.string(), hasOwnProperty: z.array(z.string()) }),
  valibot: v.object({
    toString: v.string(),
    hasOwnProperty: v.array(v.string()),
  }),
}, async (schema) => {
  const value = ok(
    await parseForm(
      form(["toString", "a"], ["hasOwnProperty", "b"], ["hasOwnProperty", "c"]),
      schema,
    ),
  );
  assert.deepEqual(plain(value), { toString: "a", hasOwnProperty: ["b", "c"] });
});

both(
  "an index up to 1000 is kept; above it is refused without allocating",
  anything,
  async (schema) => {
    const result = failed(
      await parseForm(
        form(
          ["a[1000]", "last"],
          ["b[99999999]", "x"],
          ["c[1001].d", "x"],
          ["e[" + "9".repeat(400) + "]", "x"],
        ),
        schema,
      ),
    );
    assert.equal((result.values.a as unknown[]).length, 1001);
    assert.equal((result.values.a as unknown[])[1000], "last");
    assert.equal("b" in result.values, false);
    assert.equal("c" in result.values, false);
    assert.deepEqual(result.formErrors.slice(0, 2), [
      'Field name "b[99999999]" is refused: index 99999999 is above the limit of 1000',
      'Field name "c[1001].d" is refused: index 1001 is above the limit of 1000',
    ]);
    // A long name is quoted shortened, and its index not repeated.
    assert.match(
      result.formErrors[2],
      /^Field name "e\[9{98}…" is refused: index is above the limit of 1000$/,
    );
  },
);

both(
  "nesting up to 16 segments is kept; deeper is refused",
  anything,
  async (schema) => {
    const ok16 = Array.from({ length: 16 }, (_, i) => `k${i}`).join(".");
    const deep = Array.from({ length: 17 }, (_, i) => `k${i}`).join(".");
    const deepIndexes = "m" + "[0]".repeat(16);
    const result = failed(
      await parseForm(
        form([ok16, "x"], [deep, "y"], [deepIndexes, "z"]),
        schema,
      ),
    );
    let node = result.values as Record<string, unknown>;
    for (let i = 0; i < 15; i++) {
      node = node[`k${i}`] as Record<
        string,
        unknown
      >;
    }
    assert.equal(node.k15, "x");
    assert.deepEqual(result.formErrors, [
      `Field name ${
        JSON.stringify(deep)
      } is refused: it nests deeper than 16 levels`,
      `Field name ${
        JSON.stringify(deepIndexes)
      } is refused: it nests deeper than 16 levels`,
    ]);
    assert.equal("m" in result.values, false);
  },
);

both(
  "a huge nesting does not throw and is refused early",
  anything,
  async (schema) => {
    const deep = "a" + ".a".repeat(499); // 999 characters
    const huge = "a" + ".a".repeat(100_000);
    const result = failed(
      await parseForm(form([deep, "x"], [huge, "x"]), schema),
    );
    assert.match(result.formErrors[0], /nests deeper than 16 levels/);
    assert.match(result.formErrors[1], /is longer than 1000 characters/);
  },
);

both(
  "malformed brackets and empty keys are refused with the reason",
  anything,
  async (schema) => {
    const cases: [string, string][] = [
      ["a[", '"[" at position 1 is not closed'],
      ["a[0", '"[" at position 1 is not closed'],
      ["a]", '"]" at position 1 has no "["'],
      ["a[x]", 'brackets must hold an index from 0 to 1000, as in "a[0]"'],
      ["a[-1]", 'brackets must hold an index from 0 to 1000, as in "a[0]"'],
      ["a[1.5]", 'brackets must hold an index from 0 to 1000, as in "a[0]"'],
      ["a[01]", "an index cannot have leading zeros"],
      ["a[].b", '"[]" may only end a name'],
      ["a[][]", '"[]" may only end a name'],
      ["a[0]b", '"." or "[" must follow "]" at position 3'],
      ["[0]", "it must start with a key"],
      [".a", "it must start with a key"],
      ["a..b", 'empty key after "." at position 1'],
      ["a.", 'empty key after "." at position 1'],
      ["[]", "it must start with a key"],
    ];
    const result = failed(
      await parseForm(
        form(
          ["", "empty"],
          ...cases.map(([name]): [string, string] => [name, "v"]),
        ),
        schema,
      ),
    );
    assert.deepEqual(result.formErrors, [
      "A field with an empty name is refused",
      ...cases.map(([name, why]) =>
        `Field name ${JSON.stringify(name)} is refused: ${why}`
      ),
    ]);
    assert.deepEqual(plain(result.values), {});
  },
);

both(
  "a name used both as a value and as a group is refused, the first kept",
  anything,
  async (schema) => {
    const result = failed(
      await parseForm(
        form(
          ["a", "1"],
          ["a.b", "2"],
          ["o.x", "1"],
          ["o", "2"],
          ["o[0]", "3"],
          ["list[0]", "1"],
          ["list.x", "2"],
          ["list", "3"],
          ["t[]", "1"],
          ["t.x", "2"],
          ["t[0]", "3"],
          ["n.m", "1"],
          ["n.m.k", "2"],
        ),
        schema,
      ),
    );
    assert.deepEqual(plain(result.values), {
      a: "1",
      o: { x: "1" },
      list: ["1"],
      t: ["1"],
      n: { m: "1" },
    });
    assert.deepEqual(result.formErrors, [
      'Field name "a.b" is refused: "a" is already a value',
      'Field name "o" is refused: "o" is already an object (with .key)',
      'Field name "o[0]" is refused: "o" is already an object (with .key)',
      'Field name "list.x" is refused: "list" is already a list (with [index])',
      'Field name "list" is refused: "list" is already a list (with [index])',
      'Field name "t.x" is refused: "t" is already a list of values',
      'Field name "t[0]" is refused: "t" is already a list of values',
      'Field name "n.m.k" is refused: "n.m" is already a value',
    ]);
  },
);

both("a repeated indexed name gives an array at that index", {
  zod: z.object({ rows: z.array(z.object({ pick: z.array(z.string()) })) }),
  valibot: v.object({
    rows: v.array(v.object({ pick: v.array(v.string()) })),
  }),
}, async (schema) => {
  const value = ok(
    await parseForm(
      form(["rows[0].pick", "a"], ["rows[0].pick", "b"], [
        "rows[1].pick[]",
        "c",
      ]),
      schema,
    ),
  );
  assert.deepEqual(plain(value), {
    rows: [{ pick: ["a", "b"] }, { pick: ["c"] }],
  });
});

both("refused names fail the form even when the schema accepts the rest", {
  zod: z.object({ title: z.string() }),
  valibot: v.object({ title: v.string() }),
}, async (schema) => {
  const result = failed(
    await parseForm(form(["title", "x"], ["__proto__[0]", "y"]), schema),
  );
  assert.deepEqual(result.issues, []);
  assert.deepEqual(plain(result.fieldErrors), {});
  assert.equal(result.formErrors.length, 1);
});

Deno.test("parseForm: a hand-written Standard Schema; path segments as objects and symbols", async () => {
  const seen: unknown[] = [];
  const schema: StandardSchemaV1<Record<string, unknown>, string> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate(value) {
        seen.push(value);
        const record = value as Record<string, unknown>;
        if (record.ok === "yes") return { value: "fine" };
        return {
          issues: [
            { message: "by object", path: [{ key: "a" }, { key: 2 }, "b"] },
            { message: "by symbol", path: [Symbol("sym"), "x"] },
            { message: "numeric string", path: ["a", "0"] },
            { message: "empty path", path: [] },
            { message: "no path" },
          ],
        };
      },
    },
  };
  const passed = await parseForm(form(["ok", "yes"]), schema);
  assert.deepEqual(passed, { success: true, value: "fine" });
  const result = failed(await parseForm(form(["ok", "no"]), schema));
  assert.deepEqual(plain(result.fieldErrors), {
    "a[2].b": ["by object"],
    "sym.x": ["by symbol"],
    "a.0": ["numeric string"],
  });
  assert.deepEqual(result.formErrors, ["empty path", "no path"]);
  assert.equal(result.issues.length, 5);
  assert.equal(Object.getPrototypeOf(seen[0]), Object.prototype);
});

Deno.test("parseForm: fieldErrors is safe with a __proto__ key in an issue's path", async () => {
  const schema: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: () => ({ issues: [{ message: "m", path: ["__proto__"] }] }),
    },
  };
  const result = failed(await parseForm(form(), schema));
  assert.deepEqual(result.fieldErrors["__proto__"], ["m"]);
  assert.equal(({} as Record<string, unknown>).m, undefined);
});

Deno.test("parseForm: an error thrown by the schema itself propagates", async () => {
  const schema = z.object({ a: z.string() }).transform(() => {
    throw new Error("schema bug");
  });
  await assert.rejects(() => parseForm(form(["a", "x"]), schema), /schema bug/);
});

Deno.test("parseForm: re-exported from the package root", () => {
  assert.equal(fromRoot, parseForm);
});

both(
  "names parsed before give the same result; many distinct names stay correct",
  anything,
  async (schema) => {
    const entries = (round: number) =>
      Array.from(
        { length: 1500 },
        (
          _,
          i,
        ): [string, string] => [`g${i}.items[0].v${i % 3}`, `${round}-${i}`],
      );
    for (const round of [1, 2]) {
      const result = failed(
        await parseForm(form(...entries(round), ["bad[", "x"]), schema),
      );
      // The one refused name, the same message both times.
      assert.deepEqual(result.formErrors, [
        'Field name "bad[" is refused: "[" at position 3 is not closed',
      ]);
      const values = result.values as Record<string, { items: unknown[] }>;
      assert.equal(Object.keys(values).length, 1500);
      assert.deepEqual(plain(values.g1499.items[0]), {
        [`v${1499 % 3}`]: `${round}-1499`,
      });
      assert.deepEqual(plain(values.g3.items[0]), { v0: `${round}-3` });
    }
  },
);

both(
  "inherited members read as absent, in nested names and lists too",
  anything,
  async (schema) => {
    const result = ok(
      await parseForm(
        form(
          ["valueOf.x", "1"],
          ["isPrototypeOf[0].y", "2"],
          ["toLocaleString[]", "3"],
          ["items[0].hasOwnProperty", "4"],
          ["items[0].hasOwnProperty", "5"],
          ["__lookupGetter__", "6"],
        ),
        schema,
      ),
    );
    assert.deepEqual(plain(result), {
      valueOf: { x: "1" },
      isPrototypeOf: [{ y: "2" }],
      toLocaleString: ["3"],
      items: [{ hasOwnProperty: ["4", "5"] }],
      __lookupGetter__: "6",
    });
    assert.equal(typeof ({} as Record<string, unknown>).valueOf, "function");
  },
);
