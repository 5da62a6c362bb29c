import assert from "node:assert/strict";
import { fromBase64Url, toBase64Url } from "./base64.ts";

Deno.test("base64url: round trips every length and byte", () => {
  for (let length = 0; length < 40; length++) {
    const bytes = new Uint8Array(length).map((_, index) => index * 37 + length);
    const text = toBase64Url(bytes);
    assert.match(text, /^[A-Za-z0-9_-]*$/);
    assert.equal(text.length, Math.ceil(length * 4 / 3));
    assert.deepEqual(fromBase64Url(text), bytes);
  }
  assert.equal(toBase64Url(new Uint8Array([0xfb, 0xff])), "-_8");
});

Deno.test("base64url: a view into a larger buffer encodes only its bytes", () => {
  const buffer = new Uint8Array([1, 2, 3, 4, 5, 6]);
  assert.equal(
    toBase64Url(buffer.subarray(2, 5)),
    toBase64Url(new Uint8Array([3, 4, 5])),
  );
});

Deno.test("base64url: characters outside the alphabet and impossible lengths throw", () => {
  for (const text of ["ab+c", "ab/c", "ab=c", "abcd=", "a", "abcde", "ab c"]) {
    assert.throws(() => fromBase64Url(text), SyntaxError, text);
  }
});
