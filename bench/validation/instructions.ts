// Instructions per call (callgrind, user space, every thread: JIT and GC
// included) of parseJson against `request.json()` + the schema, and of a
// fetchkit router with parseJson against Hono with sValidator('json'),
// end to end in process, on the 1 KB and 100 KB orders. Each contender runs
// in a process of its own under callgrind twice, with `count` and
// `2 * count` calls after the same warm-up; the difference of the two
// totals over `count` is the cost of one call, startup and warm-up left out.
// Counts do not depend on what else the machine runs; repeat to see the
// JIT's own spread.
//
//   deno run --allow-all bench/validation/instructions.ts [repeats=1] [only]
const repeats = Number(Deno.args[0] ?? 1);
const only = Deno.args[1];
const worker = new URL("./_instructions_worker.ts", import.meta.url).pathname;
const dir = await Deno.makeTempDir({ prefix: "validation_instructions_" });

const SIZES = [["1k", 3000, 2000], ["100k", 300, 200]] as const;
const CONTENDERS = ["bare", "parseJson", "fetchkit", "hono"];

async function total(
  contender: string,
  size: string,
  warm: number,
  count: number,
): Promise<number> {
  const out = `${dir}/${contender}.${size}.${count}`;
  const { success, stderr } = await new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      // V8 writes and rewrites machine code on the heap.
      "--smc-check=all-non-file",
      `--callgrind-out-file=${out}`,
      Deno.execPath(),
      "run",
      "--allow-all",
      worker,
      contender,
      size,
      String(warm),
      String(count),
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(new TextDecoder().decode(stderr).slice(-2000));
  const text = await Deno.readTextFile(out);
  const found = /^(?:totals|summary): (\d+)/m.exec(text);
  if (found === null) throw new Error(`no total in ${out}`);
  return Number(found[1]);
}

try {
  for (const [size, warm, count] of SIZES) {
    const perCall: Record<string, number[]> = {};
    for (let r = 0; r < repeats; r++) {
      for (const contender of CONTENDERS) {
        if (only !== undefined && !contender.includes(only)) continue;
        const one = await total(contender, size, warm, count);
        const two = await total(contender, size, warm, 2 * count);
        (perCall[contender] ??= []).push((two - one) / count);
        console.error(
          `${size} ${contender}: ${((two - one) / count).toFixed(0)}`,
        );
      }
    }
    const median = (xs: number[]) =>
      [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const m = Object.fromEntries(
      Object.entries(perCall).map(([name, xs]) => [name, median(xs)]),
    );
    const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
    console.log(
      `${size}: ${
        Object.entries(perCall).map(([name, xs]) =>
          `${name} ${k(m[name])} [${xs.map(k).join(", ")}]`
        ).join("; ")
      }`,
    );
    if (m.bare && m.parseJson) {
      console.log(
        `  parseJson / bare ${(m.parseJson / m.bare).toFixed(3)} (+${
          k(m.parseJson - m.bare)
        } instructions)`,
      );
    }
    if (m.fetchkit && m.hono) {
      console.log(`  fetchkit / Hono ${(m.fetchkit / m.hono).toFixed(3)}`);
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
