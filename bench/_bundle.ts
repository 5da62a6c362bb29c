/**
 * One `deno bundle` for the benchmarks that run the same code on Node and
 * Bun: `entry` into `output`, resolved by the `deno.json` of `cwd` (a
 * checkout's own, so an earlier commit bundles its own code).
 *
 * @module
 */
import { dirname } from "node:path";

/** Options of {@linkcode denoBundle}. */
export interface BundleOptions {
  /** The folder whose `deno.json` resolves the imports. */
  cwd: string;
  /** Packages left as imports (found in `node_modules` beside `output`). */
  external?: readonly string[];
}

/** Bundles `entry` into `output`; its path. Throws with deno's message. */
export async function denoBundle(
  entry: string,
  output: string,
  options: BundleOptions,
): Promise<string> {
  await Deno.mkdir(dirname(output), { recursive: true });
  const external = (options.external ?? []).map((name) => `--external=${name}`);
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      ...external,
      "-o",
      output,
      entry,
    ],
    cwd: options.cwd,
  }).output();
  if (!built.success) {
    throw new Error(
      `deno bundle ${entry} failed:\n${new TextDecoder().decode(built.stderr)}`,
    );
  }
  return output;
}
