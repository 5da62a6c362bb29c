// What a small urlencoded body's record and FormData must keep, whichever
// way the scan builds them (a one-pass scan that builds the record as it
// checks the fields was counted and not kept: BENCHMARKS.md, "Tenth
// round: the urlencoded POST in one pass"): the record of the pairs,
// prototype-free, the FormData in the order sent, and the pairs' errors in
// the pairs' order (a malformed `%` anywhere before a field over a limit).
import assert from "node:assert/strict";
import { parseUrlEncodedPairs } from "./_urlencoded.ts";
import { resolveLimits } from "./limits.ts";
import {
  FormDataParseError,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
} from "./errors.ts";
import { createRouter } from "../router/mod.ts";
import { formData } from "./middleware.ts";
import { FormFields } from "./fields.ts";

const encoder = new TextEncoder();

function post(body: string): Request {
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
}

Deno.test("urlencoded fields: field limits name the first field over them", () => {
  const two = resolveLimits({ maxFields: 2 });
  assert.throws(
    () => parseUrlEncodedPairs(encoder.encode("a=1&b=2&c=3&d=4"), two),
    (error: unknown) =>
      error instanceof MaxFieldsExceededError && error.fieldName === "c" &&
      error.status === 413,
  );
  const small = resolveLimits({ maxFieldSize: 4 });
  assert.throws(
    () =>
      parseUrlEncodedPairs(encoder.encode("a=1234&b=12345&c=123456"), small),
    (error: unknown) =>
      error instanceof MaxFieldSizeExceededError && error.fieldName === "b",
  );
  // "%C3%A9" is one character of two bytes: 3 characters, 6 bytes.
  assert.throws(
    () => parseUrlEncodedPairs(encoder.encode("a=%C3%A9%C3%A9%C3%A9"), small),
    MaxFieldSizeExceededError,
  );
  assert.deepEqual(
    parseUrlEncodedPairs(encoder.encode("a=%C3%A9%C3%A9"), small),
    ["a", "éé"],
  );
});

Deno.test("urlencoded fields: a malformed % after a field over a limit is the 400", () => {
  const one = resolveLimits({ maxFields: 1 });
  for (const body of ["a=1&b=2&c=%zz", "a=1&b=2&c=%4", "a=1&b=%"]) {
    assert.throws(
      () => parseUrlEncodedPairs(encoder.encode(body), one),
      (error: unknown) =>
        error instanceof FormDataParseError &&
        !(error instanceof MaxFieldsExceededError) && error.status === 400,
      body,
    );
  }
  // Over a limit, then raw non-ASCII: the limit's 413.
  assert.throws(
    () => parseUrlEncodedPairs(encoder.encode("a=1&b=2&c=\u00e9"), one),
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
  const response = await router.fetch(post("b=1&a=x+y&b=2&c%5B%5D=3"));
  assert.deepEqual(await response.json(), {
    fields: { b: ["1", "2"], a: "x y", "c[]": ["3"] },
    again: true,
    form: [["b", "1"], ["a", "x y"], ["b", "2"], ["c[]", "3"]],
    formAgain: true,
  });
});

Deno.test("formData(): a urlencoded field named __proto__ is an entry of a record without a prototype", async () => {
  const router = createRouter();
  router.post("/", formData(), ({ get }) => {
    const fields = get(FormFields)!;
    return Response.json({
      prototype: Object.getPrototypeOf(fields),
      keys: Object.keys(fields),
      proto: fields["__proto__"],
      toString: fields.toString,
    });
  });
  const response = await router.fetch(post("__proto__=x&toString=y"));
  assert.deepEqual(await response.json(), {
    prototype: null,
    keys: ["__proto__", "toString"],
    proto: "x",
    toString: "y",
  });
});
