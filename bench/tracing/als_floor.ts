/**
 * The floor under `contextStorage()`: what `AsyncLocalStorage.run` costs
 * by itself on this runtime (process CPU time per call), sync and around
 * an awaited promise, against a plain call and a plain await.
 *
 * Run: deno run --allow-all bench/tracing/als_floor.ts
 * (or `bun bench/tracing/als_floor.ts`: it uses no Deno API)
 */
import { AsyncLocalStorage } from "node:async_hooks";
import process from "node:process";

const storage = new AsyncLocalStorage<object>();
const store = {};
const one = () => 1;
const ready = () => Promise.resolve(1);

function cpuNs(run: () => void, calls: number): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
}

async function asyncCpuNs(
  fn: () => Promise<unknown>,
  calls: number,
): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
}

for (let round = 1; round <= 3; round++) {
  const n = 2_000_000;
  const call = cpuNs(() => {
    for (let i = 0; i < n; i++) one();
  }, n);
  const run = cpuNs(() => {
    for (let i = 0; i < n; i++) storage.run(store, one);
  }, n);
  // The alternative to run(): set the store for the rest of this turn and
  // what it schedules. Not usable by contextStorage(): it is not undone on
  // return, so a nested router.fetch would leave its context to the caller.
  const enterWith = cpuNs(() => {
    for (let i = 0; i < n; i++) {
      storage.enterWith(store);
      one();
    }
  }, n);
  const awaited = await asyncCpuNs(ready, 300_000);
  const awaitedRun = await asyncCpuNs(() => storage.run(store, ready), 300_000);
  console.log(
    `round ${round}: call ${call.toFixed(1)} ns, run ${run.toFixed(1)} ns, ` +
      `enterWith ${enterWith.toFixed(1)} ns, ` +
      `await ${awaited.toFixed(1)} ns, await run ${awaitedRun.toFixed(1)} ns`,
  );
}
