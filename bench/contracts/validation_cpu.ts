/**
 * CPU time per request of validation through a contract against the same
 * checks by hand (and no validation, for scale), in interleaved batches
 * (A B C A B C ...) so a busy moment on a shared machine falls on all of
 * them alike; medians of the rounds, and the ratio contract / by hand.
 *
 * ```sh
 * deno run --allow-all bench/contracts/validation_cpu.ts [rounds=21]
 * ```
 *
 * @module
 */
import { measureCpu } from "../_cpu_interleaved.ts";
import { median } from "../_stats.ts";
import {
  byHand,
  contract,
  LARGE,
  send,
  SMALL,
  unchecked,
} from "./_validation_apps.ts";

const rounds = Number(Deno.args[0] ?? 21);
console.log(
  `Deno ${Deno.version.deno}, ${rounds} interleaved rounds, CPU µs per request (median)\n`,
);
console.log(
  "| body | by hand | contract | contract / by hand | no validation |",
);
console.log("|---|---|---|---|---|");
for (
  const [size, body, batch] of [["1 KB", SMALL, 400], [
    "100 KB",
    LARGE,
    20,
  ]] as const
) {
  const samples = await measureCpu([
    { name: "hand", run: () => send(byHand, body) },
    { name: "contract", run: () => send(contract, body) },
    { name: "none", run: () => send(unchecked, body) },
  ], { rounds, batch });
  const m = (name: string) => median(samples.get(name)!);
  const ratios = samples.get("contract")!.map((c, i) =>
    c / samples.get("hand")![i]
  );
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `| ${size} | ${m("hand").toFixed(1)} | ${m("contract").toFixed(1)} | ${
      median(ratios).toFixed(2)
    } (rounds ${sorted[Math.floor(rounds / 4)].toFixed(2)}–${
      sorted[Math.floor((3 * rounds) / 4)].toFixed(2)
    }, interquartile) | ${m("none").toFixed(1)} |`,
  );
}
