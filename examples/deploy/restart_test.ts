// The rolling restart through HAProxy for real: three instances of the
// auth app (with the live board) on Redis, a steady bounded load (GETs,
// sign-ins, form posts, an event stream and a WebSocket per client), and
// every instance replaced one at a time. No request fails, no session is
// lost, and every stream and socket reconnects and gets every message.
// Needs Debian's haproxy and redis-server; skipped with a notice without
// them, unless CI or TOOLKIT_REQUIRE_ALL is set.
import assert from "node:assert/strict";
import { findExecutable } from "../../_tools/redis.ts";
import { startDeployment } from "./main.ts";
import { quantile, startLoad } from "./load.ts";

async function missing(): Promise<string | undefined> {
  for (const name of ["haproxy", "redis-server"]) {
    if (await findExecutable(name) !== undefined) continue;
    if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
      throw new Error(
        `${name} is not installed, and CI or TOOLKIT_REQUIRE_ALL is set`,
      );
    }
    console.log(`skipping the rolling restart: ${name} is not installed`);
    return name;
  }
  return undefined;
}

const skip = await missing() !== undefined;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test({
  name:
    "rolling restart behind HAProxy: 0 failed requests, no session lost, every live client resumes with no message missed",
  ignore: skip,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const began = performance.now();
    const phase = (name: string) =>
      console.log(`${name} at ${Math.round(performance.now() - began)} ms`);
    // Logs stay in this folder when the test fails.
    const dir = await Deno.makeTempDir({ prefix: "deploy-test-" });
    let passed = false;
    const deployment = await startDeployment({
      dir,
      drainMs: 1500,
      env: {
        BCRYPT_COST: "4",
        POSTS_PER_MINUTE: "100000",
        STREAMS_PER_ADDRESS: "1000",
      },
    });
    try {
      // trustProxy: the instances see the client HAProxy saw, not HAProxy.
      const client = Deno.createHttpClient({ localAddress: "127.0.0.7" });
      const probe = await fetch(`${deployment.url}/?probe=trust-proxy`, {
        client,
      });
      await probe.body?.cancel();
      client.close();
      // /metrics is not for visitors through the proxy.
      const metrics = await fetch(`${deployment.url}/metrics`);
      assert.equal(metrics.status, 404);
      await metrics.body?.cancel();

      phase("deployed");
      const load = await startLoad(deployment.url, { clients: 4 });
      phase("load started");
      await delay(3000);
      const restartStart = performance.now();
      const steps = await deployment.restart();
      const restartEnd = performance.now();
      await delay(2000);
      phase("restarted");
      await load.stop();
      phase("load stopped");
      const settled = await load.settle(20_000);
      phase("settled");
      await load.close();
      phase("closed");

      const failures = load.samples.filter((s) => s.failure !== undefined);
      const during = load.samples.filter((s) =>
        s.at >= restartStart && s.at <= restartEnd
      );
      const steady = load.samples.filter((s) => s.at < restartStart);
      const resumes = load.live.filter((r) => r.kind === "ws").flatMap((r) =>
        r.resumes
      );
      const sseResumes = load.live.filter((r) => r.kind === "sse").flatMap((
        r,
      ) => r.resumes);
      const fmt = (n: number) => n.toFixed(1);
      console.log(
        `requests ${load.samples.length} (${during.length} during the restart), failed ${failures.length}; ` +
          `p99 steady ${
            fmt(quantile(steady.map((s) => s.ms), 0.99))
          } ms, during the restart ${
            fmt(quantile(during.map((s) => s.ms), 0.99))
          } ms; messages ${load.posted.length}; ` +
          `WebSocket resume median ${fmt(quantile(resumes, 0.5))} ms, max ${
            fmt(Math.max(...resumes))
          } ms (${resumes.length}); event stream resume median ${
            fmt(quantile(sseResumes, 0.5))
          } ms, max ${
            fmt(Math.max(...sseResumes))
          } ms (${sseResumes.length}); ` +
          `restart ${Math.round(restartEnd - restartStart)} ms; ` +
          `sign-ups tried again after a 503 of the shared KV file: ${load.setupRetries}`,
      );

      assert.deepEqual(
        failures.map((s) => `${s.what}: ${s.failure}`),
        [],
        "no request failed",
      );
      assert.ok(
        during.length > 50,
        `${during.length} requests during the restart`,
      );
      for (const step of steps) assert.equal(step.exitCode, 0, step.name);
      assert.ok(load.posted.length > 20, `${load.posted.length} posts`);
      for (const record of load.live) {
        const label = `client ${record.client} ${record.kind}`;
        assert.deepEqual(record.failures, [], label);
        assert.ok(
          record.connections >= 2,
          `${label} reconnected (${record.connections} connections)`,
        );
        const seen = new Set(record.ids);
        const missed = load.posted.filter((id) => !seen.has(id));
        assert.deepEqual(missed, [], `${label} missed no message`);
      }
      assert.ok(settled);
      const logs = await Promise.all(
        ["app1", "app2", "app3"].map((name) =>
          Deno.readTextFile(`${deployment.dir}/${name}.log`)
        ),
      );
      assert.match(
        logs.join("\n"),
        / 127\.0\.0\.7 \S+ GET \/\?probe=trust-proxy 200 /,
        "the instance logged the client's address",
      );
      passed = true;
    } finally {
      await deployment.stop();
      if (passed) await Deno.remove(dir, { recursive: true });
      else console.log(`logs: ${dir}`);
    }
  },
});
