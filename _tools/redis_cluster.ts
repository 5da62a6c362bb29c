// Test helper: a throwaway Redis Cluster (or Valkey cluster, with
// REDIS_SERVER=valkey-server) of 3 masters and 3 replicas on free loopback
// ports: six `redis-server --cluster-enabled yes`, joined by
// `redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes`, and
// stopped by PID. Start it once per test file: it takes about 3 s.

import {
  findExecutable,
  redisCommand,
  redisServerName,
  waitForPong,
} from "./redis.ts";

/** One server of the cluster. */
export interface ClusterNode {
  port: number;
  pid: number;
  url: string;
}

/** A running cluster. */
export interface RedisCluster {
  /** Every node, as started (masters first until a failover). */
  nodes: ClusterNode[];
  /** For node-redis' `createCluster({ rootNodes })`. */
  rootNodes: { url: string }[];
  /** `cluster-node-timeout`, in ms: how long until a dead master is failed over. */
  nodeTimeoutMs: number;
  /** The nodes that are masters now (asked of a live node). */
  masters(): Promise<ClusterNode[]>;
  /** The port of the master serving `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILLs a node; the cluster fails its slots over to its replica. */
  kill(node: ClusterNode): void;
  /** The nodes that are replicas now (asked of a live node). */
  replicas(): Promise<ClusterNode[]>;
  /**
   * Freezes a node (SIGSTOP): it holds its connections but answers
   * nothing and acknowledges no replication, as a replica that lags far
   * behind. {@linkcode RedisCluster.resume} undoes it; `stop()` too.
   */
  pause(node: ClusterNode): void;
  /**
   * Lets a paused node run again (SIGCONT) and resolves once every
   * replica's link to its master is up again.
   */
  resume(node: ClusterNode): Promise<void>;
  /**
   * Resolves once every slot is served again (`cluster_state:ok` on every
   * live node) and every killed master's slots have moved to another
   * node (its replica won the election); how long that took, in ms.
   */
  waitUntilOk(timeoutMs?: number): Promise<number>;
  /** Stops every node (SIGTERM by PID) and removes their folders. */
  stop(): Promise<void>;
}

/** The CLI beside the server: `redis-cli`, or `valkey-cli` for Valkey. */
export function cliName(): string {
  return redisServerName().replace(/-server$/, "-cli").replace(/.*\//, "");
}

/** Whether the cluster can be started here (the server and its CLI). */
export async function findClusterTools(): Promise<
  { server: string; cli: string } | undefined
> {
  const server = await findExecutable(redisServerName());
  const cli = await findExecutable(cliName());
  if (server === undefined || cli === undefined) return undefined;
  return { server, cli };
}

/**
 * The cluster tools, or `undefined` with a notice; under CI or
 * TOOLKIT_REQUIRE_ALL a missing tool is an error.
 */
export async function clusterToolsOrSkip(): Promise<
  { server: string; cli: string } | undefined
> {
  const tools = await findClusterTools();
  if (tools !== undefined) return tools;
  const missing = `${redisServerName()} or ${cliName()} is not installed`;
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(`${missing}, and CI or TOOLKIT_REQUIRE_ALL is set`);
  }
  console.log(`skipping Redis Cluster tests: ${missing}`);
  return undefined;
}

