// Multipart parsing throughput: @fetchkit/toolkit's streaming parser against
// Deno's native Request.formData(), npm:@remix-run/multipart-parser and
// npm:busboy, in the same run and on the same bodies, delivered as a stream
// of 64 KiB chunks. Every peer builds the same FormData (File objects for
// files), so the numbers compare like with like.
//
//   deno bench --allow-all --v8-flags=--expose-gc bench/form_data/multipart_bench.ts
//
// With --expose-gc each iteration starts after a full GC, outside the timed
// region: the 50 MB Files live outside the JS heap, and without it memory
// grows until V8 happens to collect them.
//
// deno bench reports time per parse; for MB/s, medians over repeated runs
// and peak memory, run bench/form_data/report.ts (see BENCHMARKS.md).

import {
  largeFileBody,
  type ParserName,
  PARSERS,
  parseWith,
  smallFieldsBody,
} from "./_fixtures.ts";

const MiB = 1024 * 1024;
const large = largeFileBody(50 * MiB);
const small = smallFieldsBody(1000);

const gc = (globalThis as { gc?: () => void }).gc;

async function checkLarge(
  parser: ParserName,
  b: Deno.BenchContext,
): Promise<void> {
  gc?.();
  b.start();
  const form = await parseWith(parser, large);
  b.end();
  const file = form.get("file");
  if (!(file instanceof File) || file.size !== 50 * MiB) {
    throw new Error(`${parser} parsed the 50 MB file wrong`);
  }
}

async function checkSmall(
  parser: ParserName,
  b: Deno.BenchContext,
): Promise<void> {
  b.start();
  const form = await parseWith(parser, small);
  b.end();
  if (form.get("field_999") !== "value number 999 ✓ with some text") {
    throw new Error(`${parser} parsed the small fields wrong`);
  }
}

// deno bench runs a group's members one after another, so the first would
// meet a cold heap and code: warm every parser up before any is timed.
for (let round = 0; round < 2; round++) {
  for (const parser of PARSERS) {
    await parseWith(parser, large);
    await parseWith(parser, small);
  }
}

for (const parser of PARSERS) {
  Deno.bench({
    name: `${parser}: one 50 MB file`,
    group: "multipart 50 MB file",
    baseline: parser === "fetchkit",
    n: 10,
    warmup: 2,
    // Declared async: deno bench awaits only async functions.
    fn: async (b) => await checkLarge(parser, b),
  });
}

for (const parser of PARSERS) {
  Deno.bench({
    name: `${parser}: 1,000 small fields (${
      Math.round(small.length / 1024)
    } KiB)`,
    group: "multipart 1,000 small fields",
    baseline: parser === "fetchkit",
    n: 300,
    warmup: 30,
    fn: async (b) => await checkSmall(parser, b),
  });
}
