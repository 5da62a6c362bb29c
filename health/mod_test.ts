import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createHealthCheck } from "@fetchkit/toolkit/health";
import { isDraining, onDrain, serve } from "@fetchkit/toolkit/serve";

const quiet = () => {};

Deno.test("health: a hanging check makes ready 503 within timeoutMs; live never waits", async () => {
  let calls = 0;
  const health = createHealthCheck({
    checks: {
      store: () => Promise.resolve("PONG"),
      hanging: () => {
        calls++;
        return new Promise(() => {});
      },
    },
    timeoutMs: 200,
    onError: quiet,
  });
  const router = createRouter();
  router.get("/livez", health.live);
  router.get("/readyz", health.ready);
  const started = performance.now();
  const ready = router.fetch(new Request("http://localhost/readyz"));
  const second = router.fetch(new Request("http://localhost/readyz"));
  const live = await router.fetch(new Request("http://localhost/livez"));
  assert.ok(performance.now() - started < 100, "live answered at once");
  assert.equal(live.status, 200);
  assert.deepEqual(await live.json(), { status: "ok" });
  const response = await ready;
  const took = performance.now() - started;
  assert.ok(took >= 190 && took < 1000, `ready took ${took} ms`);
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("cache-control"), "no-store");
  const body = await response.json();
  assert.equal(body.status, "failed");
  assert.deepEqual(body.failed, ["hanging"]);
  assert.equal(body.checks.hanging.status, "timeout");
  assert.equal(body.checks.store.status, "ok");
  assert.equal((await second).status, 503);
  assert.equal(calls, 1, "concurrent probes share one run");
});

Deno.test("health: checks run in parallel; a failing one is named, its message not sent", async () => {
  const errors: string[] = [];
  const slow = () => new Promise((resolve) => setTimeout(resolve, 150));
  const health = createHealthCheck({
    checks: {
      a: slow,
      b: slow,
      c: slow,
      db: () => Promise.reject(new Error("password=hunter2 at db.internal")),
      sync: () => {
        throw new Error("thrown at once");
      },
    },
    onError: (name, error) =>
      errors.push(`${name}: ${(error as Error).message}`),
  });
  const started = performance.now();
  const response = await health.ready(new Request("http://localhost/readyz"));
  assert.ok(performance.now() - started < 400, "in parallel");
  assert.equal(response.status, 503);
  const text = await response.text();
  assert.ok(!text.includes("hunter2"));
  const body = JSON.parse(text);
  assert.deepEqual(body.failed, ["db", "sync"]);
  assert.equal(body.checks.a.status, "ok");
  assert.deepEqual(errors.sort(), [
    "db: password=hunter2 at db.internal",
    "sync: thrown at once",
  ]);
});

Deno.test("health: 200 with every check's result", async () => {
  const health = createHealthCheck({ checks: { store: async () => {} } });
  const response = await health.ready();
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.status, "ok");
  assert.equal(body.checks.store.status, "ok");
  assert.equal(typeof body.checks.store.ms, "number");
  assert.throws(() => createHealthCheck({ timeoutMs: 0 }), /timeoutMs/);
  assert.throws(
    () =>
      createHealthCheck({
        checks: { x: "nope" as unknown as () => Promise<void> },
      }),
    /check "x" must be a function/,
  );
});

Deno.test("health: ready is 503 draining from the start of serve()'s shutdown, while the listener still serves for drainMs", async () => {
  const health = createHealthCheck({ checks: { store: async () => {} } });
  const router = createRouter();
  router.get("/livez", health.live);
  router.get("/readyz", health.ready);
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    drainMs: 400,
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  assert.equal(isDraining(), false);
  const before = await fetch(`${origin}/readyz`);
  assert.equal(before.status, 200);
  await before.body?.cancel();
  let told = 0;
  onDrain(() => told++);
  const started = performance.now();
  const finished = server.shutdown();
  assert.equal(isDraining(), true);
  assert.equal(told, 1);
  const ready = await fetch(`${origin}/readyz`);
  assert.equal(ready.status, 503);
  assert.deepEqual(await ready.json(), { status: "draining" });
  const live = await fetch(`${origin}/livez`);
  assert.equal(live.status, 200);
  await live.body?.cancel();
  await finished;
  assert.ok(performance.now() - started >= 380, "served for drainMs");
  await assert.rejects(fetch(`${origin}/livez`));
  // A new server: the process serves again.
  const next = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  assert.equal(isDraining(), false);
  await next.shutdown();
  // The last server closed: nothing is draining any more (a readiness
  // check of this process, or the next serve(), starts afresh).
  assert.equal(isDraining(), false);
});

Deno.test("serve(): drainMs must be a number of ms >= 0", () => {
  assert.throws(
    () => serve(() => new Response(), { drainMs: -1, port: 0 }),
    /drainMs must be a number of ms >= 0, got -1/,
  );
});
