/**
 * Runs one of this folder's in-process benchmarks on Deno, Node and Bun:
 * Deno runs the TypeScript as is; for Node and Bun it is bundled first
 * (`deno bundle`) into `bench/runtimes/.out/`, beside the peers'
 * `node_modules` (Hono, Elysia). The benchmark's own arguments follow.
 *
 * ```sh
 * (cd bench/runtimes && npm ci --ignore-scripts)   # the peers, once
 * deno run -A bench/page/run.ts escape_bench.ts [--runtimes=deno,node,bun] [args...]
 * deno run -A bench/page/run.ts page_bench.ts --base=/tmp/base [args...]
 * ```
 *
 * @module
 */
import { basename, join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";

const [file, ...rest] = Deno.args;
if (file === undefined) {
  throw new Error(
    "usage: run.ts <bench file in bench/page/> [--runtimes=deno,node,bun] [args...]",
  );
}
const runtimes = (rest.find((arg) => arg.startsWith("--runtimes="))
  ?.slice("--runtimes=".length) ?? "deno,node,bun").split(",");
const baseRoot = rest.find((arg) => arg.startsWith("--base="))
  ?.slice("--base=".length);
const args = rest.filter((arg) =>
  !arg.startsWith("--runtimes=") && !arg.startsWith("--base=")
);
const source = join(ROOT, "bench/page", file);
const out = join(ROOT, "bench/runtimes/.out");
await Deno.mkdir(out, { recursive: true });

let bundle: string | undefined;
async function bundled(): Promise<string> {
  if (bundle !== undefined) return bundle;
  bundle = join(out, `page_${basename(file, ".ts")}.mjs`);
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=deno", "-o", bundle, source],
    cwd: ROOT,
  }).output();
  if (!built.success) throw new Error(new TextDecoder().decode(built.stderr));
  return bundle;
}

/**
 * `bench/runtimes/_apps.ts` of `root` bundled (resolved by that checkout's
 * own deno.json), so that ours and an earlier checkout load alike, in one
 * process, on every runtime.
 */
async function bundleApps(root: string, name: string): Promise<string> {
  const path = join(out, name);
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "-o",
      path,
      join(root, "bench/runtimes/_apps.ts"),
    ],
    cwd: root,
  }).output();
  if (!built.success) throw new Error(new TextDecoder().decode(built.stderr));
  return path;
}
if (file === "page_bench.ts") {
  args.push(`--apps=${await bundleApps(ROOT, "page_apps.mjs")}`);
  if (baseRoot !== undefined) {
    args.push(
      `--base-apps=${await bundleApps(baseRoot, "page_apps_base.mjs")}`,
    );
  }
}

for (const runtime of runtimes) {
  const command = runtime === "deno"
    ? [
      Deno.execPath(),
      "run",
      "-A",
      `--config=${join(ROOT, "deno.json")}`,
      source,
    ]
    : [
      runtime === "node" ? "node" : await bunBinary() ?? "bun",
      await bundled(),
    ];
  console.log(`## ${runtime}`);
  const { success } = await new Deno.Command(command[0], {
    args: [...command.slice(1), ...args],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error(`${runtime} failed`);
}
