// Type inference, checked by `deno check` (and `deno test`): each probe
// marked as an expected error fails the check once its line type-checks.
import assert from "node:assert/strict";
import * as z from "zod";
import * as v from "valibot";
import {
  parseHeaders,
  parseJson,
  parseParams,
  parseQuery,
  readBody,
  type ValidationResult,
} from "@fetchkit/toolkit/validation";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;

const zodNumber = z.object({ n: z.coerce.number() });
const valibotNumber = v.object({ n: v.pipe(v.string(), v.toNumber()) });
const jsonRequest = () =>
  new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"n": "7"}',
  });

Deno.test("types: value is number for z.coerce.number() in every parse*", async () => {
  const results = [
    await parseJson(jsonRequest(), zodNumber),
    await parseQuery(new URLSearchParams("n=7"), zodNumber),
    await parseParams({ n: "7" }, zodNumber),
    await parseHeaders(new Headers({ n: "7" }), zodNumber),
  ];
  for (const result of results) {
    if (result.success) {
      const exact: Equal<typeof result.value.n, number> = true;
      assert.ok(exact);
      const n: number = result.value.n;
      // @ts-expect-error the coerced value is a number, not a string
      const wrong: string = result.value.n;
      // @ts-expect-error the success branch has no errors
      result.fieldErrors;
      // @ts-expect-error no such key in the schema
      result.value.m;
      assert.equal(n, 7);
      assert.equal(wrong, 7);
    } else {
      const fieldErrors: Record<string, string[]> = result.fieldErrors;
      const formErrors: string[] = result.formErrors;
      // @ts-expect-error the failure branch has no value
      result.value;
      assert.fail(JSON.stringify({ fieldErrors, formErrors }));
    }
  }
});

Deno.test("types: valibot output types too", async () => {
  const json = await parseJson(jsonRequest(), valibotNumber);
  const params = await parseParams({ n: "7" }, valibotNumber);
  for (const result of [json, params]) {
    const typed: ValidationResult<{ n: number }> = result;
    assert.ok(typed.success);
    const exact: Equal<typeof result, ValidationResult<{ n: number }>> = true;
    assert.ok(exact);
    if (result.success) {
      // @ts-expect-error a number, not a string
      const wrong: string = result.value.n;
      assert.equal(wrong, 7);
    }
  }
});

Deno.test('types: readBody gives bytes, or text with as: "text"', async () => {
  const bytes = await readBody(
    new Request("http://x/", { method: "POST", body: "a" }),
  );
  const exactBytes: Equal<typeof bytes, Uint8Array> = true;
  const text = await readBody(
    new Request("http://x/", { method: "POST", body: "a" }),
    { as: "text" },
  );
  const exactText: Equal<typeof text, string> = true;
  assert.ok(exactBytes && exactText);
  // @ts-expect-error only "bytes" or "text"
  await readBody(new Request("http://x/"), { as: "json" }).catch(() => {});
});
