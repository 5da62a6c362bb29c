// Forms built to cost: array holes and long names. Portable (Deno, Node, Bun).
import assert from "node:assert/strict";
import * as z from "zod";
import * as v from "valibot";
import {
  parseForm,
  type StandardSchemaV1,
} from "@fetchkit/toolkit/form-validation";
import { longestMapKey } from "../_tools/map_keys.ts";

/** Accepts anything: the object as built, without a schema's own cost. */
const anything: StandardSchemaV1<unknown, unknown> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value) => ({ value }),
  },
};

/** Empty slots in every array of a value, however deep. */
function countHoles(value: unknown): number {
  if (Array.isArray(value)) {
    let holes = 0;
    for (let i = 0; i < value.length; i++) {
      holes += i in value ? countHoles(value[i]) : 1;
    }
    return holes;
  }
  if (typeof value === "object" && value !== null && !(value instanceof Blob)) {
    let holes = 0;
    for (const item of Object.values(value)) holes += countHoles(item);
    return holes;
  }
  return 0;
}

function ordersForm(count: number, lineIndex: number): FormData {
  const form = new FormData();
  for (let i = 0; i < count; i++) {
    form.append(`orders[${i}].lines[${lineIndex}].sku`, "A-1");
  }
  return form;
}

Deno.test("parseForm: 1,000 fields orders[i].lines[1000].sku leave at most 1000 holes, not a million", async () => {
  const result = await parseForm(ordersForm(1000, 1000), anything);
  assert.equal(result.success, false);
  if (result.success) return;
  assert.ok(
    countHoles(result.values) <= 1000,
    `${countHoles(result.values)} holes`,
  );
  // The first field fits (1000 holes); each later one is refused by name.
  assert.equal(result.formErrors.length, 999);
  assert.equal(
    result.formErrors[0],
    'Field name "orders[1].lines[1000].sku" is refused: it would leave more than 1000 array indexes empty in the form (skipped indexes count, across all arrays)',
  );
});

Deno.test("parseForm: zod and valibot report a bounded number of issues for the worst form", async () => {
  const zod = z.object({
    orders: z.array(
      z.object({ lines: z.array(z.object({ sku: z.string() })) }),
    ),
  });
  const valibot = v.object({
    orders: v.array(
      v.object({ lines: v.array(v.object({ sku: v.string() })) }),
    ),
  });
  for (const schema of [zod, valibot]) {
    const result = await parseForm(ordersForm(1000, 1000), schema);
    assert.equal(result.success, false);
    if (result.success) continue;
    // One issue per hole (1000) and per order left without lines (999),
    // where there were a million.
    assert.ok(result.issues.length <= 2000, `${result.issues.length} issues`);
  }
});

Deno.test("parseForm: holes are counted as they stand, so field order does not matter", async () => {
  // Highest index first: 1000 holes at once, then filled one by one.
  const form = new FormData();
  form.append("a[1000]", "last");
  for (let i = 999; i >= 0; i--) form.append(`a[${i}]`, String(i));
  // Filled holes are given back: another 1000 fit.
  form.append("b[1000]", "x");
  const result = await parseForm(form, anything);
  assert.equal(result.success, true, JSON.stringify(result).slice(0, 300));
  if (!result.success) return;
  const value = result.value as { a: string[]; b: string[] };
  assert.equal(value.a.length, 1001);
  assert.equal(countHoles(value), 1000);
});

Deno.test("parseForm: the hole bound is across all arrays; the field past it is refused", async () => {
  const form = new FormData();
  form.append("a[600]", "x"); // 600
  form.append("b[0].c[400]", "x"); // 400 more: 1000
  form.append("d[1]", "x"); // 1001: refused
  form.append("e[0]", "x"); // no hole: kept
  const result = await parseForm(form, anything);
  assert.equal(result.success, false);
  if (result.success) return;
  assert.deepEqual(Object.keys(result.values), ["a", "b", "d", "e"]);
  assert.deepEqual(result.values.d, []);
  assert.deepEqual(result.values.e, ["x"]);
  assert.equal(result.formErrors.length, 1);
  assert.match(
    result.formErrors[0],
    /^Field name "d\[1\]" is refused: it would leave more than 1000/,
  );
});

Deno.test("parseForm: full arrays cost no holes, however many and however deep", async () => {
  const form = new FormData();
  const deep = "[0]".repeat(14);
  for (let i = 0; i < 1000; i++) form.append(`m[${i}]${deep}`, "x");
  for (let i = 0; i <= 1000; i++) form.append(`n[${i}].v`, "y");
  const result = await parseForm(form, anything);
  assert.equal(result.success, true);
});

Deno.test("parseForm: a name over 1000 characters is refused before it is used as a key", async () => {
  const form = new FormData();
  for (let i = 0; i < 20; i++) {
    form.append("x".repeat(17_000) + i, "1"); // flat
    form.append("a." + "y".repeat(17_000) + i, "1"); // nested
  }
  form.append("ok", "1");
  form.append("k".repeat(1000), "kept");
  let result!: Awaited<ReturnType<typeof parseForm>>;
  const longest = await longestMapKey(async () => {
    result = await parseForm(form, anything);
  });
  assert.ok(
    longest <= 1000,
    `a Map was searched with a ${longest}-character key`,
  );
  assert.equal(result.success, false);
  if (result.success) return;
  // No object got a long key either: the refused names are absent.
  assert.deepEqual(Object.keys(result.values), ["ok", "k".repeat(1000)]);
  assert.equal(result.formErrors.length, 40);
  assert.match(
    result.formErrors[0],
    /^Field name "x{100}…" is refused: it is longer than 1000 characters$/,
  );
});
