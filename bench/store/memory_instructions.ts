/**
 * Instructions per memory store call on Deno, before and after the memory
 * stores were counted for metrics (`countStoreCall()` of
 * `store/observe.ts`): a rate-limit hit (`createMemoryRateLimitStore()`,
 * 1,024 keys), a session read (`createMemorySessionStorage()`'s
 * `read(cookie)`: cookie check, HMAC, store read, JSON) and a cache store
 * read (`createMemoryCacheStore()`'s `get`). Each checkout runs in its own
 * process under callgrind (`bench/_callgrind.ts`), counted only while
 * `--calls` calls run after `--warm` uncounted ones; `, observed` runs
 * the same calls while a metrics registry counts them. Within a process
 * the contenders run A B C ... A B C (`--rounds` times), and the table
 * gives each round's count.
 *
 * ```sh
 * git archive <base-commit> | tar -x -C /tmp/base   # the code before
 * deno run -A bench/store/memory_instructions.ts --base=/tmp/base [--calls=20000] [--warm=5000] [--rounds=2]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { countWhile } from "../_callgrind.ts";
import { childLines } from "../_child_lines.ts";
import { ROOT } from "../../_tools/runtimes/bundle.ts";

const args = new Map(
  Deno.args.map((arg) => {
    const [key, value = ""] = arg.replace(/^--/, "").split("=");
    return [key!, value];
  }),
);
const calls = Number(args.get("calls") ?? 20_000);
const warm = Number(args.get("warm") ?? 5_000);
const rounds = Number(args.get("rounds") ?? 2);
const base = args.get("base");
const OUT = join(ROOT, "_tools/runtimes/.out");
const CHILD = join(ROOT, "bench/store/_memory_calls.ts");
const CONTENDERS = [
  "rate limit hit",
  "rate limit hit, observed",
  "session read",
  "session read, observed",
  "cache get",
  "cache get, observed",
];

async function count(root: string): Promise<Map<string, number[]>> {
  await Deno.mkdir(OUT, { recursive: true });
  const file = join(OUT, `store.${crypto.randomUUID()}.callgrind`);
  const child = new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      `--callgrind-out-file=${file}`,
      Deno.execPath(),
      "run",
      "-A",
      "--no-check",
      "--v8-flags=--single-threaded-gc",
      CHILD,
      root,
      String(calls),
      String(warm),
    ],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const talk = childLines(child, `store calls (${root})`);
  const counts = new Map<string, number[]>();
  let dumps = 0;
  // A B C ... A B C: each contender once per round, in one process.
  for (let round = 0; round < rounds; round++) {
    for (const name of CONTENDERS) {
      await talk.send(name);
      if (await talk.line() !== "ready") throw new Error(`${name}: not ready`);
      const { total } = await countWhile(
        child.pid,
        `${file}.${++dumps}`,
        async () => {
          await talk.send("go");
          return await talk.line();
        },
      );
      await talk.send("next");
      counts.set(name, [...counts.get(name) ?? [], total / calls]);
      console.error(`${root} ${name}: ${Math.round(total / calls)}`);
    }
  }
  await talk.send("");
  await talk.close();
  await child.status;
  await Deno.remove(file).catch(() => {});
  return counts;
}

const roots: [string, string][] = [["ours", ROOT]];
if (base !== undefined) roots.push(["base", base]);
const results = new Map<string, Map<string, number[]>>();
for (const [name, root] of roots) results.set(name, await count(root));
const format = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`| call | ${roots.map(([name]) => name).join(" | ")} |`);
console.log(`| --- | ${roots.map(() => "---:").join(" | ")} |`);
for (const contender of CONTENDERS) {
  const cells = roots.map(([name]) =>
    results.get(name)!.get(contender)!.map(format).join(" / ")
  );
  console.log(`| ${contender} | ${cells.join(" | ")} |`);
}
