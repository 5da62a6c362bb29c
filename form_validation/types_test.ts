// Type inference, checked by `deno check` (and `deno test`): each probe
// marked as an expected error fails the check once its line type-checks.
import assert from "node:assert/strict";
import * as z from "zod";
import * as v from "valibot";
import type * as Spec from "@standard-schema/spec";
import {
  parseForm,
  type ParseFormResult,
  type StandardSchemaV1,
} from "@fetchkit/toolkit/form-validation";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;

function expectType<T>(_value: T): void {}

Deno.test("parseForm types: zod output, coerce.number is a number, failure narrows", async () => {
  const form = new URLSearchParams("age=42&name=Ada&tags[]=x");
  const result = await parseForm(
    form,
    z.object({
      age: z.coerce.number(),
      name: z.string(),
      tags: z.array(z.string()),
      nick: z.string().optional(),
    }),
  );
  expectType<
    ParseFormResult<
      { age: number; name: string; tags: string[]; nick?: string | undefined }
    >
  >(result);

  if (result.success) {
    const exact: Equal<typeof result.value.age, number> = true;
    assert.ok(exact);
    const age: number = result.value.age;
    // @ts-expect-error the coerced field is a number, not a string
    const wrong: string = result.value.age;
    // @ts-expect-error the success branch has no errors
    result.fieldErrors;
    // @ts-expect-error no such field in the schema
    result.value.email;
    assert.equal(age, 42);
    assert.equal(wrong, 42);
  } else {
    const fieldErrors: Record<string, string[]> = result.fieldErrors;
    const formErrors: string[] = result.formErrors;
    const values: Record<string, unknown> = result.values;
    const message: string | undefined = result.issues[0]?.message;
    // @ts-expect-error the failure branch has no value
    result.value;
    assert.fail(JSON.stringify({ fieldErrors, formErrors, values, message }));
  }
});

Deno.test("parseForm types: valibot output with transforms", async () => {
  const result = await parseForm(
    new URLSearchParams("count=3&when=2024-01-02"),
    v.object({
      count: v.pipe(v.string(), v.toNumber()),
      when: v.pipe(v.string(), v.transform((text) => new Date(text))),
    }),
  );
  if (!result.success) {
    // @ts-expect-error narrowed to the failure branch
    result.value.count;
    assert.fail(result.formErrors.join());
  }
  const exact: Equal<typeof result.value, { count: number; when: Date }> = true;
  assert.ok(exact);
  // @ts-expect-error a Date is not a string
  const when: string = result.value.when;
  assert.ok((when as unknown) instanceof Date);
});

Deno.test("parseForm types: only Standard Schemas are accepted", async () => {
  // @ts-expect-error a plain object is not a schema
  await assert.rejects(() => parseForm(new FormData(), { parse: () => 1 }));
  // @ts-expect-error the input is a parsed form, not a Request
  await assert.rejects(() => parseForm(new Request("http://x"), z.object({})));
});

Deno.test("StandardSchemaV1: the copied interface and @standard-schema/spec are interchangeable", () => {
  type Ours = StandardSchemaV1<{ a: string }, { a: number }>;
  type Theirs = Spec.StandardSchemaV1<{ a: string }, { a: number }>;
  const oursToTheirs = (schema: Ours): Theirs => schema;
  const theirsToOurs = (schema: Theirs): Ours => schema;
  const issue: Equal<StandardSchemaV1.Issue, Spec.StandardSchemaV1.Issue> =
    true;
  const result: Equal<
    StandardSchemaV1.Result<number>,
    Spec.StandardSchemaV1.Result<number>
  > = true;
  const output: Equal<
    StandardSchemaV1.InferOutput<Theirs>,
    Spec.StandardSchemaV1.InferOutput<Ours>
  > = true;
  assert.ok(issue && result && output);
  assert.equal(typeof oursToTheirs, typeof theirsToOurs);
});
