// The rolling restart under load and its checks, shared by restart_test.ts
// (Deno instances) and restart_node_test.ts (Node instances beside a Deno
// one): a deployment through HAProxy for real, a steady bounded load
// (load.ts), all three instances replaced one at a time, then the checks:
// no request failed, every old instance exited 0, every event stream and
// WebSocket reconnected and got every message posted, and an instance
// logged the client's own address (trustProxy).
import assert from "node:assert/strict";
import { findExecutable } from "../../_tools/redis.ts";
import { dependencies } from "../../_tools/runtimes/binaries.ts";
import { type Deployment, type Runtime, startDeployment } from "./main.ts";
import { type Load, quantile, startLoad } from "./load.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The first of `programs` not on PATH (after a one-line notice naming
 * `what` is skipped), or `undefined`; throws instead under `CI` or
 * `TOOLKIT_REQUIRE_ALL`.
 */
export async function missingProgram(
  programs: readonly string[],
  what: string,
): Promise<string | undefined> {
  for (const name of programs) {
    if (await findExecutable(name) !== undefined) continue;
    if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
      throw new Error(
        `${name} is not installed, and CI or TOOLKIT_REQUIRE_ALL is set`,
      );
    }
    console.log(`skipping ${what}: ${name} is not installed`);
    return name;
  }
  return undefined;
}

/**
 * Whether `_tools/runtimes/node_modules` (`@deno/kv`, `bcrypt`, the Node
 * adapter) is there or could be installed; else a one-line notice naming
 * `what` is skipped, or an error under `CI` or `TOOLKIT_REQUIRE_ALL`.
 */
export async function nodeModulesReady(what: string): Promise<boolean> {
  if (await dependencies()) return true;
  const problem =
    "_tools/runtimes/node_modules is missing and install.sh failed (npm or the registry unreachable?)";
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(`${problem}, and CI or TOOLKIT_REQUIRE_ALL is set`);
  }
  console.log(`skipping ${what}: ${problem}`);
  return false;
}

/** What one rolling restart under load measured. */
export interface RestartRun {
  requests: number;
  duringRestart: number;
  failed: number;
  p99SteadyMs: number;
  p99DuringMs: number;
  messages: number;
  wsResumeMedianMs: number;
  wsResumeMaxMs: number;
  sseResumeMedianMs: number;
  sseResumeMaxMs: number;
  restartMs: number;
}

/** Options of {@linkcode rollingRestartUnderLoad}. */
export interface RollingRestartOptions {
  /** What runs app1, app2, app3. Default: Deno for all three. */
  runtimes?: readonly Runtime[];
  /** Runs after the deployment is up, before the load starts. */
  before?: (deployment: Deployment) => Promise<void>;
}

/**
 * Deploys, loads, restarts every instance, and asserts the checks above;
 * prints and returns the figures (BENCHMARKS.md quotes them).
 */
export async function rollingRestartUnderLoad(
  options: RollingRestartOptions = {},
): Promise<RestartRun> {
  const began = performance.now();
  const phase = (name: string) =>
    console.log(`${name} at ${Math.round(performance.now() - began)} ms`);
  // Logs stay in this folder when the test fails.
  const dir = await Deno.makeTempDir({ prefix: "deploy-test-" });
  let passed = false;
  const deployment = await startDeployment({
    dir,
    runtimes: options.runtimes,
    drainMs: 1500,
    env: {
      BCRYPT_COST: "4",
      POSTS_PER_MINUTE: "100000",
      STREAMS_PER_ADDRESS: "1000",
    },
  });
  try {
    await checkTrustProxy(deployment);
    await options.before?.(deployment);

    phase("deployed");
    const load = await startLoad(deployment.url, { clients: 4 });
    phase("load started");
    await delay(3000);
    const restartStart = performance.now();
    // Each step with its time (out of rotation, exited, listening, back).
    const steps = await deployment.restart((line) => console.log(line));
    const restartEnd = performance.now();
    await delay(2000);
    phase("restarted");
    await load.stop();
    phase("load stopped");
    const settled = await load.settle(20_000);
    phase("settled");
    await load.close();
    phase("closed");

    const run = measure(load, restartStart, restartEnd);
    const fmt = (n: number) => n.toFixed(1);
    console.log(
      `requests ${run.requests} (${run.duringRestart} during the restart), failed ${run.failed}; ` +
        `p99 steady ${fmt(run.p99SteadyMs)} ms, during the restart ${
          fmt(run.p99DuringMs)
        } ms; messages ${run.messages}; ` +
        `WebSocket resume median ${fmt(run.wsResumeMedianMs)} ms, max ${
          fmt(run.wsResumeMaxMs)
        } ms; event stream resume median ${
          fmt(run.sseResumeMedianMs)
        } ms, max ${fmt(run.sseResumeMaxMs)} ms; ` +
        `restart ${Math.round(run.restartMs)} ms; ` +
        `sign-ups tried again after a 503 of the shared KV file: ${load.setupRetries}`,
    );

    assert.deepEqual(
      load.samples.filter((s) => s.failure !== undefined).map((s) =>
        `${s.what}: ${s.failure}`
      ),
      [],
      "no request failed",
    );
    assert.ok(
      run.duringRestart > 50,
      `${run.duringRestart} requests during the restart`,
    );
    for (const step of steps) {
      assert.equal(step.exitCode, 0, `${step.name} exited with code 0`);
    }
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
      deployment.instances.map(({ name }) =>
        Deno.readTextFile(`${deployment.dir}/${name}.log`)
      ),
    );
    assert.match(
      logs.join("\n"),
      / 127\.0\.0\.7 \S+ GET \/\?probe=trust-proxy 200 /,
      "the instance logged the client's address",
    );
    passed = true;
    return run;
  } finally {
    await deployment.stop();
    if (passed) await Deno.remove(dir, { recursive: true });
    else console.log(`logs: ${dir}`);
  }
}

/**
 * Sends a request from 127.0.0.7 (the instance logs it, `trustProxy`),
 * and checks that HAProxy refuses `/metrics` to visitors.
 */
async function checkTrustProxy(deployment: Deployment): Promise<void> {
  const client = Deno.createHttpClient({ localAddress: "127.0.0.7" });
  const probe = await fetch(`${deployment.url}/?probe=trust-proxy`, {
    client,
  });
  await probe.body?.cancel();
  client.close();
  const metrics = await fetch(`${deployment.url}/metrics`);
  assert.equal(metrics.status, 404);
  await metrics.body?.cancel();
}

function measure(
  load: Load,
  restartStart: number,
  restartEnd: number,
): RestartRun {
  const during = load.samples.filter((s) =>
    s.at >= restartStart && s.at <= restartEnd
  );
  const steady = load.samples.filter((s) => s.at < restartStart);
  const resumes = (kind: "ws" | "sse") =>
    load.live.filter((r) => r.kind === kind).flatMap((r) => r.resumes);
  const ws = resumes("ws");
  const sse = resumes("sse");
  return {
    requests: load.samples.length,
    duringRestart: during.length,
    failed: load.samples.filter((s) => s.failure !== undefined).length,
    p99SteadyMs: quantile(steady.map((s) => s.ms), 0.99),
    p99DuringMs: quantile(during.map((s) => s.ms), 0.99),
    messages: load.posted.length,
    wsResumeMedianMs: quantile(ws, 0.5),
    wsResumeMaxMs: Math.max(...ws),
    sseResumeMedianMs: quantile(sse, 0.5),
    sseResumeMaxMs: Math.max(...sse),
    restartMs: restartEnd - restartStart,
  };
}
