import assert from "node:assert/strict";
import { createPattern, indexOfPattern, partialMatchStart } from "./_search.ts";

const encoder = new TextEncoder();

function naiveIndexOf(haystack: Uint8Array, needle: Uint8Array, start: number) {
  outer: for (let i = start; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}

Deno.test("indexOfPattern agrees with a naive search on random data", () => {
  const needle = encoder.encode("\r\n--ab\r\nab");
  const pattern = createPattern(needle);
  // A small alphabet drawn from the needle makes near misses frequent.
  const alphabet = encoder.encode("\r\n-ab");
  let seed = 7;
  for (let round = 0; round < 300; round++) {
    const haystack = new Uint8Array(64);
    for (let i = 0; i < haystack.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      haystack[i] = alphabet[seed % alphabet.length];
    }
    if (round % 3 === 0) haystack.set(needle, round % 50);
    for (const start of [0, 1, 17, 60]) {
      assert.equal(
        indexOfPattern(haystack, pattern, start),
        naiveIndexOf(haystack, needle, start),
        `round ${round}, start ${start}`,
      );
    }
  }
});

Deno.test("indexOfPattern finds a match at the very start and end", () => {
  const pattern = createPattern(encoder.encode("xyz"));
  assert.equal(indexOfPattern(encoder.encode("xyzab"), pattern, 0), 0);
  assert.equal(indexOfPattern(encoder.encode("abxyz"), pattern, 0), 2);
  assert.equal(indexOfPattern(encoder.encode("abxy"), pattern, 0), -1);
  assert.equal(indexOfPattern(encoder.encode("xyzxyz"), pattern, 1), 3);
});

Deno.test("partialMatchStart finds the earliest cut-off prefix", () => {
  const pattern = createPattern(encoder.encode("\r\n--b"));
  const cases: [string, number][] = [
    ["data", 4],
    ["data\r", 4],
    ["data\r\n-", 4],
    ["data\r\n--", 4],
    ["da\r\nta", 6],
    ["\r\r\n", 1],
    ["\r\n-\r", 3],
  ];
  for (const [text, expected] of cases) {
    const bytes = encoder.encode(text);
    assert.equal(
      partialMatchStart(bytes, pattern, 0),
      expected,
      JSON.stringify(text),
    );
  }
  // Never before `start`.
  assert.equal(partialMatchStart(encoder.encode("ab\r\n"), pattern, 2), 2);
  assert.equal(partialMatchStart(encoder.encode("ab\r\n"), pattern, 3), 4);
});

Deno.test("indexOfPattern agrees with a naive search for many pattern lengths", () => {
  // Patterns of 1 to 45 bytes with repeated bytes (several places per byte
  // value), haystacks full of near misses, every start.
  const source = encoder.encode("\r\n----WebKitFormBoundary7MA4YWxkTrZu0gW");
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  for (let round = 0; round < 400; round++) {
    const length = 1 + (round % 45);
    const needle = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      needle[i] = round % 2 ? source[i % source.length] : source[random() % 6];
    }
    const pattern = createPattern(needle);
    const haystack = new Uint8Array(random() % 160);
    for (let i = 0; i < haystack.length; i++) {
      haystack[i] = random() % 4 === 0
        ? random() % 256
        : needle[random() % length];
    }
    for (let copies = random() % 3; copies > 0; copies--) {
      if (haystack.length >= length) {
        haystack.set(needle, random() % (haystack.length - length + 1));
      }
    }
    for (let start = 0; start <= haystack.length; start++) {
      assert.equal(
        indexOfPattern(haystack, pattern, start),
        naiveIndexOf(haystack, needle, start),
        `round ${round}, start ${start}`,
      );
    }
  }
});

Deno.test("createPattern rejects an empty pattern", () => {
  assert.throws(() => createPattern(new Uint8Array(0)), RangeError);
});
