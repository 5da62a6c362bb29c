// Test helper: a throwaway redis-server on a free loopback port.
//
// REDIS_SERVER names another server binary (a name on PATH or a path):
// `REDIS_SERVER=valkey-server deno test ...` runs every Redis suite on
// Valkey (its CLI, for the cluster helper, is found by the same name with
// `-cli` for `-server`).

/** The server binary's name: `$REDIS_SERVER`, else `redis-server`. */
export function redisServerName(): string {
  return Deno.env.get("REDIS_SERVER") || "redis-server";
}

/** `name` if it is a path to a file, else where it is on PATH. */
export async function findExecutable(
  name: string,
): Promise<string | undefined> {
  const dirs = name.includes("/")
    ? [""]
    : (Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== "");
  for (const dir of dirs) {
    try {
      const path = dir === "" ? name : `${dir}/${name}`;
      if ((await Deno.stat(path)).isFile) return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Where the server (`redis-server`, or `$REDIS_SERVER`) is, or `undefined`. */
export function findRedisServer(): Promise<string | undefined> {
  return findExecutable(redisServerName());
}

/**
 * Decides whether tests needing redis-server run. Missing: a one-line notice
 * and a skip, unless CI or TOOLKIT_REQUIRE_ALL is set, where it is an error.
 */
export async function redisServerOrSkip(): Promise<string | undefined> {
  const path = await findRedisServer();
  if (path !== undefined) return path;
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(
      `${redisServerName()} is not installed, and CI or TOOLKIT_REQUIRE_ALL is set`,
    );
  }
  console.log(`skipping Redis tests: ${redisServerName()} is not installed`);
  return undefined;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A running redis-server. */
export interface RedisServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts redis-server without persistence in a temp dir; waits until it answers. */
export async function startRedis(
  path: string,
  port: number = freePort(),
  extraArgs: readonly string[] = [],
): Promise<RedisServer> {
  const dir = await Deno.makeTempDir({ prefix: "session-redis-" });
  const child = new Deno.Command(path, {
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      "--daemonize",
      "no",
      ...extraArgs,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await waitForPong(port);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop };
}

/** Resolves once a server on `port` answers `PING` (5 s at most). */
export async function waitForPong(port: number): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      if ((await redisCommand(port, ["PING"])) === "PONG") return;
    } catch {
      // not listening yet
    }
    if (attempt === 100) {
      throw new Error(`${redisServerName()} did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Sends one command to the server on `port` over a connection of its own
 * and returns the reply: a simple or bulk string, an integer, or `null`
 * (arrays are not read). An error reply throws.
 */
export async function redisCommand(
  port: number,
  args: readonly string[],
): Promise<string | number | null> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const encoder = new TextEncoder();
    let request = `*${args.length}\r\n`;
    for (const arg of args) {
      request += `$${encoder.encode(arg).byteLength}\r\n${arg}\r\n`;
    }
    await conn.write(encoder.encode(request));
    let text = "";
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) throw new Error(`connection closed: ${text}`);
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
      const end = text.indexOf("\r\n");
      if (end < 0) continue;
      const head = text.slice(1, end);
      switch (text[0]) {
        case "+":
          return head;
        case ":":
          return Number(head);
        case "-":
          throw new Error(head);
        case "$": {
          const length = Number(head);
          if (length < 0) return null;
          const bytes = encoder.encode(text.slice(end + 2));
          if (bytes.byteLength < length + 2) continue;
          return decoder.decode(bytes.subarray(0, length));
        }
        default:
          throw new Error(`unexpected reply: ${text}`);
      }
    }
  } finally {
    conn.close();
  }
}
