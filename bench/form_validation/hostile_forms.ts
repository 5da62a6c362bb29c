/**
 * The cost of the worst forms `parseForm` was shown: 1,000 fields
 * `orders[i].lines[1000].sku` (array holes: before the bound, a million of
 * them, each reported by the schema) and 1,000 field names of 17,000
 * characters (V8 hashes strings longer than 16,383 characters by their
 * length alone, so equal-length names collide in every Map and object).
 *
 * Each case runs in a fresh Deno process (so peak memory is the case's own),
 * parses the form once to warm up and then `runs` times; the process reports
 * CPU time (user + system) per parse and its peak resident memory (VmHWM).
 * Cases are interleaved (A B A B) over `rounds` rounds; medians printed as a
 * Markdown table.
 *
 * Run: deno run --allow-all bench/form_validation/hostile_forms.ts [rounds]
 *
 * @module
 */
import process from "node:process";

const ALL = [
  "holes-zod",
  "holes-valibot",
  "long-names-zod",
  "long-names-valibot",
  "baseline-zod",
] as const;
type Case = typeof ALL[number];
const CASES: readonly Case[] = ALL;

async function child(name: Case): Promise<void> {
  const { parseForm } = await import("@fetchkit/toolkit/form-validation");
  const z = await import("zod");
  const v = await import("valibot");
  let zodSchema, valibotSchema;
  // A fresh form (fresh strings, as each request gives) for every parse:
  // V8 internalizes a string used as a key once, and the next lookup with
  // the same string object skips hashing.
  let makeForm: () => FormData;
  if (name.startsWith("holes") || name.startsWith("baseline")) {
    // 1,000 fields; the hostile form puts each line at index 1000.
    const index = name.startsWith("holes") ? 1000 : 0;
    makeForm = () => {
      const form = new FormData();
      for (let i = 0; i < 1000; i++) {
        form.append(`orders[${i}].lines[${index}].sku`, "A-1");
      }
      return form;
    };
    zodSchema = z.object({
      orders: z.array(
        z.object({ lines: z.array(z.object({ sku: z.string() })) }),
      ),
    });
    valibotSchema = v.object({
      orders: v.array(
        v.object({ lines: v.array(v.object({ sku: v.string() })) }),
      ),
    });
  } else {
    // 1,000 names of 17,000 characters that differ only at their end, so
    // comparing two reads them whole.
    makeForm = () => {
      const form = new FormData();
      for (let i = 0; i < 1000; i++) {
        const suffix = `_${i}`;
        form.append("x".repeat(17_000 - suffix.length) + suffix, "1");
      }
      return form;
    };
    zodSchema = z.object({ email: z.string().optional() });
    valibotSchema = v.object({ email: v.optional(v.string()) });
  }
  const schema = name.endsWith("zod") ? zodSchema : valibotSchema;
  await parseForm(makeForm(), schema); // warm up
  const runs = 3;
  let cpu = 0;
  let success = 0;
  for (let i = 0; i < runs; i++) {
    const form = makeForm();
    const start = process.cpuUsage();
    if ((await parseForm(form, schema)).success) success++;
    const used = process.cpuUsage(start);
    cpu += used.user + used.system;
  }
  const status = await Deno.readTextFile("/proc/self/status");
  const peak = Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
  console.log(JSON.stringify({
    cpuMs: cpu / 1000 / runs,
    peakMiB: peak,
    success: success === runs,
  }));
}

async function measure(
  name: Case,
): Promise<{ cpuMs: number; peakMiB: number; success: boolean }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(import.meta.url).pathname, name],
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`${name} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

if (CASES.includes(Deno.args[0] as Case)) {
  await child(Deno.args[0] as Case);
} else {
  const rounds = Number(Deno.args[0] ?? 3);
  const results = new Map<
    Case,
    { cpu: number[]; peak: number[]; ok: boolean }
  >();
  for (let round = 0; round < rounds; round++) {
    for (const name of CASES) {
      const r = await measure(name);
      const entry = results.get(name) ?? { cpu: [], peak: [], ok: r.success };
      entry.cpu.push(r.cpuMs);
      entry.peak.push(r.peakMiB);
      results.set(name, entry);
    }
  }
  console.log(
    `| form | CPU ms per parse (median of ${rounds}) | spread | peak RSS MiB | success |`,
  );
  console.log("|---|---:|---:|---:|---|");
  for (const [name, { cpu, peak, ok }] of results) {
    console.log(
      `| ${name} | ${median(cpu).toFixed(1)} | ${Math.min(...cpu).toFixed(1)}-${
        Math.max(...cpu).toFixed(1)
      } | ${median(peak).toFixed(0)} | ${ok} |`,
    );
  }
}
