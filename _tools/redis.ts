// Test helper: a throwaway redis-server on a free loopback port.

/** Where `redis-server` is, or `undefined` when it is not installed. */
export async function findRedisServer(): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      const path = `${dir}/redis-server`;
      if ((await Deno.stat(path)).isFile) return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
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
      "redis-server is not installed, and CI or TOOLKIT_REQUIRE_ALL is set",
    );
  }
  console.log("skipping Redis session tests: redis-server is not installed");
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
  for (let attempt = 0;; attempt++) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode("PING\r\n"));
      const buffer = new Uint8Array(16);
      const n = await conn.read(buffer);
      conn.close();
      if (
        new TextDecoder().decode(buffer.subarray(0, n ?? 0)).startsWith("+PONG")
      ) break;
    } catch {
      // not listening yet
    }
    if (attempt === 100) {
      await stop();
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop };
}
