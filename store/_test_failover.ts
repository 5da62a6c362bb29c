// The Redis Cluster failover scenario, for the test and the benchmark:
// two server processes (store/_test_failover_server.ts) write sessions and
// count a limit on one cluster while a master is killed (SIGKILL). Every
// answer is recorded: what the clients saw in the gap, how long it
// lasted, and what acknowledged writes the promoted replica lacks.

import assert from "node:assert/strict";
import { createCluster } from "redis";
import {
  type ServerProcess,
  startServerProcess,
} from "../_tools/server_process.ts";
import type { RedisCluster } from "../_tools/redis_cluster.ts";

const serverScript = new URL("./_test_failover_server.ts", import.meta.url)
  .pathname;

/** What the failover did, as the clients saw it. */
export interface FailoverReport {
  /** Answers by status, sessions and limits together. */
  statuses: Record<number, number>;
  /** 503 answers without `Retry-After` (must be 0). */
  without_retry_after: number;
  /** From the kill to the last 503 any client got, in seconds. */
  unavailable_s: number;
  /** From the kill until the cluster reported every slot served, in s. */
  cluster_ok_s: number;
  /** Session writes answered 200 whose value the new master lacks. */
  lost_session_writes: number;
  /** Counts answered 200 (allowed) that the new master lacks. */
  lost_limit_counts: number;
  /** Acknowledged session writes and counts in all. */
  acknowledged: number;
  /** Answers by status, per second after the kill. */
  timeline: Record<number, number>[];
}

/** Options of {@linkcode runFailover}. */
export interface FailoverOptions {
  /** Sessions written in parallel. Default 24. */
  sessions?: number;
  /** Load before the kill, in ms. Default 1500. */
  beforeMs?: number;
  /** Load after the last 503, in ms. Default 2000. */
  afterMs?: number;
  /**
   * node-redis' `topologyRefreshOnReconnectionAttemptStrategy` in the
   * servers, in ms; its default (5000) when not given.
   */
  topologyRefreshMs?: number;
}

/** Runs the scenario on `cluster` (which loses a master). */
export async function runFailover(
  cluster: RedisCluster,
  options: FailoverOptions = {},
): Promise<FailoverReport> {
  const { sessions = 24, beforeMs = 1500, afterMs = 2000 } = options;
  const urls = cluster.nodes.map(({ url }) => url).join(",");
  const servers: ServerProcess[] = await Promise.all(
    [0, 1].map(() =>
      startServerProcess(serverScript, [
        urls,
        ...(options.topologyRefreshMs === undefined
          ? []
          : [String(options.topologyRefreshMs)]),
      ])
    ),
  );
  const statuses: Record<number, number> = {};
  /** Answers by status, per second after the kill. */
  const timeline: Record<number, number>[] = [];
  let withoutRetryAfter = 0;
  let killedAt = 0;
  let last503 = 0;
  let stop = false;
  let acknowledged = 0;

  async function send(url: string, init?: RequestInit): Promise<Response> {
    const response = await fetch(url, init);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (killedAt > 0) {
      const second = Math.floor((performance.now() - killedAt) / 1000);
      const bucket = timeline[second] ??= {};
      bucket[response.status] = (bucket[response.status] ?? 0) + 1;
    }
    if (response.status === 503) {
      last503 = performance.now();
      if (!response.headers.has("retry-after")) withoutRetryAfter++;
    }
    return response;
  }

  // Each session is written through both servers in turn.
  const cookies: (string | undefined)[] = Array(sessions).fill(undefined);
  const acked: number[] = Array(sessions).fill(0);
  async function writer(s: number): Promise<void> {
    for (let i = 0; !stop; i++) {
      const response = await send(servers[i % 2].origin + "/count", {
        method: "POST",
        headers: cookies[s] === undefined ? {} : { cookie: cookies[s]! },
      });
      const setCookie = response.headers.get("set-cookie");
      if (setCookie !== null) cookies[s] = setCookie.split(";")[0];
      if (response.status === 200) {
        acked[s] = (await response.json()).n;
        acknowledged++;
      } else {
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  const limitKey = "failover";
  let allowed = 0;
  async function counter(server: ServerProcess): Promise<void> {
    while (!stop) {
      const response = await send(
        `${server.origin}/limited?key=${limitKey}`,
      );
      await response.body?.cancel();
      if (response.status === 200) {
        allowed++;
        acknowledged++;
      } else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  try {
    const load = [
      ...Array.from({ length: sessions }, (_, s) => writer(s)),
      ...servers.map(counter),
    ];
    await new Promise((resolve) => setTimeout(resolve, beforeMs));
    // The master of the limit's key dies; sessions on it go down too.
    const port = await cluster.masterOf(`rate_limit:fo:${limitKey}`);
    killedAt = performance.now();
    cluster.kill(cluster.nodes.find((node) => node.port === port)!);
    const okMs = await cluster.waitUntilOk(30_000);
    // Load goes on until no client met a 503 for `afterMs` (30 s at most).
    while (
      performance.now() - Math.max(last503, killedAt) < afterMs &&
      performance.now() - killedAt < 30_000
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    stop = true;
    await Promise.all(load);

    // What the new masters hold against what the clients were told.
    let lostSessions = 0;
    for (let s = 0; s < sessions; s++) {
      if (cookies[s] === undefined) continue;
      // A client still sending to the dead master gets 503 until its
      // topology refresh: ask again for a few seconds.
      let response: Response;
      for (let attempt = 0;; attempt++) {
        response = await send(servers[s % 2].origin + "/count", {
          headers: { cookie: cookies[s]! },
        });
        if (response.status !== 503 || attempt === 50) break;
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(
        response.status,
        200,
        `service resumed without restart: ${JSON.stringify(timeline)}`,
      );
      const { n } = await response.json();
      lostSessions += Math.max(0, acked[s] - n);
    }
    const resumedAt = performance.now();
    // A client of its own, made after the failover.
    const client = await createCluster({ rootNodes: cluster.rootNodes })
      .on("error", () => {}).connect();
    const stored = Number(await client.get(`rate_limit:fo:${limitKey}`) ?? 0);
    client.destroy();
    return {
      statuses,
      without_retry_after: withoutRetryAfter,
      unavailable_s: last503 === 0
        ? 0
        : Math.round((Math.min(last503, resumedAt) - killedAt) / 100) / 10,
      cluster_ok_s: Math.round((okMs + 0) / 100) / 10,
      lost_session_writes: lostSessions,
      lost_limit_counts: Math.max(0, allowed - stored),
      acknowledged,
      timeline,
    };
  } finally {
    stop = true;
    await Promise.all(servers.map((server) => server.stop()));
  }
}
