// Test helper: a server script in a process of its own (two of them share
// one store in the multi-server tests and benchmarks). The script prints
// "listening <port>" on its first line of stdout once it serves.

/** A started server process. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The process id (for /proc figures in benchmarks). */
  pid: number;
  /** Ends the process (SIGTERM) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Runs `deno run <flags> script ...args` and waits for its "listening
 * <port>" line; ends it and throws with what it printed if none comes.
 * `flags` default to `--unstable-kv --allow-all`.
 */
export async function startServerProcess(
  script: string,
  args: readonly string[],
  options: {
    flags?: readonly string[];
    stderr?: "inherit" | "null";
    /** More environment variables for the process. */
    env?: Record<string, string>;
  } = {},
): Promise<ServerProcess> {
  const flags = options.flags ?? ["--unstable-kv", "--allow-all"];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, script, ...args],
    stdout: "piped",
    stderr: options.stderr ?? "inherit",
    env: options.env,
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!output.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    output += value;
  }
  const port = /listening (\d+)/.exec(output)?.[1];
  if (port === undefined) {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`server did not start: ${output}`);
  }
  // Keep reading what it prints (log lines): a full pipe would block it.
  const drained = (async () => {
    while (!(await lines.read().catch(() => ({ done: true }))).done) {
      // discard
    }
  })();
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}
