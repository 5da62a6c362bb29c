// Nested names from qs's parse tests (ljharb/qs at 3a890d4, test/parse.js,
// `allowDots: true`): the ones written in our syntax give qs's object;
// where qs merges or compacts, we refuse or keep holes, bounded. Portable.
import assert from "node:assert/strict";
import {
  parseForm,
  type StandardSchemaV1,
} from "@fetchkit/toolkit/form-validation";

const anything: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) },
};

async function parse(query: string) {
  return await parseForm(new URLSearchParams(query), anything);
}

Deno.test("parseForm (qs vectors): dots and indexes give qs's objects", async () => {
  const cases: [string, unknown][] = [
    ["a.b=c", { a: { b: "c" } }],
    ["foo[0].baz=bar&fool.bad=baz", {
      foo: [{ baz: "bar" }],
      fool: { bad: "baz" },
    }],
    ["foo[0].baz=bar&fool.bad.boo=baz", {
      foo: [{ baz: "bar" }],
      fool: { bad: { boo: "baz" } },
    }],
    ["foo[0][0].baz=bar&fool.bad=baz", {
      foo: [[{ baz: "bar" }]],
      fool: { bad: "baz" },
    }],
    ["foo[0].baz[0]=15&foo[0].bar=2", { foo: [{ baz: ["15"], bar: "2" }] }],
    ["foo[0].baz[0]=15&foo[0].baz[1]=16&foo[0].bar=2", {
      foo: [{ baz: ["15", "16"], bar: "2" }],
    }],
    ["foo[0].a=a&foo[0].b=b&foo[1].a=aa&foo[1].b=bb", {
      foo: [{ a: "a", b: "b" }, { a: "aa", b: "bb" }],
    }],
  ];
  for (const [query, expected] of cases) {
    const result = await parse(query);
    assert.ok(result.success, query);
    assert.deepEqual(
      JSON.parse(JSON.stringify(result.value)),
      expected,
      query,
    );
  }
});

Deno.test("parseForm (qs vectors): where qs merges an object and a list, the later name is refused", async () => {
  for (
    const query of [
      "foo.bad=baz&foo[0]=bar",
      "foo.bad=baz&foo[]=bar",
      "foo[]=bar&foo.bad=baz",
    ]
  ) {
    const result = await parse(query);
    assert.equal(result.success, false, query);
    if (result.success) continue;
    assert.equal(result.formErrors.length, 1, query);
    assert.match(result.formErrors[0], /is refused: "foo" is already/);
  }
});

Deno.test("parseForm (qs vectors): where qs compacts a sparse array, holes are kept and counted", async () => {
  // qs: { a: ["2", "1"] }. Here the indexes are kept: a schema sees the
  // holes, and a form may leave at most 1000 of them.
  const result = await parse("a[10]=1&a[2]=2");
  assert.ok(result.success);
  const a = (result.value as { a: string[] }).a;
  assert.equal(a.length, 11);
  assert.equal(a[2], "2");
  assert.equal(a[10], "1");
  assert.equal(Object.keys(a).length, 2);
  const over = await parse("a[1000]=x&b[1]=y");
  assert.equal(over.success, false);
});
