// What the checks after `JSON.parse` cost, against text pre-checks that
// would let a parse skip them: `parseJsonText` (the parse, then the walk
// that refuses `__proto__`/`constructor`/`prototype` keys, numbers out of
// range, lone surrogates and depth past `maxDepth`) against `JSON.parse`
// alone, and, for scale, the native scans a walk-free proof would need:
// the three key names, `\u`, an exponent of 3 or more digits and a run of
// 210 digits (the two ways a number reaches Infinity), and a count of
// `{`. Three bodies: the 1,025-byte order of `bench/runtimes/_apps.ts`,
// and the 1 KB and 100 KB orders of `_fixtures.ts`. Batches interleaved,
// median µs per call [quartiles] over the rounds (wall time: run it on a
// quiet machine, or read the ratios).
//
//   deno run --allow-all bench/validation/walk_cost.ts [rounds=21]
import { parseJsonText } from "../../validation/_json.ts";
import { ORDER_BODY } from "../runtimes/_app_data.ts";
import { LARGE, SMALL } from "./_fixtures.ts";

const rounds = Number(Deno.args[0] ?? 21);

const CASES: [string, (text: string) => unknown][] = [
  ["JSON.parse", (text) => JSON.parse(text)],
  ["parseJsonText", (text) => parseJsonText(text, 64)],
  [
    "keys: 3 includes",
    (text) =>
      text.includes("__proto__") || text.includes("constructor") ||
      text.includes("prototype"),
  ],
  ["\\u: includes", (text) => text.includes("\\u")],
  ["exponent: /[eE][+-]?\\d{3}/", (text) => /[eE][+-]?\d{3}/.test(text)],
  ["long number: /\\d{210}/", (text) => /\d{210}/.test(text)],
  ["depth: count { to 65", (text) => {
    let count = 0;
    let at = -1;
    while (count < 65 && (at = text.indexOf("{", at + 1)) !== -1) count++;
    return count;
  }],
];

for (
  const [label, text, calls] of [
    ["1,025-byte order", ORDER_BODY, 5000],
    ["1 KB", SMALL, 5000],
    ["100 KB", LARGE, 50],
  ] as const
) {
  const samples = CASES.map(() => [] as number[]);
  for (let round = -2; round < rounds; round++) {
    CASES.forEach(([, fn], c) => {
      const start = performance.now();
      for (let i = 0; i < calls; i++) fn(text);
      const per = (performance.now() - start) * 1000 / calls;
      if (round >= 0) samples[c]!.push(per);
    });
  }
  const at = (xs: number[], q: number) =>
    [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
  const parse = at(samples[0]!, 0.5);
  console.log(`${label} (${text.length} characters):`);
  CASES.forEach(([name], c) => {
    const xs = samples[c]!;
    console.log(
      `  ${name}: ${at(xs, 0.5).toFixed(2)} µs [${at(xs, 0.25).toFixed(2)}-${
        at(xs, 0.75).toFixed(2)
      }], ${(at(xs, 0.5) / parse).toFixed(3)} of JSON.parse`,
    );
  });
}
