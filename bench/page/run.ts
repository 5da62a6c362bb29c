/**
 * Runs one of this folder's in-process benchmarks on Deno, Node and Bun:
 * Deno runs the TypeScript as is; for Node and Bun it is bundled first
 * (`deno bundle`) into `bench/runtimes/.out/`, beside the peers'
 * `node_modules` (Hono, Elysia). The benchmark's own arguments follow.
 * For `page.ts` the apps of `bench/runtimes/_apps.ts` are bundled
 * too (and those of `--base=<dir>`, an earlier checkout).
 *
 * ```sh
 * (cd bench/runtimes && npm ci --ignore-scripts)   # the peers, once
 * deno run -A bench/page/run.ts escape.ts [--runtimes=deno,node,bun] [args...]
 * deno run -A bench/page/run.ts page.ts --base=/tmp/base [args...]
 * ```
 *
 * @module
 */
import { bundleApps, commandOf, ROOT } from "./_bundle.ts";

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
if (file === "page.ts") {
  args.push(`--apps=${await bundleApps(ROOT, "page_apps.mjs")}`);
  if (baseRoot !== undefined) {
    args.push(
      `--base-apps=${await bundleApps(baseRoot, "page_apps_base.mjs")}`,
    );
  }
}

for (const runtime of runtimes) {
  const command = await commandOf(runtime, file);
  console.log(`## ${runtime}`);
  const { success } = await new Deno.Command(command[0], {
    args: [...command.slice(1), ...args],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error(`${runtime} failed`);
}
