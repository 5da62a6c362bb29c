import assert from "node:assert/strict";
import { declaredLength } from "./read_body.ts";

/** A request whose Content-Length header is `value` as given. */
function withLength(value: string): Request {
  const headers = new Headers();
  // A Headers object keeps what it is given (trimmed of outer blanks).
  headers.set("content-length", value);
  return new Request("http://x/", { method: "POST", headers });
}

Deno.test("declaredLength reads a decimal byte count of 1 to 15 digits", () => {
  assert.equal(declaredLength(new Request("http://x/")), undefined);
  for (
    const [value, length] of [
      ["0", 0],
      ["7", 7],
      ["1025", 1025],
      [" 42 ", 42],
      ["\u00a042\u00a0", 42],
      ["007", 7],
      ["999999999999999", 999_999_999_999_999],
    ] as const
  ) {
    assert.equal(declaredLength(withLength(value)), length, value);
  }
});

Deno.test("declaredLength is NaN for anything but a decimal byte count", () => {
  for (
    const value of [
      "",
      "abc",
      "-1",
      "+1",
      "1e3",
      "1.0",
      "0x10",
      "10, 12",
      "1 2",
      "1\u00b2",
      "1000000000000000",
    ]
  ) {
    assert.ok(Number.isNaN(declaredLength(withLength(value))), value);
  }
});
