/**
 * Counting instructions of a process running under
 * `valgrind --tool=callgrind --instr-atstart=no`: counting switched on
 * only around the work measured, then the dump's total read.
 *
 * @module
 */

// `CALLGRIND_KEEP=1`: the dumps stay, for `callgrind_annotate` (where a
// window's instructions went, function by function).
const keepDumps = Deno.env.get("CALLGRIND_KEEP") === "1";

/** Runs `callgrind_control <flags> <pid>`; throws when it fails. */
export async function callgrindControl(
  pid: number,
  ...flags: string[]
): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...flags, String(pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${flags.join(" ")} failed`);
}

/**
 * Every event of a callgrind dump's `totals:` line by its name on the
 * `events:` line (`Ir`, and with `--cache-sim=yes --branch-sim=yes` also
 * `Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim`), or undefined when
 * the dump is not whole yet.
 */
export function dumpEvents(text: string): Record<string, number> | undefined {
  const totals = /^totals: ([\d ]+)$/m.exec(text);
  if (totals === null) return undefined;
  const names = /^events: (.+)$/m.exec(text)?.[1].trim().split(/\s+/) ??
    ["Ir"];
  const values = totals[1].trim().split(/\s+/).map(Number);
  const events: Record<string, number> = {};
  names.forEach((name, index) => events[name] = values[index] ?? 0);
  return events;
}

/**
 * The events of the dump at `file`, once callgrind has written it (up to
 * 60 s); the dump is removed after reading.
 */
async function readDump(file: string): Promise<Record<string, number>> {
  for (let tries = 0; tries < 600; tries++) {
    try {
      const events = dumpEvents(await Deno.readTextFile(file));
      if (events !== undefined) {
        if (!keepDumps) await Deno.remove(file).catch(() => {});
        return events;
      }
    } catch (error) {
      // Not written yet.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

/**
 * The `totals:` of the dump at `file` (its first event, instructions),
 * once callgrind has written it (up to 60 s); the dump is removed after
 * reading.
 */
export async function dumpTotal(file: string): Promise<number> {
  const events = await readDump(file);
  return Object.values(events)[0]!;
}

/**
 * Instructions of process `pid` while `work` runs (counters zeroed, counting
 * on, `work`, counting off, dumped to `dump`), what `work` gave, and the
 * seconds counting was on. With `thread` (under `--separate-threads=yes`)
 * the total is that thread's; `everyThread` then also gives the sum over
 * every thread's dump (`all`). `events` is every event of the dump (of
 * `thread`'s, with `thread`): under `--cache-sim=yes --branch-sim=yes` the
 * simulated cache misses and mispredicted branches beside `Ir`.
 */
export async function countWhile<T>(
  pid: number,
  dump: string,
  work: () => Promise<T>,
  options: { thread?: number; everyThread?: boolean } = {},
): Promise<
  {
    total: number;
    result: T;
    seconds: number;
    all?: number;
    events: Record<string, number>;
  }
> {
  await callgrindControl(pid, "--zero");
  const begun = performance.now();
  await callgrindControl(pid, "--instr=on");
  const result = await work();
  await callgrindControl(pid, "--instr=off");
  // How long counting was on (at most: both control calls included).
  const seconds = (performance.now() - begun) / 1000;
  await callgrindControl(pid, "--dump");
  if (options.thread === undefined) {
    const events = await readDump(dump);
    return { total: Object.values(events)[0]!, result, seconds, events };
  }
  // Under `--separate-threads=yes` each thread's dump is a file of its
  // own, `<dump>-01` for the first (the one running JavaScript and, on
  // Deno, Node and Bun, the server's event loop); the others are removed.
  const events = await readDump(
    `${dump}-${String(options.thread).padStart(2, "0")}`,
  );
  const total = Object.values(events)[0]!;
  const slash = dump.lastIndexOf("/");
  const dir = dump.slice(0, slash), name = dump.slice(slash + 1);
  let all: number | undefined;
  if (options.everyThread) {
    // Every other thread's dump (callgrind writes them one after another
    // at the same `--dump`: wait a moment, and for each to be whole),
    // read before they are removed below.
    await new Promise((resolve) => setTimeout(resolve, 300));
    all = total;
    for await (const entry of Deno.readDir(dir)) {
      if (
        entry.name.startsWith(name + "-") &&
        entry.name !== `${name}-${String(options.thread).padStart(2, "0")}`
      ) {
        for (let tries = 0; tries < 100; tries++) {
          const found = /^totals: (\d+)/m.exec(
            await Deno.readTextFile(`${dir}/${entry.name}`),
          );
          if (found !== null) {
            all += Number(found[1]);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }
  }
  for await (const entry of Deno.readDir(dir)) {
    if (!keepDumps && entry.name.startsWith(name + "-")) {
      await Deno.remove(`${dir}/${entry.name}`).catch(() => {});
    }
  }
  return {
    total,
    result,
    seconds,
    events,
    ...(all === undefined ? {} : { all }),
  };
}
