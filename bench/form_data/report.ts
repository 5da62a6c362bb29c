// Repeated, interleaved multipart parser runs: medians, MiB/s, ratios to
// @fetchkit/toolkit and peak memory, printed as the Markdown table kept in
// BENCHMARKS.md.
//
//   deno run --allow-all --v8-flags=--expose-gc bench/form_data/report.ts [rounds] [--byte-stream]
//
// `--byte-stream` feeds every parser byte streams that copy each chunk, as
// `Deno.serve` gives a request body (see `byteStreamOption`); without it the
// chunks are views of the body, with no copies.
//
// Each round runs every parser once on each body, in a rotating order, after
// a full GC, so that no parser always runs first on a cold heap (on this
// 2-core machine that alone moves a 50 MB run by 2x). Peak memory is measured
// in a fresh process per parser: VmHWM (peak RSS) reset right before the
// parse, minus RSS at that moment.

import { median } from "../_stats.ts";
import {
  byteStreamOption,
  CONTENT_TYPE,
  largeFileBody,
  type ParserName,
  PARSERS,
  parseWith,
  smallFieldsBody,
  streamOf,
} from "./_fixtures.ts";
import { parseFormData } from "@fetchkit/toolkit/form-data-middleware";
import busboyModule from "busboy";

const MiB = 1024 * 1024;
const LARGE_SIZE = 50 * MiB;
const SMALL_BATCH = 20;
const gc = (globalThis as { gc?: () => void }).gc;

type Variant = ParserName | "fetchkit-stream" | "busboy-stream";

/** Streaming variants: each file's bytes are read and dropped, not kept. */
async function runVariant(variant: Variant, body: Uint8Array): Promise<void> {
  if (variant === "fetchkit-stream") {
    await parseFormData(
      new Request("http://localhost/", {
        method: "POST",
        headers: { "content-type": CONTENT_TYPE },
        body: streamOf(body),
      }),
      {
        maxFileSize: Infinity,
        maxTotalSize: Infinity,
        maxFields: Infinity,
        uploadHandler: async (upload) => {
          for await (const _ of upload);
          return null;
        },
      },
    );
  } else if (variant === "busboy-stream") {
    await busboyDiscard(body);
  } else {
    await parseWith(variant, body);
  }
}

function busboyDiscard(body: Uint8Array): Promise<void> {
  // deno-lint-ignore no-explicit-any -- busboy ships no types
  const parser = (busboyModule as any)({
    headers: { "content-type": CONTENT_TYPE },
    limits: { fieldSize: Infinity },
    // As in the in-memory variant and ours: part names read as UTF-8
    // (busboy's default, latin1, takes about 60% of the time on 1,000 fields).
    defParamCharset: "utf8",
  });
  const form = new FormData();
  const done = new Promise<void>((resolve, reject) => {
    // deno-lint-ignore no-explicit-any
    parser.on("file", (_name: string, stream: any) => stream.resume());
    // Fields are kept, as in every other variant; only file bytes are dropped.
    parser.on(
      "field",
      (name: string, value: string) => form.append(name, value),
    );
    parser.on("close", resolve);
    parser.on("error", reject);
  });
  return (async () => {
    for await (const chunk of streamOf(body)) parser.write(chunk);
    parser.end();
    await done;
  })();
}

function readStatus(): { rss: number; hwm: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kib = (key: string) =>
    Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kib("VmRSS") * 1024, hwm: kib("VmHWM") * 1024 };
}

/** Child mode: one parse of the 50 MB body; prints the peak RSS increase. */
async function measureMemory(variant: Variant): Promise<void> {
  const body = largeFileBody(LARGE_SIZE);
  await runVariant(variant, smallFieldsBody(10)); // load the code paths
  gc?.();
  Deno.writeTextFileSync("/proc/self/clear_refs", "5"); // reset VmHWM
  const before = readStatus().rss;
  await runVariant(variant, body);
  console.log(JSON.stringify({ peak: readStatus().hwm - before }));
}

async function peakMemory(variant: Variant): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--v8-flags=--expose-gc",
        new URL(import.meta.url).pathname,
        "--memory",
        variant,
        ...streams.childArgs,
      ],
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`memory run of ${variant} failed`);
    runs.push(JSON.parse(new TextDecoder().decode(output.stdout)).peak);
  }
  return median(runs);
}

async function main(rounds: number): Promise<void> {
  if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
  const large = largeFileBody(LARGE_SIZE);
  const small = smallFieldsBody(1000);
  const variants: Variant[] = [...PARSERS, "fetchkit-stream", "busboy-stream"];
  const largeTimes = new Map<Variant, number[]>(variants.map((v) => [v, []]));
  const smallTimes = new Map<Variant, number[]>(variants.map((v) => [v, []]));
  // One untimed round loads and compiles every code path.
  for (const variant of variants) {
    await runVariant(variant, large);
    await runVariant(variant, small);
  }
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(i + round) % variants.length];
      gc();
      let start = performance.now();
      await runVariant(variant, large);
      largeTimes.get(variant)!.push(performance.now() - start);
      gc();
      start = performance.now();
      for (let j = 0; j < SMALL_BATCH; j++) await runVariant(variant, small);
      smallTimes.get(variant)!.push((performance.now() - start) / SMALL_BATCH);
    }
    console.error(`round ${round + 1}/${rounds} done`);
  }
  const memory = new Map<Variant, number>();
  for (const variant of variants) {
    memory.set(variant, await peakMemory(variant));
  }

  const ours = {
    large: median(largeTimes.get("fetchkit")!),
    small: median(smallTimes.get("fetchkit")!),
  };
  const labels: Record<Variant, string> = {
    fetchkit: "@fetchkit/toolkit `parseFormData`",
    native: "Deno `Request.formData()`",
    remix: "`@remix-run/multipart-parser` 0.16.3",
    busboy: "`busboy` 1.6.0",
    "fetchkit-stream":
      "@fetchkit/toolkit, `uploadHandler` reading and dropping bytes",
    "busboy-stream": "`busboy`, file streams resumed and dropped",
  };
  console.log(
    `| parser | 50 MiB file: median ms | MiB/s | time vs fetchkit | peak RSS increase | 1,000 fields (${
      (small.length / 1024).toFixed(0)
    } KiB): median ms | MiB/s | time vs fetchkit |`,
  );
  console.log("|---|--:|--:|--:|--:|--:|--:|--:|");
  for (const variant of variants) {
    const large = median(largeTimes.get(variant)!);
    const smallMs = median(smallTimes.get(variant)!);
    console.log(
      `| ${labels[variant]} | ${large.toFixed(1)} | ${
        (LARGE_SIZE / MiB / (large / 1000)).toFixed(0)
      } | ${(large / ours.large).toFixed(2)}x | ${
        (memory.get(variant)! / MiB).toFixed(1)
      } MiB | ${smallMs.toFixed(2)} | ${
        (small.length / MiB / (smallMs / 1000)).toFixed(0)
      } | ${(smallMs / ours.small).toFixed(2)}x |`,
    );
  }
  console.log(
    `\n${rounds} rounds; all times are medians; ${streams.description}. Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores.`,
  );
}

const streams = byteStreamOption(Deno.args);
const args = streams.rest;
if (args[0] === "--memory") {
  await measureMemory(args[1] as Variant);
} else {
  await main(Number(args[0] ?? 9));
}
