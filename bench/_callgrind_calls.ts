/**
 * Instructions per call, counted by valgrind's callgrind: a count does not
 * depend on what else the machine is doing (see `http_instructions.ts`).
 *
 * A benchmark script calls {@linkcode countCalls} with its contenders. Run
 * plainly, it starts itself once per contender under callgrind (counting
 * off), with `--child <name>`; the child warms the contender up, then
 * counts two windows, of `calls` and of `2 * calls` calls, switching
 * counting on and off with `callgrind_control` on its own pid. The
 * difference of the two counts divided by `calls` is the cost of a call,
 * with the switching's own cost (the same in both windows) taken out.
 *
 * Needs `valgrind` (Debian package).
 *
 * @module
 */

/** Contenders by name: each an async call. */
export type Calls = Record<string, () => Promise<unknown>>;

async function control(...args: string[]): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...args, String(Deno.pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${args.join(" ")} failed`);
}

async function child(
  call: () => Promise<unknown>,
  warm: number,
  calls: number,
): Promise<void> {
  for (let i = 0; i < warm; i++) await call();
  for (const n of [calls, 2 * calls]) {
    await control("--zero");
    await control("--instr=on");
    for (let i = 0; i < n; i++) await call();
    await control("--instr=off");
    await control("--dump");
  }
}

async function total(file: string): Promise<number> {
  for (let tries = 0; tries < 600; tries++) {
    try {
      const text = await Deno.readTextFile(file);
      const found = /^totals: (\d+)/m.exec(text);
      if (found !== null) return Number(found[1]);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

/**
 * In the parent: instructions per call of each contender, in order. In a
 * child (`--child <name>`): counts that contender and returns `undefined`.
 */
export async function countCalls(
  script: string | URL,
  contenders: Calls,
  options: { warm: number; calls: number },
): Promise<Map<string, number> | undefined> {
  const at = Deno.args.indexOf("--child");
  if (at !== -1) {
    await child(contenders[Deno.args[at + 1]], options.warm, options.calls);
    return undefined;
  }
  const dir = await Deno.makeTempDir({ prefix: "callgrind-calls-" });
  const counts = new Map<string, number>();
  try {
    for (const [index, name] of Object.keys(contenders).entries()) {
      const out = `${dir}/cg.${index}`;
      const { success, stderr } = await new Deno.Command("valgrind", {
        args: [
          "--tool=callgrind",
          // V8 writes and rewrites machine code on the heap.
          "--smc-check=all-non-file",
          "--instr-atstart=no",
          `--callgrind-out-file=${out}`,
          Deno.execPath(),
          "run",
          "--allow-all",
          "--v8-flags=--single-threaded",
          String(script instanceof URL ? script.pathname : script),
          "--child",
          name,
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!success) {
        throw new Error(
          `${name}: ${new TextDecoder().decode(stderr).slice(-2000)}`,
        );
      }
      const first = await total(`${out}.1`);
      const second = await total(`${out}.2`);
      counts.set(name, (second - first) / options.calls);
      console.error(
        `${name}: ${Math.round((second - first) / options.calls)} per call`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return counts;
}
