// The fuzz targets at a few thousand cases each, from fixed seeds so the
// suite is reproducible; `deno task fuzz` runs them longer from random ones.
import assert from "node:assert/strict";
import { describeFailures, runTarget } from "./_run.ts";
import { targets } from "./_targets.ts";

const CASES: Record<string, number> = { multipart: 1500, urlencoded: 3000 };

for (const target of targets) {
  Deno.test(`fuzz: ${target.name} holds its properties`, async () => {
    const result = await runTarget(target, {
      seed: 20261123,
      cases: CASES[target.name] ?? 2000,
    });
    assert.equal(result.failures.length, 0, describeFailures(result));
    assert.equal(result.cases, CASES[target.name] ?? 2000);
  });
}
