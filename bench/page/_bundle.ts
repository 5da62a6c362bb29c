/**
 * Bundles for `run.ts`: a benchmark of this folder
 * for Node and Bun, and `bench/runtimes/_apps.ts` of a checkout, each into
 * `bench/runtimes/.out/` (beside the peers' `node_modules`).
 *
 * @module
 */
import { denoBundle } from "../_bundle.ts";
import { basename, join } from "node:path";
import { ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";

export { ROOT };
const OUT = join(ROOT, "bench/runtimes/.out");

function bundle(entry: string, output: string, cwd: string) {
  return denoBundle(entry, output, { cwd });
}

/** `bench/page/<file>` bundled for Node and Bun; its path. */
export function bundleBench(file: string): Promise<string> {
  return bundle(
    join(ROOT, "bench/page", file),
    join(OUT, `page_${basename(file, ".ts")}.mjs`),
    ROOT,
  );
}

/**
 * `bench/runtimes/_apps.ts` of `root` bundled (resolved by that checkout's
 * own deno.json), so that ours and an earlier checkout load alike, in one
 * process, on every runtime; its path.
 */
export function bundleApps(root: string, name: string): Promise<string> {
  return bundle(
    join(root, "bench/runtimes/_apps.ts"),
    join(OUT, name),
    root,
  );
}

/** The command that runs `bench/page/<file>` on `runtime`. */
export async function commandOf(
  runtime: string,
  file: string,
): Promise<string[]> {
  return runtime === "deno"
    ? [
      Deno.execPath(),
      "run",
      "-A",
      `--config=${join(ROOT, "deno.json")}`,
      join(ROOT, "bench/page", file),
    ]
    : [
      runtime === "node" ? "node" : await bunBinary() ?? "bun",
      await bundleBench(file),
    ];
}
