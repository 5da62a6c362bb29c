// Instructions per call (callgrind, user space, every thread: JIT and GC
// included) of parseJson against `request.json()` + the schema, and of a
// fetchkit router with parseJson against Hono with sValidator('json'),
// end to end in process, on the 1 KB and 100 KB orders. One process under
// callgrind with counting off runs every contender: each is warmed, then
// counted over batches of calls, counting switched on and off around each
// batch with `callgrind_control`; contenders interleave A B C D per round.
// Counts do not depend on what else the machine runs.
//
// Larger batches (`scale`) average the major GCs in; small ones show them
// as outlying rounds.
//
//   deno run --allow-all bench/validation/instructions.ts [rounds=3] [scale=1] [1k|100k]
const rounds = Number(Deno.args[0] ?? 3);
const scale = Number(Deno.args[1] ?? 1);
const only = Deno.args[2];
const worker = new URL("./_instructions_worker.ts", import.meta.url).pathname;
const dir = await Deno.makeTempDir({ prefix: "validation_instructions_" });
const out = `${dir}/callgrind`;

const SIZES = ([["1k", 2000, 500], ["100k", 200, 40]] as const)
  .filter(([size]) => only === undefined || size === only)
  .map(([size, warm, count]) => [size, warm, count * scale] as const);
const CONTENDERS = ["bare", "parseJson", "fetchkit", "hono"];

const child = new Deno.Command("valgrind", {
  args: [
    "--tool=callgrind",
    // V8 writes and rewrites machine code on the heap.
    "--smc-check=all-non-file",
    "--instr-atstart=no",
    `--callgrind-out-file=${out}`,
    Deno.execPath(),
    "run",
    "--allow-all",
    worker,
  ],
  stdin: "piped",
  stdout: "piped",
  stderr: "null",
}).spawn();
const input = child.stdin.getWriter();
const output = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
let buffered = "";
async function line(): Promise<string> {
  while (!buffered.includes("\n")) {
    const { value, done } = await output.read();
    if (done) throw new Error("the worker ended");
    buffered += value;
  }
  const at = buffered.indexOf("\n");
  const text = buffered.slice(0, at);
  buffered = buffered.slice(at + 1);
  return text;
}

async function control(...args: string[]): Promise<void> {
  const { success } = await new Deno.Command("callgrind_control", {
    args: [...args, String(child.pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) throw new Error(`callgrind_control ${args.join(" ")} failed`);
}

async function batch(contender: string, size: string, count: number) {
  await input.write(
    new TextEncoder().encode(`${contender} ${size} ${count}\n`),
  );
  const answer = await line();
  if (answer !== "ok") throw new Error(`worker said ${answer}`);
}

let dumps = 0;
async function counted(contender: string, size: string, count: number) {
  await control("-i", "on");
  await batch(contender, size, count);
  await control("-d");
  await control("-i", "off");
  dumps++;
  const file = `${out}.${dumps}`;
  for (let tries = 0; tries < 200; tries++) {
    try {
      const total = /^totals: (\d+)/m.exec(await Deno.readTextFile(file));
      if (total !== null) return Number(total[1]) / count;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no callgrind dump at ${file}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const k = (n: number) => `${(n / 1000).toFixed(1)}k`;

try {
  if (await line() !== "ready") throw new Error("the worker did not start");
  for (const [size, warm, count] of SIZES) {
    for (const contender of CONTENDERS) await batch(contender, size, warm);
    const perCall: Record<string, number[]> = {};
    for (let r = 0; r < rounds; r++) {
      for (const contender of CONTENDERS) {
        (perCall[contender] ??= []).push(await counted(contender, size, count));
      }
    }
    const m = Object.fromEntries(
      CONTENDERS.map((name) => [name, median(perCall[name])]),
    );
    console.log(
      `${size}: ${
        CONTENDERS.map((name) =>
          `${name} ${k(m[name])} [${perCall[name].map(k).join(", ")}]`
        ).join("; ")
      }`,
    );
    console.log(
      `  parseJson / bare ${(m.parseJson / m.bare).toFixed(3)} (+${
        k(m.parseJson - m.bare)
      } instructions); fetchkit / Hono ${(m.fetchkit / m.hono).toFixed(3)}`,
    );
  }
} finally {
  await input.close().catch(() => {});
  child.kill("SIGTERM");
  await child.status;
  await Deno.remove(dir, { recursive: true });
}
