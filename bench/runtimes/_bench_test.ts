import assert from "node:assert/strict";
import { cpuUse, levelRule } from "./_bench.ts";

Deno.test("levelRule reads the 95 % interval of the median of the rounds", () => {
  // 9 rounds: the 2nd and 8th smallest (96 %).
  const nine = [0.98, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.2];
  assert.deepEqual(levelRule(nine), {
    low: 1.01,
    high: 1.07,
    coverage: 1 - 2 * 10 / 512,
    verdict: "above",
  });
  // One round below 1.00 inside the interval: level.
  const level = [0.9, 0.95, 0.99, 1.0, 1.02, 1.03, 1.05, 1.1, 1.3];
  assert.deepEqual(levelRule(level).verdict, "level");
  assert.deepEqual(
    levelRule(nine.map((ratio) => 2 - ratio)).verdict,
    "below",
  );
  // 12 rounds: the 3rd and 10th (96 %).
  const twelve = Array.from({ length: 12 }, (_, round) => 1 + round / 100);
  const rule = levelRule(twelve);
  assert.deepEqual([rule.low, rule.high], [1.02, 1.09]);
  // 6 rounds: the minimum and maximum (97 %); 5 rounds decide nothing.
  assert.deepEqual(levelRule([1.1, 1.2, 1.3, 1.4, 1.5, 1.6]).verdict, "above");
  assert.deepEqual(
    levelRule([1.1, 1.2, 1.3, 1.4, 1.5]).verdict,
    "too few rounds",
  );
});

Deno.test("cpuUse reads this process's CPU, faults and context switches", async () => {
  const before = await cpuUse(Deno.pid);
  // Some work and some fresh memory, then a wait.
  let sum = 0;
  const arrays: Uint8Array[] = [];
  const until = performance.now() + 50;
  while (performance.now() < until) {
    sum += Math.sqrt(sum + 1);
    arrays.push(new Uint8Array(64 * 1024).fill(1));
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  const after = await cpuUse(Deno.pid);
  assert(sum > 0 && arrays.length > 0);
  assert(after.user + after.system > before.user + before.system);
  assert(after.mainUser + after.mainSystem <= after.user + after.system);
  assert(after.faults > before.faults);
  assert(Number.isInteger(after.preempted) && after.preempted >= 0);
  // A process asleep has waited: its main thread's voluntary switches.
  const sleeper = new Deno.Command("sleep", { args: ["1"] }).spawn();
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asleep = await cpuUse(sleeper.pid);
    assert(asleep.wakeups >= 1);
  } finally {
    sleeper.kill();
    await sleeper.status;
  }
});
