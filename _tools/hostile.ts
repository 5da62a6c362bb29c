// Harness for hostile HTTP against the example apps: each app runs in its
// own `deno run` process on a free loopback port (so its RSS can be read),
// and requests are written byte for byte over raw sockets.

/** An example app the hostile tests start. Adding one is one line. */
export interface ExampleApp {
  name: string;
  /** Its `main.ts`, relative to the repository root. */
  main: string;
  /** A GET path that answers 200: probed while the app is under attack. */
  probe: string;
  /** A POST path that parses a form body. */
  form: string;
  /** Extra environment for the process. */
  env?: Record<string, string>;
}

export const EXAMPLE_APPS: ExampleApp[] = [
  {
    name: "resources",
    main: "examples/resources/main.ts",
    probe: "/posts",
    form: "/posts",
  },
  { name: "uploads", main: "examples/uploads/main.ts", probe: "/", form: "/" },
  {
    name: "auth",
    main: "examples/auth/main.ts",
    probe: "/auth/login",
    form: "/auth/login",
    env: {
      DENO_KV_PATH: Deno.makeTempFileSync({ suffix: ".sqlite" }),
      // Every client here is 127.0.0.1: many users behind one address.
      LOGIN_ADDRESS_LIMIT: "1000000",
    },
  },
];

const root = new URL("../", import.meta.url);

/** A running example app. */
export interface RunningApp extends AsyncDisposable {
  port: number;
  pid: number;
  /** Lines the app printed (e.g. its upload directory). */
  output: string[];
  rss(): Promise<number>;
}

/**
 * Starts `app` with PORT=0 and waits for its "Listening on" line; `flags`
 * go to `deno run` (say `--inspect=127.0.0.1:9300`), `env` over the app's.
 */
export async function startApp(
  app: ExampleApp,
  options: { flags?: string[]; env?: Record<string, string> } = {},
): Promise<RunningApp> {
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...(options.flags ?? []),
      "--unstable-kv",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-ffi", // bcrypt in examples/auth
      app.main,
    ],
    cwd: root,
    env: { PORT: "0", NO_COLOR: "1", ...app.env, ...options.env },
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  const output: string[] = [];
  let resolvePort: (port: number) => void;
  const ready = new Promise<number>((resolve) => resolvePort = resolve);
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buffer = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      buffer += text;
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (output.length < 10_000) output.push(line);
        const match = /Listening on https?:\/\/[^:]+:(\d+)/.exec(line);
        if (match) resolvePort(Number(match[1]));
      }
    }
  };
  const pumps = [pump(child.stdout), pump(child.stderr)];
  const timer = setTimeout(() => resolvePort(-1), 30_000);
  const port = await ready;
  clearTimeout(timer);
  if (port === -1) {
    child.kill();
    throw new Error(`${app.name} did not start: ${output.join("\n")}`);
  }
  return {
    port,
    pid: child.pid,
    output,
    rss: () => rssOf(child.pid),
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await Promise.allSettled(pumps);
    },
  };
}

/** Resident set size of a process, in bytes (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb * 1024;
}

/** What a raw exchange ended with. */
export interface RawResult {
  /** Status of the first response, or `undefined` when none came. */
  status: number | undefined;
  /** The raw response text (up to 64 KiB). */
  text: string;
  /** The server closed the connection. */
  closed: boolean;
  /** Nothing came back within the time allowed. */
  timedOut: boolean;
}

const encoder = new TextEncoder();

/**
 * Opens a connection, runs `send` (which writes through `write`), then
 * reads until the server closes or `timeout` ms pass.
 */
export async function raw(
  port: number,
  send: (write: (data: string | Uint8Array) => Promise<void>) => Promise<void>,
  timeout = 5000,
): Promise<RawResult> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let closed = false;
  let timedOut = false;
  let answered = false;
  const reading = (async () => {
    const buffer = new Uint8Array(16 * 1024);
    try {
      for (;;) {
        const n = await connection.read(buffer);
        if (n === null) {
          closed = true;
          return;
        }
        if (size < 64 * 1024) {
          chunks.push(buffer.slice(0, n));
          size += n;
        }
        // The status and headers are all a case looks at: stop there, so
        // a server that answers early (413) and keeps the socket open
        // does not hold the test until the timeout.
        if (headersEnd(chunks)) {
          answered = true;
          return;
        }
      }
    } catch {
      closed = true; // reset by the server
    }
  })();
  const write = async (data: string | Uint8Array) => {
    if (closed) return;
    try {
      // write() may take only part of the bytes: write them all.
      let bytes = typeof data === "string" ? encoder.encode(data) : data;
      while (bytes.length > 0) {
        bytes = bytes.subarray(await connection.write(bytes));
      }
    } catch {
      closed = true;
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      connection.close();
    } catch { /* closed */ }
  }, timeout);
  try {
    // The server may answer before the client is done sending (a 413).
    await Promise.race([send(write), reading]);
    if (!answered) await reading;
  } finally {
    clearTimeout(timer);
    try {
      connection.close();
    } catch { /* closed */ }
  }
  const text = new TextDecoder("latin1").decode(
    new Uint8Array(chunks.flatMap((c) => [...c])),
  );
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
  return {
    status: status === undefined ? undefined : Number(status),
    text,
    closed: closed && !timedOut,
    timedOut: timedOut && status === undefined,
  };
}

function headersEnd(chunks: Uint8Array[]): boolean {
  const text = new TextDecoder("latin1").decode(
    chunks.length === 1
      ? chunks[0]
      : new Uint8Array(chunks.flatMap((c) => [...c])),
  );
  return /^HTTP\/1\.[01] \d{3}/.test(text) && text.includes("\r\n\r\n");
}

/** A plain GET through fetch: the app still serves other clients. */
export async function probe(port: number, path: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(5000),
  });
  await response.body?.cancel();
  return response.status;
}
