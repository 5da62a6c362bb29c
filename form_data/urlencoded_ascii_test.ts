// An all-ASCII urlencoded body is cut with string scans, not
// URLSearchParams: its pairs must be the WHATWG parser's, for every shape
// of body (escapes that are not UTF-8, "+", "=" in values, empty names, a
// leading "?"), checked against URLSearchParams on generated bodies.
import assert from "node:assert/strict";
import { parseUrlEncodedBytes, parseUrlEncodedPairs } from "./_urlencoded.ts";
import { FormDataParseError } from "./errors.ts";
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

Deno.test("urlencoded ASCII bodies: each parse's pairs are its own (nothing left from one before, long or stopped)", () => {
  const long = Array.from({ length: 100 }, (_, i) => `f${i}=${i}`).join("&");
  assert.equal(pairsOf(long).length, 100);
  assert.deepEqual(pairsOf("c=3"), [["c", "3"]]);
  const pairs = parseUrlEncodedPairs(encoder.encode("a=1&b=2"), limits);
  assert.deepEqual(pairs, ["a", "1", "b", "2"]);
  // A body refused after two pairs, then one cut to its end.
  assert.throws(
    () => pairsOf("x=1&y=2&z=%zz"),
    (error) => error instanceof FormDataParseError,
  );
  assert.deepEqual(pairsOf("d=4"), [["d", "4"]]);
  // A body that turns out not to be ASCII after a pair, then an ASCII one.
  assert.deepEqual(pairsOf("e=5&\u00e9=6"), [["e", "5"], ["\u00e9", "6"]]);
  assert.deepEqual(pairsOf("g=7"), [["g", "7"]]);
  // The array handed out is not the parser's to change later.
  pairsOf("h=8&i=9");
  assert.deepEqual(pairs, ["a", "1", "b", "2"]);
});
