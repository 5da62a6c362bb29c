// The auth app's /livez, /readyz and /metrics, and its sign-in counts.
import assert from "node:assert/strict";
import { createMetricsRegistry } from "@fetchkit/toolkit/metrics";
import { createApp } from "./app.ts";
import { createSessionStorage } from "./sessions.ts";
import { Client, SECRET } from "./_test_app.ts";

async function opsApp(checks?: Record<string, () => Promise<unknown>>) {
  const kv = await Deno.openKv(":memory:");
  const registry = createMetricsRegistry();
  const app = await createApp({
    kv,
    sessions: createSessionStorage({
      kind: "kv",
      kv,
      secrets: [SECRET],
      secure: false,
    }),
    bcryptCost: 4,
    log: null,
    healthChecks: checks,
    metricsRegistry: registry,
  });
  return {
    app,
    registry,
    close() {
      registry.close();
      kv.close();
    },
  };
}

Deno.test("auth app: /livez and /readyz (the KV store), no session, no log", async () => {
  const { app, close } = await opsApp();
  const client = new Client(app, "127.0.0.1");
  const live = await client.get("/livez");
  assert.equal(live.status, 200);
  assert.deepEqual(await live.json(), { status: "ok" });
  assert.equal(live.headers.get("set-cookie"), null);
  const ready = await client.get("/readyz");
  assert.equal(ready.status, 200);
  const body = await ready.json();
  assert.equal(body.status, "ok");
  assert.equal(body.checks.kv.status, "ok");
  close();
});

Deno.test("auth app: /readyz is 503 naming a store that fails", async () => {
  const { app, close } = await opsApp({
    redis: () => Promise.reject(new Error("ECONNREFUSED")),
  });
  const errors = console.error;
  console.error = () => {};
  try {
    const ready = await new Client(app, "127.0.0.1").get("/readyz");
    assert.equal(ready.status, 503);
    assert.deepEqual((await ready.json()).failed, ["redis"]);
  } finally {
    console.error = errors;
    close();
  }
});

Deno.test("auth app: /metrics counts requests by route, sign-ins by method and failures by reason; only for loopback clients", async () => {
  const { app, close } = await opsApp();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  await client.get("/auth/login");
  await client.login("ada@example.com", "wrong-password");
  await client.login("nobody@example.com", "wrong-password");
  await client.login("ada@example.com", "correct horse");
  await client.get("/dashboard");

  assert.equal((await new Client(app, "10.9.9.9").get("/metrics")).status, 404);
  const response = await new Client(app, "127.0.0.1").get("/metrics");
  assert.equal(response.status, 200);
  const text = await response.text();
  const has = (line: string) => assert.ok(text.includes(line + "\n"), line);
  has('auth_sign_ins_total{method="register"} 1');
  has('auth_sign_ins_total{method="password"} 1');
  has(
    'auth_sign_in_failures_total{method="password",reason="bad_credentials"} 2',
  );
  has('http_requests_total{method="POST",route="/auth/login",status="303"} 3');
  has('http_requests_total{method="GET",route="/dashboard",status="200"} 1');
  has('http_requests_total{method="GET",route="/metrics",status="404"} 1');
  assert.match(text, /^store_operations_total\{store="Deno KV",.*\} \d+$/m);
  has('auth_jobs{state="dead"} 0');
  assert.match(text, /^auth_jobs\{state="waiting"\} \d+$/m);
  // The registration's verification mail, sent by the on-demand worker,
  // is counted by outcome once its attempt ends.
  const sent = 'auth_jobs_total{name="mail",outcome="done"} 1\n';
  let scraped = text;
  const deadline = Date.now() + 5000;
  while (!scraped.includes(sent) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    scraped = await (await new Client(app, "127.0.0.1").get("/metrics"))
      .text();
  }
  assert.ok(scraped.includes(sent), sent);
  close();
});
