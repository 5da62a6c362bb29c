/**
 * What runs the deploy example's instances, and `--runtime=` of
 * `deno task deploy:local`.
 *
 * @module
 */

/** What runs an instance. */
export type Runtime = "deno" | "node";

/** The runtimes of `--runtime=<list>`: one for all three, or one each. */
export function parseRuntimes(text: string): Runtime[] {
  const names = text.split(",").map((name) => name.trim());
  for (const name of names) {
    if (name !== "deno" && name !== "node") {
      throw new TypeError(
        `--runtime: each runtime must be deno or node, got "${name}"`,
      );
    }
  }
  if (names.length !== 1 && names.length !== 3) {
    throw new RangeError(
      `--runtime: one runtime or three (one per instance), got ${names.length}`,
    );
  }
  return (names.length === 1
    ? [names[0], names[0], names[0]]
    : names) as Runtime[];
}
