/**
 * `parseForm` against the same schema called on a hand-built object (the
 * cost of building the object from the form's names), and, end to end from a
 * `Request`, our router with `formData()` and `parseForm` against Hono with
 * `validator('form')` from `@hono/standard-validator`. Contenders run in
 * interleaved rounds (A B A B, order rotated each round) in one process and
 * are timed in process CPU time (user + system), which does not count the
 * time the process waits for a core on a shared machine; prints medians as
 * Markdown tables for BENCHMARKS.md.
 *
 * Run: deno run --allow-all bench/form_validation/report.ts [rounds]
 *
 * `parseForm` runs on 4000 distinct forms parsed by `parseFormData` before
 * timing (fresh strings, as requests give), the bare schema on 4000 copies of
 * the hand-built object. Requests carry `Content-Length`, as browsers send it
 * for a form.
 *
 * Hono's form validator does not nest: its object for the nested form has
 * flat keys ("items[0].qty"), so Hono gets a schema over those keys with the
 * same 30 rules.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  formData,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";
import {
  parseForm,
  type StandardSchemaV1,
} from "@fetchkit/toolkit/form-validation";
import { median, quantile } from "../_stats.ts";
import { FORM_CASES, toBody } from "./_fixtures.ts";

const rounds = Number(Deno.args[0] ?? 15);
const POOL = 4000;

/** One call; `i` is the call's number in its round, to pick its input. */
type Run = (i: number) => unknown;

/** One contender's µs per call: median and quartiles over the rounds. */
interface Timing {
  median: number;
  low: number;
  high: number;
}

function summary(values: number[]): Timing {
  return {
    median: median(values),
    low: quantile(values, 0.25),
    high: quantile(values, 0.75),
  };
}

/** Process CPU time (user + system) in µs: what the work cost, whatever else
 * the machine runs (wall time counts the time this process waited). */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * µs of CPU per call over interleaved rounds, and the median of each round's
 * ratio to the first contender (paired: both ran within the same round).
 */
async function race(
  contenders: Run[],
  iterations: number,
): Promise<{ timings: Timing[]; ratios: Timing[] }> {
  for (const run of contenders) {
    for (let i = 0; i < iterations; i++) await run(i);
  }
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (k + round) % contenders.length;
      const run = contenders[index];
      const start = cpuNow();
      for (let i = 0; i < iterations; i++) await run(i);
      times[index].push((cpuNow() - start) / iterations);
    }
  }
  return {
    timings: times.map(summary),
    ratios: times.map((t) => summary(t.map((value, i) => value / times[0][i]))),
  };
}

const us = (value: number) =>
  value < 10 ? `${value.toFixed(2)} µs` : `${value.toFixed(1)} µs`;
const spread = (r: { low: number; high: number }) =>
  `${r.low.toFixed(2)}–${r.high.toFixed(2)}`;

function validateSync(schema: StandardSchemaV1, value: unknown): unknown {
  const result = schema["~standard"].validate(value);
  if (result instanceof Promise) throw new Error("an async schema");
  if (result.issues) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

console.log(
  `Deno ${Deno.version.deno}, ${rounds} interleaved rounds, median µs of process CPU time per call (quartiles)\n`,
);

console.log("Building the object: `parseForm` against the schema alone\n");
console.log(
  "| form | library | schema on a hand-built object | `parseForm` on `FormData` | overhead |",
);
console.log("| --- | --- | ---: | ---: | ---: |");
for (const testCase of FORM_CASES) {
  // Distinct inputs, made before timing: forms as the server parses them
  // (fresh strings, as each request gives) and copies of the object.
  const body = toBody(testCase.entries);
  const forms: FormData[] = [];
  const objects: unknown[] = [];
  for (let i = 0; i < POOL; i++) {
    forms.push(
      await parseFormData(
        new Request("http://localhost/", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
        }),
      ),
    );
    objects.push(structuredClone(testCase.object));
  }
  for (const lib of ["zod", "valibot"] as const) {
    const schema = testCase[lib];
    // Both must give the same value, or the comparison means nothing.
    const direct = validateSync(schema, testCase.object);
    const parsed = await parseForm(forms[0], schema);
    assert.ok(parsed.success, JSON.stringify(parsed));
    assert.deepEqual(
      JSON.parse(JSON.stringify(parsed.value)),
      JSON.parse(JSON.stringify(direct)),
    );
    const { timings: [alone, ours] } = await race([
      (i) => schema["~standard"].validate(objects[i]),
      (i) => parseForm(forms[i], schema),
    ], POOL);
    console.log(
      `| ${testCase.name} | ${lib} | ${us(alone.median)} (${spread(alone)}) | ${
        us(ours.median)
      } (${spread(ours)}) | ${us(ours.median - alone.median)} |`,
    );
  }
}

console.log(
  "\nEnd to end, urlencoded `Request` to handler, zod schema\n",
);
console.log(
  "| form | fetchkit: `formData()` + `parseForm` | Hono: `sValidator('form')` | Hono / ours, paired by round |",
);
console.log("| --- | ---: | ---: | ---: |");
for (const testCase of FORM_CASES) {
  const body = toBody(testCase.entries);
  const schema = testCase.zod;
  const router = createRouter({ middleware: [formData()] });
  router.post("/", async (context) => {
    const result = await parseForm(context.get(FormData), schema);
    return result.success
      ? new Response("ok")
      : Response.json(result.fieldErrors, { status: 422 });
  });
  const hono = new Hono();
  hono.post(
    "/",
    sValidator("form", testCase.zodFlatKeys),
    (context) => context.text("ok"),
  );
  const request = () =>
    new Request("http://localhost/", {
      method: "POST",
      // As browsers send it: with its length.
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(body.length),
      },
      body,
    });
  for (const app of [router, hono]) {
    const response = await app.fetch(request());
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(await response.text(), "ok");
  }
  const { timings: [ours, theirs], ratios: [, ratio] } = await race([
    async () => await (await router.fetch(request())).text(),
    async () => await (await hono.fetch(request())).text(),
  ], 3000);
  console.log(
    `| ${testCase.name} | ${us(ours.median)} (${spread(ours)}) | ${
      us(theirs.median)
    } (${spread(theirs)}) | ${ratio.median.toFixed(2)} (${spread(ratio)}) |`,
  );
}
