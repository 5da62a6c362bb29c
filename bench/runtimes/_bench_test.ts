import assert from "node:assert/strict";
import { dumpEvents } from "../_callgrind.ts";
import { cpuUse, estimatedCycles, levelRule } from "./_bench.ts";

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

Deno.test("estimatedCycles weighs misses and mispredicts a request", () => {
  // A dump's events for two answers.
  const events = {
    Ir: 2000,
    Dr: 600,
    Dw: 300,
    I1mr: 4,
    D1mr: 10,
    D1mw: 6,
    ILmr: 2,
    DLmr: 1,
    DLmw: 1,
    Bc: 300,
    Bcm: 20,
    Bi: 40,
    Bim: 4,
  };
  const estimate = estimatedCycles(events, 2);
  assert.deepEqual(estimate, {
    ir: 1000,
    i1: 2,
    d1: 8,
    ll: 2,
    bcm: 10,
    bim: 2,
    // 1000 + 10 × (2 + 8) + 100 × 2 + 10 × (10 + 2)
    cycles: 1000 + 100 + 200 + 120,
  });
  // Without the simulation a dump has `Ir` only: the estimate is `Ir`.
  assert.equal(estimatedCycles({ Ir: 900 }, 3).cycles, 300);
  assert.deepEqual(
    dumpEvents(
      "events: Ir Bc Bcm\nfn=(1) x\n1 5 2 1\ntotals: 500 40 3\n",
    ),
    { Ir: 500, Bc: 40, Bcm: 3 },
  );
  assert.equal(dumpEvents("events: Ir\n"), undefined);
});
