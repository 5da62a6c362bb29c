/**
 * Line-by-line talk with a benchmark's child process: commands written to
 * its stdin, answers read from its stdout, one line each.
 *
 * @module
 */

/** What {@linkcode childLines} gives. */
export interface ChildLines {
  /** Writes `line` and a newline to the child's stdin. */
  send(line: string): Promise<void>;
  /** The child's next line of output; throws when it ended first. */
  line(): Promise<string>;
  /** Closes the child's stdin. */
  close(): Promise<void>;
}

/** Talks to `child` (spawned with piped stdin and stdout) a line at a time. */
export function childLines(
  child: Deno.ChildProcess,
  label: string,
): ChildLines {
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const reader = child.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = "";
  return {
    send: (line) => writer.write(encoder.encode(line + "\n")),
    async line() {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline !== -1) {
          const text = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return text;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`${label} ended early`);
        buffer += value;
      }
    },
    close: () => writer.close(),
  };
}
