// An all-ASCII urlencoded body is cut with string scans, not
// URLSearchParams: its pairs must be the WHATWG parser's, for every shape
// of body (escapes that are not UTF-8, "+", "=" in values, empty names, a
// leading "?"), checked against URLSearchParams on generated bodies.
import assert from "node:assert/strict";
import { parseUrlEncodedBytes } from "./_urlencoded.ts";
import { resolveLimits } from "./limits.ts";

const limits = resolveLimits({});
const encoder = new TextEncoder();

function pairsOf(body: string): [string, string][] {
  return [...parseUrlEncodedBytes(encoder.encode(body), limits)] as [
    string,
    string,
  ][];
}

function reference(body: string): [string, string][] {
  // URLSearchParams drops a leading "?" of a string; a form body keeps it.
  return [
    ...new URLSearchParams(body.startsWith("?") ? "&" + body : body),
  ];
}

Deno.test("urlencoded ASCII bodies: the WHATWG parser's pairs, for hand-picked shapes", () => {
  for (
    const body of [
      "",
      "text=hello+world&n=1",
      "a=1&&b=2&",
      "=x&y=&z",
      "?q=1",
      "a==b=c",
      "name=%C3&x=%C3%A9&y=%E2%82&z=%FF%FE",
      "%2B=%2b+%20",
      "caf%C3%A9=cr%C3%A8me+br%C3%BBl%C3%A9e",
      "a=%00%7F",
      "&&&",
      "+=+",
    ]
  ) {
    assert.deepEqual(pairsOf(body), reference(body), JSON.stringify(body));
  }
});

Deno.test("urlencoded ASCII bodies: the WHATWG parser's pairs, for 3000 generated bodies", () => {
  // A fixed linear congruential sequence: the same bodies on every run.
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pieces = [
    "a",
    "b",
    "=",
    "&",
    "+",
    "?",
    "%20",
    "%3D",
    "%26",
    "%2B",
    "%C3",
    "%A9",
    "%E2%82%AC",
    "%F0%9F",
    "%ff",
    "~",
    ".",
    "Z",
  ];
  for (let i = 0; i < 3000; i++) {
    let body = "";
    const length = next(12);
    for (let j = 0; j < length; j++) body += pieces[next(pieces.length)];
    assert.deepEqual(pairsOf(body), reference(body), JSON.stringify(body));
  }
});
