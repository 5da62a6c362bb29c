/**
 * Shared by the HTTP load scripts: a free port, a server process started
 * with `deno run`, and one `wrk` run. `wrk` is Debian's package.
 *
 * @module
 */

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A server process that printed "ready". */
export interface ServerProcess {
  port: number;
  process: Deno.ChildProcess;
}

/**
 * Runs `deno run --allow-net=127.0.0.1 [--allow-read] script ...args port`
 * and waits for it to print "ready".
 */
export async function startServer(
  script: string,
  args: string[],
  options: { allowRead?: boolean } = {},
): Promise<ServerProcess> {
  const port = freePort();
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      ...(options.allowRead ? ["--allow-read"] : []),
      script,
      ...args,
      String(port),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  await untilReady(process, `${script} ${args.join(" ")}`);
  return { port, process };
}

/**
 * Waits for a server process to print "ready" on its stdout; ends it and
 * throws if it prints anything else first or exits.
 */
export async function untilReady(
  process: Deno.ChildProcess,
  what: string,
): Promise<void> {
  const reader = process.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  if (!value?.includes("ready")) {
    process.kill("SIGKILL");
    throw new Error(`${what} did not start`);
  }
}

/** A server process started by {@linkcode spawnReady}. */
export interface Running {
  port: number;
  pid: number;
  /** Kills it (SIGKILL) and waits for it to end. */
  stop(): Promise<void>;
}

/**
 * Spawns `argv` in `cwd` (a server that listens on `port` and prints
 * "ready") and waits for it to be ready.
 */
export async function spawnReady(
  argv: string[],
  port: number,
  options: { cwd: string; what: string },
): Promise<Running> {
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: options.cwd,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  await untilReady(child, options.what);
  return {
    port,
    pid: child.pid,
    async stop() {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

/** Ends a server started with {@linkcode startServer}. */
export async function stopServer(server: ServerProcess): Promise<void> {
  server.process.kill("SIGTERM");
  await server.process.status;
}

/** What one `wrk` run measured. */
export interface WrkResult {
  /** Requests per second. */
  rps: number;
  /** Requests completed. */
  total: number;
  /** Answers outside 2xx/3xx. */
  non2xx: number;
  /** Connect, read, write or timeout errors. */
  socketErrors: boolean;
  /** wrk's own report, for error messages. */
  text: string;
}

/** One `wrk -t1 -c<connections>` run; throws only when wrk itself fails. */
export async function wrkRun(
  url: string,
  options: {
    seconds: number;
    connections?: number;
    script?: string;
    /** Seconds wrk waits for an answer (its default: 2). */
    timeout?: number;
  },
): Promise<WrkResult> {
  const args = [
    "-t1",
    `-c${options.connections ?? 32}`,
    `-d${options.seconds}s`,
    "--latency",
  ];
  if (options.timeout !== undefined) {
    args.push(`--timeout`, `${options.timeout}s`);
  }
  if (options.script) args.push("-s", options.script);
  args.push(url);
  const { stdout, success } = await new Deno.Command("wrk", {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!success || match === null) throw new Error(`wrk failed:\n${text}`);
  return {
    rps: Number(match[1]),
    total: Number(/(\d+) requests in/.exec(text)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: /Socket errors/.test(text),
    text,
  };
}

/**
 * One `wrk -t1 -c<connections>` run that ends at the `requests`-th answer
 * (a Lua `response()` that counts and exits), or after `seconds` if that
 * comes first: a window measured by answers, not by time, so that a
 * server starved of CPU (under valgrind on a loaded machine) answers late
 * instead of not at all. `script` (a wrk Lua file setting `wrk.method`,
 * body, headers) is prepended. Gives the answers counted and how many
 * were not `status`; up to `connections - 1` requests are still in flight
 * when it ends.
 */
export async function wrkCount(
  url: string,
  options: {
    requests: number;
    seconds: number;
    connections?: number;
    script?: string;
    status?: number;
    /** Where to write the Lua script (a file of this name is replaced). */
    scriptFile: string;
  },
): Promise<{ total: number; unexpected: number; complete: boolean }> {
  const prefix = options.script === undefined
    ? ""
    : await Deno.readTextFile(options.script);
  await Deno.writeTextFile(
    options.scriptFile,
    `${prefix}
local answered, unexpected = 0, 0
function response(status, headers, body)
  answered = answered + 1
  if status ~= ${options.status ?? 200} then unexpected = unexpected + 1 end
  if answered >= ${options.requests} then
    io.write(string.format("answered %d unexpected %d\\n", answered, unexpected))
    io.flush()
    os.exit(0)
  end
end
-- The time ran out: done() runs in wrk's main Lua state (the counters
-- above are the thread's), so the summary's count, statuses unchecked.
function done(summary, latency, requests)
  io.write(string.format("answered %d unexpected 0\\n", summary.requests))
end
`,
  );
  const { stdout, success } = await new Deno.Command("wrk", {
    args: [
      "-t1",
      `-c${options.connections ?? 4}`,
      `-d${options.seconds}s`,
      "--timeout",
      `${options.seconds}s`,
      "-s",
      options.scriptFile,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  // Printed at the last answer, or by `done()` when the time ran out.
  const found = /answered (\d+) unexpected (\d+)/.exec(text);
  if (!success || found === null) throw new Error(`wrk failed:\n${text}`);
  const total = Number(found[1]);
  return {
    total,
    unexpected: Number(found[2]),
    complete: total >= options.requests,
  };
}

/** Requests per second from one `wrk` run in which every answer is 2xx/3xx. */
export async function wrk(
  url: string,
  options: { seconds: number; connections?: number; script?: string },
): Promise<number> {
  const result = await wrkRun(url, options);
  if (result.non2xx > 0 || result.socketErrors) {
    throw new Error(`errors under load:\n${result.text}`);
  }
  return result.rps;
}

/** Builds a handler, by name, for a server process of the load scripts. */
export type HandlerFactories = Record<
  string,
  () => (request: Request) => Response | Promise<Response>
>;

/**
 * In a server process: serves the handler named `name` on 127.0.0.1:`port`
 * and prints "ready" (what {@linkcode startServer} waits for).
 */
export function serveNamed(
  handlers: HandlerFactories,
  name: string,
  port: string,
): void {
  const handler = handlers[name]?.();
  if (handler === undefined) {
    throw new TypeError(
      `unknown server "${name}"; use ${Object.keys(handlers).join(", ")}`,
    );
  }
  Deno.serve({
    hostname: "127.0.0.1",
    port: Number(port),
    onListen: () => console.log("ready"),
  }, handler);
}
