/**
 * `parseForm` under `deno bench`: against the same schema on a hand-built
 * object, and end to end against Hono's `sValidator('form')`. The figures in
 * BENCHMARKS.md come from bench/form_validation/report.ts, which interleaves
 * the contenders; this file is for `deno task bench` and quick comparisons.
 *
 * Run: `deno bench --allow-all bench/form_validation/form_validation_bench.ts`
 *
 * @module
 */
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { parseForm } from "@fetchkit/toolkit/form-validation";
import { FORM_CASES, toBody, toFormData } from "./_fixtures.ts";

for (const testCase of FORM_CASES) {
  const form = toFormData(testCase.entries);
  for (const lib of ["zod", "valibot"] as const) {
    const schema = testCase[lib];
    const group = `${testCase.name}, ${lib}`;
    Deno.bench({
      name: "schema on a hand-built object",
      group,
      baseline: true,
      fn: () => {
        schema["~standard"].validate(testCase.object);
      },
    });
    Deno.bench({
      name: "parseForm on FormData",
      group,
      fn: async () => {
        await parseForm(form, schema);
      },
    });
  }

  const body = toBody(testCase.entries);
  const request = () =>
    new Request("http://localhost/", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(body.length),
      },
      body,
    });
  const router = createRouter({ middleware: [formData()] });
  router.post("/", async (context) => {
    const result = await parseForm(context.get(FormData), testCase.zod);
    return new Response(result.success ? "ok" : "invalid");
  });
  const hono = new Hono();
  hono.post(
    "/",
    sValidator("form", testCase.zodFlatKeys),
    (context) => context.text("ok"),
  );
  const group = `${testCase.name}, end to end`;
  Deno.bench({
    name: "Hono sValidator('form')",
    group,
    baseline: true,
    fn: async () => {
      await (await hono.fetch(request())).text();
    },
  });
  Deno.bench({
    name: "fetchkit formData() + parseForm",
    group,
    fn: async () => {
      await (await router.fetch(request())).text();
    },
  });
}
