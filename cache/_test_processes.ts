// Test helper: two processes of _test_server.ts on one store, for the
// multi-server tests of cache() and idempotency().

import {
  type ServerProcess,
  startServerProcess,
} from "../_tools/server_process.ts";

const serverScript = new URL("./_test_server.ts", import.meta.url).pathname;

/** Two processes on `kind` `target`; runs `fn`; stops them. */
export async function withServers(
  kind: "kv" | "redis" | "redis-cluster",
  target: string,
  fn: (servers: ServerProcess[]) => Promise<void>,
): Promise<void> {
  const servers = await Promise.all(
    [0, 1].map(() => startServerProcess(serverScript, [kind, target])),
  );
  try {
    await fn(servers);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** How often each handler ran, summed over the servers. */
export async function runsOf(
  servers: ServerProcess[],
): Promise<{ cache: number; idempotency: number }> {
  const runs = await Promise.all(
    servers.map(async (server) =>
      await (await fetch(server.origin + "/runs")).json()
    ),
  );
  return {
    cache: runs.reduce((sum, r) => sum + r.cache, 0),
    idempotency: runs.reduce((sum, r) => sum + r.idempotency, 0),
  };
}
