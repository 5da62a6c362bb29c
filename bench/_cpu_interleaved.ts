/**
 * CPU time per call of several contenders, measured in batches that take
 * turns (A B C A B C ...), so that a busy moment on a shared machine falls
 * on all of them alike. CPU time is the process's (user + system, every
 * thread: work moved off the main thread still counts).
 *
 * @module
 */
import process from "node:process";

/** One contender: a name and an async call. */
export interface Contender {
  name: string;
  run: () => Promise<unknown>;
}

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/**
 * CPU µs per call of each contender, one value per round; `batch` calls a
 * batch, after `warm` untimed calls each.
 */
export async function measureCpu(
  contenders: readonly Contender[],
  options: { rounds: number; batch: number; warm?: number },
): Promise<Map<string, number[]>> {
  const samples = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (const contender of contenders) {
    for (let i = 0; i < (options.warm ?? 50); i++) await contender.run();
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of contenders) {
      const start = cpuMicros();
      for (let i = 0; i < options.batch; i++) await contender.run();
      samples.get(contender.name)!.push(
        (cpuMicros() - start) / options.batch,
      );
    }
  }
  return samples;
}
