// A small urlencoded body's record is built in the scan that checks its
// fields (`parseUrlEncodedRecord`): it must be the record of the pairs,
// with the pairs' errors in the pairs' order, and `formData()` must still
// give the `FormData` in the order sent.
import assert from "node:assert/strict";
import { parseUrlEncodedPairs, parseUrlEncodedRecord } from "./_urlencoded.ts";
import { recordFromPairs } from "./_fields.ts";
import { resolveLimits } from "./limits.ts";
import {
  FormDataParseError,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
} from "./errors.ts";
import { createRouter } from "../router/mod.ts";
import { formData } from "./middleware.ts";
import { FormFields } from "./fields.ts";

const limits = resolveLimits({});
const encoder = new TextEncoder();

function both(body: string, given = limits) {
  const bytes = encoder.encode(body);
  return {
    record: parseUrlEncodedRecord(bytes, given),
    expected: recordFromPairs(parseUrlEncodedPairs(bytes, given)),
  };
}

Deno.test("urlencoded record: the record of the pairs, for hand-picked and generated bodies", () => {
  const bodies = [
    "",
    "text=hello+world&n=1",
    "a=1&b=2&a=3&a=4",
    "tags[]=x&one[]=&tags[]=y",
    "__proto__=1&constructor=2&toString=3&hasOwnProperty=4",
    "a=1&&b=2&",
    "=x&y=&z",
    "?q=1",
    "a==b=c",
    "name=%C3&x=%C3%A9&y=%E2%82&z=%FF%FE",
    "%2B=%2b+%20",
    "caf\u00e9=cr\u00e8me&a=%C3%A9", // raw non-ASCII: the byte-level path
    "1=a&b=c&0=d",
  ];
  let seed = 4242;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pieces = ["a", "b", "[]", "=", "&", "+", "%20", "%C3", "%A9", "0"];
  for (let i = 0; i < 2000; i++) {
    let body = "";
    const length = next(12);
    for (let j = 0; j < length; j++) body += pieces[next(pieces.length)];
    bodies.push(body);
  }
  for (const body of bodies) {
    const { record, expected } = both(body);
    assert.equal(Object.getPrototypeOf(record), null, body);
    assert.deepEqual(record, expected, JSON.stringify(body));
  }
});

Deno.test("urlencoded record: a field named __proto__ is an entry, and the record has no prototype", () => {
  const { record } = both("__proto__=x&toString=y");
  assert.equal(Object.getPrototypeOf(record), null);
  assert.equal(record["__proto__"], "x");
  assert.equal(record.toString, "y");
  assert.deepEqual(Object.keys(record), ["__proto__", "toString"]);
});

Deno.test("urlencoded record: field limits name the first field over them, as the pairs do", () => {
  const two = resolveLimits({ maxFields: 2 });
  assert.throws(
    () => parseUrlEncodedRecord(encoder.encode("a=1&b=2&c=3&d=4"), two),
    (error: unknown) =>
      error instanceof MaxFieldsExceededError && error.fieldName === "c" &&
      error.status === 413,
  );
  const small = resolveLimits({ maxFieldSize: 4 });
  assert.throws(
    () =>
      parseUrlEncodedRecord(encoder.encode("a=1234&b=12345&c=123456"), small),
    (error: unknown) =>
      error instanceof MaxFieldSizeExceededError && error.fieldName === "b",
  );
  // "%C3%A9" is one character of two bytes: 3 characters, 6 bytes.
  assert.throws(
    () => parseUrlEncodedRecord(encoder.encode("a=%C3%A9%C3%A9%C3%A9"), small),
    MaxFieldSizeExceededError,
  );
  assert.deepEqual(
    { ...parseUrlEncodedRecord(encoder.encode("a=%C3%A9%C3%A9"), small) },
    { a: "éé" },
  );
});

Deno.test("urlencoded record: a malformed % after a field over a limit is still the 400", () => {
  // The pairs check the whole body's escapes before the field limits.
  const one = resolveLimits({ maxFields: 1 });
  for (const body of ["a=1&b=2&c=%zz", "a=1&b=2&c=%4", "a=1&b=%"]) {
    assert.throws(
      () => parseUrlEncodedRecord(encoder.encode(body), one),
      (error: unknown) =>
        error instanceof FormDataParseError &&
        !(error instanceof MaxFieldsExceededError) && error.status === 400,
      body,
    );
    assert.throws(
      () => parseUrlEncodedPairs(encoder.encode(body), one),
      (error: unknown) =>
        error instanceof FormDataParseError &&
        !(error instanceof MaxFieldsExceededError) && error.status === 400,
      body,
    );
  }
  // Over a limit, then raw non-ASCII: the byte-level path's answer.
  assert.throws(
    () => parseUrlEncodedRecord(encoder.encode("a=1&b=2&c=\u00e9"), one),
    MaxFieldsExceededError,
  );
});

Deno.test("formData(): FormFields and FormData of one urlencoded body, in the order sent", async () => {
  const router = createRouter();
  router.post("/", formData(), ({ get }) => {
    const fields = get(FormFields);
    const form = get(FormData);
    return Response.json({
      fields: { ...fields },
      again: get(FormFields) === fields,
      form: [...form],
      formAgain: get(FormData) === form,
    });
  });
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "b=1&a=x+y&b=2&c%5B%5D=3",
    }),
  );
  assert.deepEqual(await response.json(), {
    fields: { b: ["1", "2"], a: "x y", "c[]": ["3"] },
    again: true,
    form: [["b", "1"], ["a", "x y"], ["b", "2"], ["c[]", "3"]],
    formAgain: true,
  });
});
