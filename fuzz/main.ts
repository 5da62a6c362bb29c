// `deno task fuzz`: the fuzz targets for tens of thousands of cases each,
// bounded in time. `FUZZ_SEED` replays a run (or a failing case alone),
// `FUZZ_CASES` and `FUZZ_SECONDS` size it, `FUZZ_TARGET` picks one target.

import { describeFailures, runSeed, runTarget } from "./_run.ts";
import { targets } from "./_targets.ts";

const seed = runSeed();
const cases = Number(Deno.env.get("FUZZ_CASES") ?? 20_000);
const seconds = Number(Deno.env.get("FUZZ_SECONDS") ?? 120);
const only = Deno.env.get("FUZZ_TARGET");
const chosen = targets.filter((t) => !only || t.name === only);
console.log(
  `fuzz: seed ${seed}, up to ${cases} cases and ${seconds} s per target`,
);
let failed = 0;
for (const target of chosen) {
  const result = await runTarget(target, {
    seed,
    cases: Deno.env.get("FUZZ_SEED") && only ? Math.min(cases, cases) : cases,
    deadline: Date.now() + seconds * 1000,
  });
  console.log(
    `${result.name}: ${result.cases} cases, ${result.failures.length} failures, ${
      (result.ms / 1000).toFixed(1)
    } s`,
  );
  if (result.failures.length > 0) console.log(describeFailures(result));
  failed += result.failures.length;
}
if (failed > 0) Deno.exit(1);
