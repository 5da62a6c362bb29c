// Runs fuzz targets: each case gets its own seed (the run's seed plus its
// index), so a failing case is replayed alone with `FUZZ_SEED=<seed>`.

import { Rng } from "./_prng.ts";

/** One property, checked on the case a seed generates. */
export interface Target {
  name: string;
  /** Throws (or rejects) when the property does not hold. */
  check(rng: Rng, seed: number): Promise<void>;
}

/** The outcome of {@linkcode runTarget}. */
export interface RunResult {
  name: string;
  cases: number;
  failures: { seed: number; error: unknown }[];
  ms: number;
}

/** Longest one case may take before it counts as a hang. */
export const HANG_MS = 10_000;

/** Runs `cases` cases from `seed` (or until `deadline`, epoch ms). */
export async function runTarget(
  target: Target,
  options: { seed: number; cases: number; deadline?: number },
): Promise<RunResult> {
  const start = performance.now();
  const failures: RunResult["failures"] = [];
  let cases = 0;
  for (let i = 0; i < options.cases; i++) {
    if (options.deadline !== undefined && Date.now() > options.deadline) break;
    const seed = (options.seed + i) >>> 0;
    cases++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        target.check(new Rng(seed), seed),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`hang: no result after ${HANG_MS} ms`)),
            HANG_MS,
          );
        }),
      ]);
    } catch (error) {
      failures.push({ seed, error });
      if (failures.length >= 5) break;
    } finally {
      clearTimeout(timer);
    }
  }
  return { name: target.name, cases, failures, ms: performance.now() - start };
}

/** The run's seed: `FUZZ_SEED` when set, else a random one. */
export function runSeed(): number {
  const given = Deno.env.get("FUZZ_SEED");
  if (given !== undefined && given !== "") return Number(given) >>> 0;
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/** One line per failure, with the command that replays it. */
export function describeFailures(result: RunResult): string {
  return result.failures.map(({ seed, error }) =>
    `${result.name}: FUZZ_SEED=${seed} FUZZ_TARGET=${result.name} ` +
    `deno task fuzz  # ${
      error instanceof Error ? error.stack ?? error.message : String(error)
    }`
  ).join("\n");
}
