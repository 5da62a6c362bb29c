// Server processes for the serve() tests: serve/testdata/slow_server.ts
// on Deno, or bundled for Node and Bun.
import { join } from "node:path";
import { OUT, ROOT } from "../_tools/runtimes/bundle.ts";
import { bunBinary, dependencies } from "../_tools/runtimes/binaries.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SCRIPT = join(ROOT, "serve/testdata/slow_server.ts");
export const REQUIRE_ALL = Deno.env.get("CI") !== undefined ||
  Deno.env.get("TOOLKIT_REQUIRE_ALL") !== undefined;

const bundled = new Map<string, Promise<string>>();
/** A server script as one JavaScript module for Node and Bun. */
async function bundle(script: string): Promise<string> {
  // A fresh clone has neither the output folder nor the Node adapter.
  await Deno.mkdir(OUT, { recursive: true });
  if (!await dependencies()) {
    throw new Error("_tools/runtimes/install.sh failed (npm unreachable?)");
  }
  const name = script.split("/").at(-1)!.replace(/\.ts$/, "");
  const output = join(OUT, `${name}.mjs`);
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--external=@hono/node-server",
      "--output",
      output,
      script,
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  return output;
}

/** The command line that runs slow_server.ts on `runtime`, or undefined. */
export function command(
  runtime: string,
  ...args: string[]
): Promise<string[] | undefined> {
  return commandFor(SCRIPT, runtime, ...args);
}

/** The command line that runs `script` (under serve/testdata/) on `runtime`. */
export async function commandFor(
  script: string,
  runtime: string,
  ...args: string[]
): Promise<string[] | undefined> {
  if (!script.startsWith("/")) script = join(ROOT, "serve/testdata", script);
  if (runtime === "deno") {
    return [Deno.execPath(), "run", "--allow-net", script, ...args];
  }
  let pending = bundled.get(script);
  if (pending === undefined) bundled.set(script, pending = bundle(script));
  const file = await pending;
  if (runtime === "node") return ["node", file, ...args];
  const bun = await bunBinary();
  return bun === undefined ? undefined : [bun, file, ...args];
}

/** A started server process. */
export interface Started {
  child: Deno.ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number; at: number }>;
}

/** Starts `argv`; resolves once it printed its port. */
export async function start(argv: string[]): Promise<Started> {
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

/** Whether a TCP connection to the port is accepted. */
export async function accepts(port: number): Promise<boolean> {
  try {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    connection.close();
    return true;
  } catch {
    return false;
  }
}
