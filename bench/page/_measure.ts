/**
 * Interleaved CPU-time rounds for this folder's in-process benchmarks,
 * portable to Deno, Node and Bun (no `Deno.*`): each contender runs a
 * batch in turn (A B C A B C ...), so that a busy moment on the shared
 * machine falls on all of them alike; CPU time is the process's (user +
 * system, every thread).
 *
 * @module
 */
import process from "node:process";
import { median } from "../_stats.ts";

/** One contender: a name, a batch to time, and what to do before it. */
export interface Contender {
  name: string;
  /** Untimed set-up of a batch (building its Requests), optional. */
  prepare?: () => void | Promise<void>;
  /** The timed batch. */
  run: () => unknown;
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** This process's arguments as `--name=value` pairs. */
export function argsOf(): Map<string, string> {
  const deno = (globalThis as { Deno?: { args: string[] } }).Deno;
  const argv = deno?.args ?? process.argv.slice(2);
  return new Map(
    argv.filter((arg) => arg.startsWith("--")).map((arg) => {
      const [name, value = "true"] = arg.slice(2).split("=");
      return [name, value] as [string, string];
    }),
  );
}

/**
 * CPU µs per item of each contender over `rounds` rounds (`per` items a
 * batch), after `warm` untimed batches each; prints a table of medians
 * and min-max, and ratios to `against` per round (median, min-max).
 */
export async function rounds(
  contenders: readonly Contender[],
  options: {
    rounds: number;
    warm: number;
    per: number;
    against?: string;
    unit?: string;
  },
): Promise<Map<string, number[]>> {
  const samples = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (let i = 0; i < options.warm; i++) {
    for (const contender of contenders) {
      await contender.prepare?.();
      await contender.run();
    }
  }
  for (let round = 0; round < options.rounds; round++) {
    // A different order each round, so none always follows a GC of another.
    const order = round % 2 === 0 ? contenders : contenders.toReversed();
    for (const contender of order) {
      await contender.prepare?.();
      const start = cpuMicros();
      await contender.run();
      samples.get(contender.name)!.push((cpuMicros() - start) / options.per);
    }
  }
  const against = options.against === undefined
    ? undefined
    : samples.get(options.against);
  for (const [name, values] of samples) {
    const ratios = against === undefined
      ? undefined
      : values.map((value, i) => value / against[i]);
    console.log(
      `${name.padEnd(28)} ${median(values).toFixed(3).padStart(9)} ${
        options.unit ?? "µs"
      } (${Math.min(...values).toFixed(3)}-${Math.max(...values).toFixed(3)})${
        ratios === undefined
          ? ""
          : `  ÷ ${options.against}: ${median(ratios).toFixed(2)} (${
            Math.min(...ratios).toFixed(2)
          }-${Math.max(...ratios).toFixed(2)})`
      }`,
    );
  }
  return samples;
}
