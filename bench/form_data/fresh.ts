// The 50 MiB in-memory multipart parse as a new user meets it: each run in
// a fresh process (fresh heap, no pages touched yet), parsers interleaved
// (A B C D, then rotated), so the spread across processes shows, not just
// the warmed rounds of report.ts.
//
//   flock /tmp/fetchkit-bench.lock \
//     deno run --allow-all bench/form_data/fresh.ts [processes per parser=7] [--byte-stream]
//
// `--byte-stream`: byte streams that copy each chunk, as `Deno.serve` gives
// a request body (see `byteStreamOption` in _fixtures.ts).
//
// In each process: build the body, parse a tiny body once (loads the code),
// then time one parse of the 50 MiB body with the file kept in memory, and
// check the file came out whole.

import { median } from "../_stats.ts";
import {
  byteStreamOption,
  largeFileBody,
  type ParserName,
  PARSERS,
  parseWith,
  smallFieldsBody,
} from "./_fixtures.ts";

const MiB = 1024 * 1024;
const SIZE = 50 * MiB;

async function child(parser: ParserName): Promise<void> {
  const body = largeFileBody(SIZE);
  await parseWith(parser, smallFieldsBody(10));
  const start = performance.now();
  const form = await parseWith(parser, body);
  const ms = performance.now() - start;
  const file = [...form.values()].find((value) => value instanceof File);
  if (!(file instanceof File) || file.size < SIZE - MiB) {
    throw new Error(`${parser}: no whole file (${(file as File)?.size})`);
  }
  console.log(JSON.stringify({ ms }));
}

async function main(processes: number): Promise<void> {
  const times = new Map<ParserName, number[]>(PARSERS.map((p) => [p, []]));
  for (let run = 0; run < processes; run++) {
    for (let i = 0; i < PARSERS.length; i++) {
      const parser = PARSERS[(i + run) % PARSERS.length];
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          new URL(import.meta.url).pathname,
          "--child",
          parser,
          ...streams.childArgs,
        ],
        stderr: "inherit",
      }).output();
      if (!output.success) throw new Error(`${parser} run failed`);
      times.get(parser)!.push(
        JSON.parse(new TextDecoder().decode(output.stdout)).ms,
      );
    }
  }
  const ours = median(times.get("fetchkit")!);
  console.log(
    "| parser | median ms | min ms | max ms | median vs fetchkit |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const parser of PARSERS) {
    const values = times.get(parser)!;
    console.log(
      `| ${parser} | ${median(values).toFixed(0)} | ${
        Math.min(...values).toFixed(0)
      } | ${Math.max(...values).toFixed(0)} | ${
        (median(values) / ours).toFixed(2)
      }x |`,
    );
  }
  console.log(
    `\n${processes} fresh processes per parser, interleaved; one 50 MiB parse each, file kept in memory; ${streams.description}. Deno ${Deno.version.deno}.`,
  );
}

const streams = byteStreamOption(Deno.args);
const args = streams.rest;
if (args[0] === "--child") {
  await child(args[1] as ParserName);
} else {
  await main(Number(args[0] ?? 7));
}
