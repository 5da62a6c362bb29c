// Redis Cluster failover under load (Valkey with REDIS_SERVER=valkey-
// server): two server processes write sessions and count a limit on a
// 3+3 cluster; the master of the limit's key is SIGKILLed. Requests in the
// gap get 503 with Retry-After (never a 500, never a 200 that was not
// counted); the replica takes over and service resumes without a restart.
// Acknowledged writes the replica had not received are measured (Redis
// replicates asynchronously) and printed.
import assert from "node:assert/strict";
import {
  clusterToolsOrSkip,
  startRedisCluster,
} from "../_tools/redis_cluster.ts";
import { runFailover } from "./_test_failover.ts";

const tools = await clusterToolsOrSkip();

Deno.test({
  name:
    "Redis Cluster: a master SIGKILLed under load from two processes: 503 + Retry-After in the gap, never a 500; the replica takes over and service resumes",
  ignore: tools === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startRedisCluster(tools!, { nodeTimeoutMs: 1000 });
    try {
      const report = await runFailover(cluster);
      console.log(`failover: ${JSON.stringify(report)}`);
      assert.equal(report.statuses[500] ?? 0, 0, "no 500");
      assert.deepEqual(
        Object.keys(report.statuses).filter((s) => s !== "200" && s !== "503"),
        [],
        "only 200 and 503",
      );
      assert.ok((report.statuses[503] ?? 0) > 0, "the gap was met");
      assert.equal(report.without_retry_after, 0);
      // Every 503 came within the failover (node timeout, election) and
      // the stores' 5 s timeout, not after.
      assert.ok(
        report.unavailable_s < report.cluster_ok_s + 6,
        `503s for ${report.unavailable_s} s, cluster ok after ${report.cluster_ok_s} s`,
      );
    } finally {
      await cluster.stop();
    }
  },
});
