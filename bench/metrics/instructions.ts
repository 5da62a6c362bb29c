/**
 * Instructions per request of `metrics()` against no middleware, and of
 * `@hono/prometheus` (prom-client), on Deno, Node and Bun. By default
 * (`--mode=direct`) each middleware is called alone, as a router calls
 * it, with a `next()` that answers one prebuilt response (a no-op
 * middleware is the baseline); `--mode=apps` counts whole apps in process
 * (`app.fetch`: our router and Hono, without and with their metrics
 * middleware), where garbage collection moves each count by thousands.
 * Both are counted with
 * callgrind only while the counted requests run (`bench/_callgrind.ts`).
 * Each app runs `--rounds` times (3), A B C D E A B C D E ..., in one
 * process; the median of its counts is reported (a round's count moves by
 * a few thousand with garbage collection and JIT tiers). `GET /users/:id` with 1,000 different ids.
 *
 * ```sh
 * deno run -A bench/metrics/instructions.ts [--mode=direct|apps]
 *   [--requests=20000] [--warm=3000] [--rounds=3] [--runtimes=deno,node,bun]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { countWhile } from "../_callgrind.ts";
import { denoBundle } from "../_bundle.ts";
import { childLines } from "../_child_lines.ts";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";

const args = new Map(
  Deno.args.map((arg) => {
    const [key, value = ""] = arg.replace(/^--/, "").split("=");
    return [key!, value];
  }),
);
const requests = Number(args.get("requests") ?? 20_000);
const warm = Number(args.get("warm") ?? 3_000);
const rounds = Number(args.get("rounds") ?? 3);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
// `--mode=direct` (default): the middleware alone, called with a `next()`
// that answers a prebuilt response; `--mode=apps`: whole apps in process.
const mode = args.get("mode") ?? "direct";
const APPS = mode === "direct"
  ? ["middleware:none", "middleware:metrics", "middleware:@hono/prometheus"]
  : ["ours", "ours+metrics", "hono", "hono+prometheus", "ours+noop"];
const OUT = join(ROOT, "_tools/runtimes/.out");

const js = await denoBundle(
  join(ROOT, "bench/metrics/_app.ts"),
  join(OUT, "metrics_instructions.mjs"),
  { cwd: ROOT },
);

// Garbage collection on the main thread only: helper threads' work would
// land in whichever count was running.
const bun = await bunBinary() ?? "bun";
function commandFor(runtime: string): string[] {
  return runtime === "deno"
    ? [Deno.execPath(), "run", "-A", "--v8-flags=--single-threaded-gc", js]
    : runtime === "node"
    ? ["node", "--single-threaded-gc", js]
    : [bun, js];
}

async function count(command: string[]): Promise<Map<string, number>> {
  const file = join(OUT, `metrics.${crypto.randomUUID()}.callgrind`);
  const child = new Deno.Command("valgrind", {
    args: [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      "--instr-atstart=no",
      `--callgrind-out-file=${file}`,
      ...command,
      String(requests),
      String(warm),
      mode,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const { send, line, close } = childLines(child, command.join(" "));
  const counts = new Map<string, number[]>();
  let dumps = 0;
  for (const app of Array.from({ length: rounds }, () => APPS).flat()) {
    await send(app);
    if (await line() !== "ready") throw new Error("expected ready");
    const { total } = await countWhile(
      child.pid,
      `${file}.${++dumps}`,
      async () => {
        await send("go");
        if (await line() !== "done") throw new Error("expected done");
      },
    );
    const per = total / requests;
    console.error(`${command[0]} ${app}: ${Math.round(per)}`);
    counts.set(app, [...counts.get(app) ?? [], per]);
    await send("next");
  }
  await send("");
  await close();
  await child.status;
  await Deno.remove(file).catch(() => {});
  const medians = new Map<string, number>();
  for (const [app, all] of counts) {
    all.sort((x, y) => x - y);
    medians.set(app, all[Math.floor(all.length / 2)]!);
  }
  return medians;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
if (mode === "direct") {
  console.log(
    "| runtime | no-op middleware | `metrics()` | added | `@hono/prometheus` | added |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
}
for (const runtime of mode === "direct" ? runtimes : []) {
  const c = await count(commandFor(runtime));
  const [none, ours, hono] = APPS.map((app) => c.get(app)!);
  console.log(
    `| ${runtime} | ${fmt(none!)} | ${fmt(ours!)} | ${fmt(ours! - none!)} | ${
      fmt(hono!)
    } | ${fmt(hono! - none!)} |`,
  );
}
if (mode === "direct") Deno.exit(0);
console.log(
  "| runtime | ours | ours + a no-op middleware | ours + `metrics()` | added | Hono | Hono + `@hono/prometheus` | added |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const runtime of runtimes) {
  const c = await count(commandFor(runtime));
  const [a, b, h, p, n] = APPS.map((app) => c.get(app)!);
  console.log(
    `| ${runtime} | ${fmt(a!)} | ${fmt(n!)} | ${fmt(b!)} | ${fmt(b! - a!)} | ${
      fmt(h!)
    } | ${fmt(p!)} | ${fmt(p! - h!)} |`,
  );
}
