// The rolling restart of restart_test.ts with Node server instances: app1
// and app3 run instance.ts bundled for Node 20 (node_bundle.ts), app2 on
// Deno beside them, on the one Redis and the one KV file. The same load
// and checks (_test_restart.ts): 0 failed requests, no session lost,
// every live client resumes with no message missed, every old instance
// exits 0. Before the load: a user registered on a Deno instance signs in
// on a Node one, and the other way round, and each session holds on the
// other runtime (the users' bcrypt hashes and KV records are shared).
// DEPLOY_RUNTIMES=node runs all three on Node (BENCHMARKS.md quotes both).
// Needs node, haproxy and redis-server, and _tools/runtimes/node_modules
// (installed by _tools/runtimes/install.sh when missing); skipped with a
// notice without them, unless CI or TOOLKIT_REQUIRE_ALL is set.
import assert from "node:assert/strict";
import {
  missingProgram,
  nodeModulesReady,
  rollingRestartUnderLoad,
} from "./_test_restart.ts";
import { type Deployment, parseRuntimes } from "./main.ts";

const skip = await missingProgram(
      ["node", "haproxy", "redis-server"],
      "the rolling restart on Node",
    ) !== undefined || !await nodeModulesReady("the rolling restart on Node");

/** Registers on one instance, signs in on another, checks the session on a third. */
async function acrossRuntimes(
  deployment: Deployment,
  [register, signIn, check]: readonly string[],
): Promise<void> {
  const at = (name: string) => {
    const instance = deployment.instances.find((i) => i.name === name)!;
    return `http://127.0.0.1:${instance.port}`;
  };
  const email = `${register}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const headers = {
    "sec-fetch-site": "same-origin",
    "content-type": "application/x-www-form-urlencoded",
  };
  const form = (fields: Record<string, string>) =>
    new URLSearchParams(fields).toString();
  const registered = await fetch(`${at(register!)}/auth/register`, {
    method: "POST",
    headers,
    body: form({ email, password: "correct horse", name: "Across" }),
    redirect: "manual",
  });
  await registered.body?.cancel();
  assert.equal(registered.status, 303, `registered on ${register}`);
  const signedIn = await fetch(`${at(signIn!)}/auth/login`, {
    method: "POST",
    headers,
    body: form({ email, password: "correct horse" }),
    redirect: "manual",
  });
  await signedIn.body?.cancel();
  assert.equal(
    signedIn.headers.get("location"),
    "/dashboard",
    `${register}'s user signed in on ${signIn}`,
  );
  const cookie = signedIn.headers.getSetCookie().map((line) =>
    line.split(";")[0]
  ).join("; ");
  const dashboard = await fetch(`${at(check!)}/dashboard`, {
    headers: { cookie },
    redirect: "manual",
  });
  const page = await dashboard.text();
  assert.equal(dashboard.status, 200, `${signIn}'s session holds on ${check}`);
  assert.match(page, new RegExp(email.replace(/[.+]/g, "\\$&")));
}

Deno.test({
  name:
    "rolling restart behind HAProxy with Node instances (beside a Deno one): 0 failed requests, no session lost, every live client resumes with no message missed",
  ignore: skip,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await rollingRestartUnderLoad({
      runtimes: parseRuntimes(
        Deno.env.get("DEPLOY_RUNTIMES") ?? "node,deno,node",
      ),
      async before(deployment) {
        // By default app2 is Deno; app1 and app3 are Node.
        await acrossRuntimes(deployment, ["app2", "app1", "app2"]);
        await acrossRuntimes(deployment, ["app3", "app2", "app1"]);
      },
    });
  },
});
