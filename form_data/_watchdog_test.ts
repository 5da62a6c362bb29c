import assert from "node:assert/strict";
import {
  COARSE_MS,
  type Entry,
  TICK_MS,
  unwatch,
  watch,
  watching,
} from "./_watchdog.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("deadlines expire in order on one timer; unwatched ones never do", async () => {
  const fired: string[] = [];
  const late = watch(120, () => fired.push("late"));
  const early = watch(30, () => fired.push("early"));
  const dropped = watch(60, () => fired.push("dropped"));
  const kept = watch(60, () => fired.push("kept"));
  assert.equal(watching(), 4);
  unwatch(dropped);
  await sleep(90);
  assert.deepEqual(fired, ["early", "kept"]);
  await sleep(80);
  assert.deepEqual(fired, ["early", "kept", "late"]);
  assert.equal(watching(), 0);
  unwatch(late); // already expired: nothing happens
  unwatch(early);
  unwatch(kept);
});

Deno.test("a deadline added after a later one is armed for its own time", async () => {
  const fired: string[] = [];
  const long = watch(10_000, () => fired.push("long"));
  const short = watch(20, () => fired.push("short"));
  await sleep(60);
  assert.deepEqual(fired, ["short"]);
  unwatch(long);
  unwatch(short);
  assert.equal(watching(), 0);
});

Deno.test("an expire callback may watch again, and the new deadline fires", async () => {
  const fired: number[] = [];
  let again: ReturnType<typeof watch> | undefined;
  const first = watch(20, () => {
    fired.push(1);
    again = watch(30, () => fired.push(2));
  });
  await sleep(100);
  assert.deepEqual(fired, [1, 2]);
  assert.equal(watching(), 0);
  unwatch(first);
  if (again !== undefined) unwatch(again);
});

Deno.test("a deadline unwatched by an earlier one's expire callback never fires", async () => {
  const fired: string[] = [];
  // All three due at the same tick: the first ends the other two (a read
  // that fails ends its neighbours' reads), the middle one first.
  const first = watch(20, () => {
    fired.push("first");
    unwatch(second);
    unwatch(third);
  });
  // Declared after `first`: its callback runs at the tick, once both exist.
  const second = watch(20, () => fired.push("second"));
  const third = watch(20, () => fired.push("third"));
  const fourth = watch(20, () => fired.push("fourth"));
  assert.equal(watching(), 4);
  await sleep(80);
  assert.deepEqual(fired, ["first", "fourth"]);
  assert.equal(watching(), 0);
  unwatch(first);
  unwatch(fourth);
  unwatch(second); // twice: nothing happens
  assert.equal(watching(), 0);
});

Deno.test("watching() counts each deadline once however often it is unwatched", () => {
  const a = watch(10_000, () => {});
  const b = watch(10_000, () => {});
  unwatch(a);
  unwatch(a);
  assert.equal(watching(), 1);
  unwatch(b);
  assert.equal(watching(), 0);
});

async function runScript(source: string): Promise<{ ms: number; out: string }> {
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, source);
    const start = performance.now();
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return {
      ms: performance.now() - start,
      out: new TextDecoder().decode(output.stdout),
    };
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("a program ends when nothing is watched, and waits for what is", async () => {
  const module = new URL("./_watchdog.ts", import.meta.url).href;
  // Watched and finished: the 60 s timer left armed must not hold the
  // program (a timer per watch would have been cleared; this one is not).
  const idle = await runScript(
    `import { unwatch, watch } from "${module}";
     unwatch(watch(60_000, () => console.log("expired")));
     console.log("done");`,
  );
  assert.equal(idle.out, "done\n");
  assert.ok(idle.ms < 20_000, `took ${idle.ms} ms`);
  // Still watched: the program waits for the deadline.
  const waiting = await runScript(
    `import { watch } from "${module}";
     watch(200, () => console.log("expired"));`,
  );
  assert.equal(waiting.out, "expired\n");
});

Deno.test("a finished read leaves no timer armed past the next tick", async () => {
  // Nothing watched after the first tick: the program's timers are all
  // gone (Deno's sanitizer would fail this test on a timer left armed).
  unwatch(watch(30_000, () => {}));
  assert.equal(watching(), 0);
  await sleep(TICK_MS + 100);
});

Deno.test("a long deadline still expires on time through the ticks", async () => {
  const fired: number[] = [];
  const start = performance.now();
  watch(TICK_MS + 300, () => fired.push(performance.now() - start));
  await sleep(TICK_MS + 500);
  assert.equal(fired.length, 1);
  assert.ok(
    fired[0]! >= TICK_MS + 300 && fired[0]! < TICK_MS + 450,
    `${fired[0]}`,
  );
  assert.equal(watching(), 0);
});

Deno.test("a long deadline watched while the clock is armed is timed by the next tick, never early", async () => {
  const fired: string[] = [];
  // Arms the clock: the next tick is at most TICK_MS away.
  const short = watch(50, () => fired.push("short"));
  const start = performance.now();
  const long = watch(COARSE_MS, () => fired.push("long"));
  assert.ok((long as Entry).deadline < 0, "timed by the tick, not now");
  await sleep(120);
  assert.deepEqual(fired, ["short"]);
  // The tick at 50 ms timed it: due COARSE_MS after that tick at most.
  const due = (long as Entry).deadline;
  assert.ok(due >= start + COARSE_MS, `${due - start}`);
  assert.ok(due <= start + COARSE_MS + TICK_MS, `${due - start}`);
  unwatch(long);
  unwatch(short);
  assert.equal(watching(), 0);
  await sleep(TICK_MS + 100);
});

Deno.test("a long deadline expires late by less than a tick", async () => {
  const fired: number[] = [];
  const keep = watch(30, () => {});
  const start = performance.now();
  watch(COARSE_MS, () => fired.push(performance.now() - start));
  await sleep(COARSE_MS + TICK_MS + 200);
  assert.equal(fired.length, 1);
  assert.ok(
    fired[0]! >= COARSE_MS && fired[0]! < COARSE_MS + TICK_MS + 150,
    `${fired[0]}`,
  );
  unwatch(keep);
  assert.equal(watching(), 0);
  await sleep(TICK_MS + 100);
});
