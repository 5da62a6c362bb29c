// Test helper: the real main.ts in a subprocess on a free port.
import assert from "node:assert/strict";
import { freePort } from "../../_tools/redis.ts";

export interface RunningServer {
  url: string;
  /** What the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const DENO_JSON = new URL("../../deno.json", import.meta.url);

/**
 * The flags of `deno task dev` (read from deno.json, so the test checks
 * the very permissions a user runs with: the `auth` permission set), with
 * the test's KV folder writable instead of `.data`.
 */
async function args(kvPath: string): Promise<string[]> {
  const { tasks, permissions } = JSON.parse(await Deno.readTextFile(DENO_JSON));
  const dev: string[] = tasks.dev.split(/\s+/);
  const dir = kvPath.slice(0, kvPath.lastIndexOf("/"));
  // The program's flags: between the watcher and the script.
  const flags = dev.slice(dev.indexOf("_tools/dev.ts") + 1, -1);
  assert.ok(
    flags.includes("-P=auth"),
    `the dev task runs with -P=auth: ${tasks.dev}`,
  );
  assert.deepEqual(
    permissions.auth.write,
    [".data"],
    "the auth permission set should write only to .data",
  );
  // An explicit --allow-write replaces the set's write list.
  return ["run", ...flags, `--allow-write=${dir}`, MAIN];
}

/** Runs main.ts to its end (for start-up failures). */
export async function runMain(
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: await args(env.DENO_KV_PATH ?? "/tmp/x/x.sqlite"),
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
  };
}

/**
 * Starts main.ts and waits until it listens; with `openFiles`, under
 * `ulimit -n openFiles` (through bash).
 */
export async function startMain(
  env: Record<string, string> & { DENO_KV_PATH: string },
  options: { openFiles?: number } = {},
): Promise<RunningServer & { pid: number; exited(): boolean }> {
  const port = freePort();
  const deno = [Deno.execPath(), ...await args(env.DENO_KV_PATH)];
  const [command, ...commandArgs] = options.openFiles === undefined ? deno : [
    "bash",
    "-c",
    `ulimit -n ${options.openFiles} && exec "$@"`,
    "-",
    ...deno,
  ];
  let exited = false;
  const child = new Deno.Command(command, {
    args: commandArgs,
    env: { NO_COLOR: "1", PORT: String(port), ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  child.status.then(() => exited = true);
  const deadline = Date.now() + 60_000;
  while (!text.includes("Listening on")) {
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`main.ts did not start:\n${text}`);
    }
    const status = await Promise.race([
      child.status,
      new Promise((resolve) => setTimeout(resolve, 50)),
    ]);
    if (status) throw new Error(`main.ts exited:\n${text}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    exited: () => exited,
    output: () => text,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await pumps;
    },
  };
}