/** Whether `port` on 127.0.0.1 can be listened on now. */
function free(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * A free port for a cluster node, not in `taken`, whose cluster bus port
 * (port + 10000) is free too: below the ephemeral range, so that the bus
 * port stays under 65536 and outgoing connections do not take either.
 */
function clusterPort(taken: Set<number>): number {
  for (;;) {
    const port = 15000 + Math.floor(Math.random() * 10000);
    if (!taken.has(port) && free(port) && free(port + 10000)) {
      taken.add(port);
      return port;
    }
  }
}

/** Options of {@linkcode startRedisCluster}. */
export interface StartClusterOptions {
  /** `cluster-node-timeout` in ms. Default 1000 (Redis' own: 15000). */
  nodeTimeoutMs?: number;
}

/** Starts 3 masters and 3 replicas; resolves once every slot is served. */
export async function startRedisCluster(
  tools: { server: string; cli: string },
  options: StartClusterOptions = {},
): Promise<RedisCluster> {
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const root = await Deno.makeTempDir({ prefix: "redis-cluster-" });
  const children: Deno.ChildProcess[] = [];
  const nodes: ClusterNode[] = [];
  const killed = new Set<number>();
  const paused = new Set<number>();
  const stop = async () => {
    for (const pid of paused) {
      try {
        Deno.kill(pid, "SIGCONT");
      } catch {
        // already gone
      }
    }
    for (const child of children) {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
    }
    await Promise.all(children.map((child) => child.status));
    await Deno.remove(root, { recursive: true });
  };
  try {
    const taken = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const port = clusterPort(taken);
      const dir = `${root}/${port}`;
      await Deno.mkdir(dir);
      const child = new Deno.Command(tools.server, {
        args: [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          "nodes.conf",
          "--cluster-node-timeout",
          String(nodeTimeoutMs),
          "--save",
          "",
          "--appendonly",
          "no",
          "--dir",
          dir,
          "--daemonize",
          "no",
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      children.push(child);
      nodes.push({ port, pid: child.pid, url: `redis://127.0.0.1:${port}` });
    }
    await Promise.all(nodes.map(({ port }) => waitForPong(port)));
    const created = await new Deno.Command(tools.cli, {
      args: [
        "--cluster",
        "create",
        ...nodes.map(({ port }) => `127.0.0.1:${port}`),
        "--cluster-replicas",
        "1",
        "--cluster-yes",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!created.success) {
      throw new Error(
        `${cliName()} --cluster create failed: ${
          new TextDecoder().decode(created.stdout)
        }${new TextDecoder().decode(created.stderr)}`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }

  // Neither killed nor paused: a paused node would never answer.
  const live = () =>
    nodes.filter(({ pid }) => !killed.has(pid) && !paused.has(pid));

  async function clusterNodes(): Promise<string[]> {
    for (const node of live()) {
      try {
        const text = await redisCommand(node.port, ["CLUSTER", "NODES"]);
        return String(text).trim().split("\n");
      } catch {
        // try the next node
      }
    }
    throw new Error("no node of the cluster answers");
  }

  async function masters(): Promise<ClusterNode[]> {
    const ports = new Set<number>();
    for (const line of await clusterNodes()) {
      const [, address, flags] = line.split(" ");
      if (flags.includes("master") && !flags.includes("fail")) {
        ports.add(Number(address.split("@")[0].split(":")[1]));
      }
    }
    return live().filter(({ port }) => ports.has(port));
  }

  async function waitUntilOk(timeoutMs = 30_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      let ok = true;
      // A killed master must be seen failed, its slots taken over.
      if (killed.size > 0) {
        try {
          for (const line of await clusterNodes()) {
            const [, address, flags, , , , , , ...slots] = line.split(" ");
            const port = Number(address.split("@")[0].split(":")[1]);
            const node = nodes.find((node) => node.port === port);
            if (node === undefined || !killed.has(node.pid)) continue;
            const failed = flags.split(",").includes("fail");
            if (!failed || slots.length > 0) ok = false;
          }
        } catch {
          ok = false;
        }
      }
      for (const node of live()) {
        try {
          const info = String(
            await redisCommand(node.port, ["CLUSTER", "INFO"]),
          );
          if (!info.includes("cluster_state:ok")) ok = false;
        } catch {
          ok = false;
        }
      }
      if (ok) return Math.round(performance.now() - started);
      if (performance.now() - started > timeoutMs) {
        throw new Error(`the cluster did not become ok in ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Resolves once every live replica's link to its master is up. */
  async function waitForReplicas(timeoutMs = 30_000): Promise<void> {
    const started = performance.now();
    for (;;) {
      const lines = await clusterNodes();
      const replicas = lines.filter((line) => line.includes("slave"));
      let synced = 0;
      let frozen = 0;
      for (const line of replicas) {
        const port = Number(line.split(" ")[1].split("@")[0].split(":")[1]);
        const node = nodes.find((node) => node.port === port);
        if (node !== undefined && paused.has(node.pid)) {
          frozen++;
          continue;
        }
        try {
          const info = String(
            await redisCommand(port, ["INFO", "replication"]),
          );
          if (info.includes("master_link_status:up")) synced++;
        } catch {
          // not answering yet
        }
      }
      // And the masters count them online (WAIT counts only those).
      let online = 0;
      if (synced === replicas.length - frozen) {
        for (const line of lines) {
          if (!line.includes("master") || line.includes("fail")) continue;
          const port = Number(line.split(" ")[1].split("@")[0].split(":")[1]);
          const node = nodes.find((node) => node.port === port);
          if (node === undefined || !live().includes(node)) continue;
          try {
            const info = String(
              await redisCommand(port, ["INFO", "replication"]),
            );
            online += info.match(/state=online/g)?.length ?? 0;
          } catch {
            // not answering yet
          }
        }
      }
      if (
        replicas.length >= 3 - killed.size &&
        synced === replicas.length - frozen && online >= synced
      ) {
        return;
      }
      if (performance.now() - started > timeoutMs) {
        throw new Error(`the replicas did not sync in ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  try {
    await waitUntilOk();
    // Every replica has synced with its master, so a failover finds one.
    await waitForReplicas();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nodes,
    rootNodes: nodes.map(({ url }) => ({ url })),
    nodeTimeoutMs,
    masters,
    async masterOf(key) {
      const slot = await redisCommand(live()[0].port, [
        "CLUSTER",
        "KEYSLOT",
        key,
      ]);
      for (const line of await clusterNodes()) {
        const [, address, flags, , , , , , ...ranges] = line.split(" ");
        if (!flags.includes("master") || flags.includes("fail")) continue;
        for (const range of ranges) {
          const [from, to = from] = range.split("-").map(Number);
          if (Number(slot) >= from && Number(slot) <= to) {
            return Number(address.split("@")[0].split(":")[1]);
          }
        }
      }
      throw new Error(`no master serves the slot of ${key}`);
    },
    kill(node) {
      killed.add(node.pid);
      Deno.kill(node.pid, "SIGKILL");
    },
    async replicas() {
      const ports = new Set<number>();
      for (const line of await clusterNodes()) {
        const [, address, flags] = line.split(" ");
        if (flags.includes("slave")) {
          ports.add(Number(address.split("@")[0].split(":")[1]));
        }
      }
      return live().filter(({ port }) => ports.has(port));
    },
    pause(node) {
      paused.add(node.pid);
      Deno.kill(node.pid, "SIGSTOP");
    },
    async resume(node) {
      paused.delete(node.pid);
      Deno.kill(node.pid, "SIGCONT");
      await waitForReplicas();
    },
    waitUntilOk,
    stop,
  };
}
