// Test helper: the real main.ts in a subprocess on a free port.

export interface RunningServer {
  url: string;
  /** What the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const MAIN = new URL("./main.ts", import.meta.url).pathname;

/** The permissions of `deno task dev`, with the test's KV folder writable. */
function args(kvPath: string): string[] {
  const dir = kvPath.slice(0, kvPath.lastIndexOf("/"));
  return [
    "run",
    "--unstable-kv",
    "--allow-net=127.0.0.1",
    "--allow-env",
    "--allow-read",
    `--allow-write=${dir}`,
    "--allow-ffi",
    MAIN,
  ];
}

/** Runs main.ts to its end (for start-up failures). */
export async function runMain(
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: args(env.DENO_KV_PATH ?? "/tmp/x/x.sqlite"),
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: result.code,
    output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
  };
}

/** Starts main.ts and waits until it listens. */
export async function startMain(
  env: Record<string, string> & { DENO_KV_PATH: string },
): Promise<RunningServer> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: args(env.DENO_KV_PATH),
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
    output: () => text,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await pumps;
    },
  };
}
