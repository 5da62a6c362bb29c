import assert from "node:assert/strict";
import { escapeHtml } from "@fetchkit/toolkit/html-template";

// The definition escapeHtml must match: each special character by its
// entity, everything else as it is.
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
function reference(text: string): string {
  let out = "";
  for (const char of text) out += ENTITIES[char] ?? char;
  return out;
}

Deno.test("escapeHtml escapes specials at the start, the end and in a row", () => {
  for (
    const text of [
      "<",
      "<a",
      "a>",
      "<>",
      `&<>"'`,
      `'x'`,
      "a&b",
      "&amp;",
      "é<ü>€ 😀&",
    ]
  ) {
    assert.equal(escapeHtml(text), reference(text), JSON.stringify(text));
  }
});

Deno.test("escapeHtml finds specials after long plain runs, around the look-ahead", () => {
  // After 16 plain characters in a row the search for the next special
  // goes back to the regex engine: runs of every length around that point.
  for (let run = 0; run <= 40; run++) {
    const plain = "x".repeat(run);
    for (
      const text of [
        `<${plain}>`,
        `<${plain}`,
        `&${plain}&${plain}"`,
        `'${plain}'${plain}`,
        `a<b${plain}c>d${plain}e`,
      ]
    ) {
      assert.equal(escapeHtml(text), reference(text), JSON.stringify(text));
    }
  }
});

Deno.test("escapeHtml matches the definition on random texts", () => {
  // A fixed-seed generator: the same texts every run.
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = [
    "&",
    "<",
    ">",
    '"',
    "'",
    "a",
    " ",
    "é",
    "😀",
    "x".repeat(20),
  ];
  for (let n = 0; n < 2000; n++) {
    let text = "";
    const length = Math.floor(next() * 30);
    for (let i = 0; i < length; i++) {
      // Plain text most of the time, so that long plain runs occur.
      text += next() < 0.2
        ? alphabet[Math.floor(next() * 5)]
        : alphabet[5 + Math.floor(next() * 5)];
    }
    assert.equal(escapeHtml(text), reference(text), JSON.stringify(text));
  }
});
