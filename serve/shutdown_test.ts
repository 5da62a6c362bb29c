// Graceful shutdown of real server processes on Deno, Node and Bun: a
// slow request in flight during SIGTERM completes with 200, new
// connections are refused, the process exits 0 within the timeout; a
// second signal exits at once.
import assert from "node:assert/strict";
import { join } from "node:path";
import { OUT, ROOT } from "../_tools/runtimes/bundle.ts";
import { bunBinary, dependencies } from "../_tools/runtimes/binaries.ts";

const SCRIPT = join(ROOT, "serve/testdata/slow_server.ts");
const REQUIRE_ALL = Deno.env.get("CI") !== undefined ||
  Deno.env.get("TOOLKIT_REQUIRE_ALL") !== undefined;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let bundled: Promise<string> | undefined;
/** The server script as one JavaScript module for Node and Bun. */
async function bundle(): Promise<string> {
  // A fresh clone has neither the output folder nor the Node adapter.
  await Deno.mkdir(OUT, { recursive: true });
  if (!await dependencies()) {
    throw new Error("_tools/runtimes/install.sh failed (npm unreachable?)");
  }
  const output = join(OUT, "slow_server.mjs");
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--external=@hono/node-server",
      "--output",
      output,
      SCRIPT,
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  return output;
}

async function command(
  runtime: string,
  ...args: string[]
): Promise<string[] | undefined> {
  if (runtime === "deno") {
    return [Deno.execPath(), "run", "--allow-net", SCRIPT, ...args];
  }
  const file = await (bundled ??= bundle());
  if (runtime === "node") return ["node", file, ...args];
  const bun = await bunBinary();
  return bun === undefined ? undefined : [bun, file, ...args];
}

interface Started {
  child: Deno.ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number; at: number }>;
}

async function start(argv: string[]): Promise<Started> {
  await Deno.mkdir(OUT, { recursive: true });
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: join(ROOT, "_tools/runtimes/.out"),
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk);
  };
  const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status.then(async (status) => {
    const at = performance.now();
    await pumped;
    return { code: status.code, at };
  });
  for (let i = 0; i < 200 && !/PORT \d+/.test(text); i++) await delay(50);
  const match = text.match(/PORT (\d+)/);
  if (!match) {
    child.kill("SIGKILL");
    await exited;
    throw new Error(`server did not start: ${text}`);
  }
  return { child, port: Number(match[1]), output: () => text, exited };
}

async function accepts(port: number): Promise<boolean> {
  try {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    connection.close();
    return true;
  } catch {
    return false;
  }
}

for (const runtime of ["deno", "node", "bun"]) {
  Deno.test(`${runtime}: SIGTERM with a slow request in flight: 200, new connections refused, exit 0 within the timeout`, async () => {
    const argv = await command(runtime);
    if (argv === undefined) {
      if (REQUIRE_ALL) throw new Error(`${runtime} is missing`);
      console.log(`skipped: ${runtime} is missing`);
      return;
    }
    const server = await start(argv);
    try {
      const slow = fetch(`http://127.0.0.1:${server.port}/slow`);
      await delay(300);
      const signalled = performance.now();
      server.child.kill("SIGTERM");
      await delay(300);
      assert.equal(
        await accepts(server.port),
        false,
        "new connections refused",
      );
      const response = await slow;
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "done /slow");
      const { code, at } = await server.exited;
      assert.equal(code, 0, server.output());
      assert.ok(
        at - signalled < 5000,
        `exited ${at - signalled} ms after SIGTERM`,
      );
      assert.match(server.output(), /finished/);
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });

  Deno.test(`${runtime}: a second SIGTERM exits at once with 143`, async () => {
    const argv = await command(runtime);
    if (argv === undefined) return;
    const server = await start(argv);
    try {
      const hanging = fetch(`http://127.0.0.1:${server.port}/hang`).catch(
        () => {},
      );
      await delay(300);
      server.child.kill("SIGTERM");
      await delay(300);
      const second = performance.now();
      server.child.kill("SIGTERM");
      const { code, at } = await server.exited;
      assert.equal(code, 143, server.output());
      assert.ok(
        at - second < 2000,
        `exited ${at - second} ms after the second signal`,
      );
      await hanging;
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });

  Deno.test(`${runtime}: a request still running at shutdownTimeoutMs does not hold the process`, async () => {
    const argv = await command(runtime, "500");
    if (argv === undefined) return;
    const server = await start(argv);
    try {
      const hanging = fetch(`http://127.0.0.1:${server.port}/hang`).then(
        (response) => response.status,
        () => "cut",
      );
      await delay(300);
      const signalled = performance.now();
      server.child.kill("SIGTERM");
      const { code, at } = await server.exited;
      assert.ok(
        at - signalled < 2500,
        `exited ${at - signalled} ms after SIGTERM`,
      );
      // The request was cut (Node, Bun) or abandoned (Deno): code 1.
      assert.equal(code, 1, server.output());
      assert.match(server.output(), /finished/);
      assert.equal(await hanging, "cut");
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });
}
