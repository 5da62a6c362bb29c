// Test helper: Debian's oathtool and zbarimg (and chromium, to rasterise
// an SVG), found on PATH or skipped with a one-line notice, unless CI or
// TOOLKIT_REQUIRE_ALL is set (then a missing one fails).
import { findExecutable } from "../_tools/redis.ts";

/** Where `name` is, or `undefined` (with a notice) to skip `what`. */
export async function toolOrSkip(
  name: string,
  what: string,
): Promise<string | undefined> {
  const path = await findExecutable(name);
  if (path !== undefined) return path;
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(
      `${name} is not installed, and CI or TOOLKIT_REQUIRE_ALL is set`,
    );
  }
  console.log(`skipping ${what}: ${name} is not installed`);
  return undefined;
}

/** Runs `command args`, returning stdout; throws with stderr on failure. */
export async function run(command: string, args: string[]): Promise<string> {
  const { stdout, stderr, success } = await new Deno.Command(command, {
    args,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  if (!success) {
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${
        new TextDecoder().decode(stderr)
      }`,
    );
  }
  return new TextDecoder().decode(stdout);
}
