/**
 * The rounds of a saved `load.ts` sitting (`--save=name`, or the
 * `table_<time>.json` that `instructions.ts --table` leaves in `.out/`),
 * one line per scenario for ours against one peer: the CPU ratio's
 * median, its 95 % interval of the median and reading, the medians of
 * the user, system and main-thread ratios, then each round's CPU ratio
 * beside the difference in how often the two main threads were
 * preempted a request (involuntary context switches: another process
 * took the core), their correlation, and the ratio a straight line
 * through the rounds gives where the two were preempted alike. On a
 * loaded machine a round's ratio follows who was preempted more (a
 * server that loses its core finds more requests waiting when it gets it
 * back, and serves them in fewer, warmer passes), which is noise to the
 * ratio and not the code's.
 *
 * ```sh
 * deno run -A bench/runtimes/rounds.ts <file.json> [ours=fetchkit] [peer=elysia]
 * ```
 *
 * @module
 */
import { median } from "../_stats.ts";
import { levelRule, type SavedRounds } from "./_bench.ts";

const [file, ours = "fetchkit", peer = "elysia"] = Deno.args;
if (file === undefined) {
  throw new Error("usage: rounds.ts <file.json> [ours] [peer]");
}
const saved = JSON.parse(await Deno.readTextFile(file)) as SavedRounds;
const { cpu, preempted, user, system, main } = saved;
if (cpu === undefined) throw new Error(`${file}: no per-round CPU`);
for (const a of Object.keys(cpu).filter((key) => key.endsWith(`|${ours}`))) {
  const b = a.slice(0, a.lastIndexOf("|") + 1) + peer;
  if (cpu[b] === undefined) continue;
  const ratio = cpu[a]!.map((value, round) => value / cpu[b]![round]!);
  // The medians of the per-round ratios of user, system and main-thread
  // CPU, where the sitting saved them.
  const parts = [["user", user], ["system", system], ["main thread", main]]
    .flatMap(([name, map]) => {
      const values = (map as Record<string, number[]> | undefined)?.[a];
      const theirs = (map as Record<string, number[]> | undefined)?.[b];
      return values === undefined || theirs === undefined ? [] : [
        `${name} ${
          median(values.map((value, round) => value / theirs[round]!))
            .toFixed(2)
        }`,
      ];
    });
  const rule = levelRule(ratio);
  const head = `${a.split("|").slice(0, 2).join(" ")}, ${ours} ÷ ${peer}: CPU ${
    median(ratio).toFixed(2)
  } (${rule.low.toFixed(2)}-${rule.high.toFixed(2)}, ${rule.verdict})${
    parts.length === 0 ? "" : `; ${parts.join(", ")}`
  }`;
  if (preempted?.[a] === undefined || preempted[b] === undefined) {
    // Saved before preemptions were: the ratios only.
    console.log(head);
    continue;
  }
  const apart = preempted[a]!.map((value, round) =>
    value - preempted[b]![round]!
  );
  // Least squares of log(ratio) on the difference in preemptions.
  const logs = ratio.map(Math.log);
  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / values.length;
  const mx = mean(apart), my = mean(logs);
  let sxy = 0, sxx = 0, syy = 0;
  apart.forEach((x, round) => {
    sxy += (x - mx) * (logs[round]! - my);
    sxx += (x - mx) ** 2;
    syy += (logs[round]! - my) ** 2;
  });
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r = sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
  console.log(
    `${head}; r = ${
      r.toFixed(2)
    } against the difference in preemptions a request; alike: ${
      Math.exp(my - slope * mx).toFixed(2)
    }; rounds (difference: ratio): ${
      apart.map((x, round) => `${x.toFixed(2)}: ${ratio[round]!.toFixed(2)}`)
        .join(", ")
    }`,
  );
}
