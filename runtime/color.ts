/**
 * Whether standard output is a terminal that takes ANSI colours: `NO_COLOR`
 * is not set (https://no-color.org) and stdout is a TTY.
 *
 * Deno answers with `Deno.noColor` and `Deno.stdout.isTerminal()` (no
 * permission needed); Node and Bun with `process.env.NO_COLOR` and
 * `process.stdout.isTTY`. Elsewhere (workerd, browsers) there is no
 * terminal: `false`.
 *
 * @module
 */

interface DenoStdout {
  noColor: boolean;
  stdout: { isTerminal(): boolean };
}

interface NodeProcess {
  env?: Record<string, string | undefined>;
  stdout?: { isTTY?: boolean };
}

/** Whether lines written to stdout may carry ANSI colour codes. */
export function stdoutIsColorTerminal(): boolean {
  const deno = (globalThis as { Deno?: DenoStdout }).Deno;
  if (typeof deno?.stdout?.isTerminal === "function") {
    return !deno.noColor && deno.stdout.isTerminal();
  }
  const process = (globalThis as { process?: NodeProcess }).process;
  if (process === undefined) return false;
  const noColor = process.env?.NO_COLOR;
  return (noColor === undefined || noColor === "") &&
    process.stdout?.isTTY === true;
}
