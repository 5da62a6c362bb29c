// waitUntil() through serve() on a real socket: runs on Deno, Node and
// Bun (the Node/Bun bundle of _tools/runtimes picks this file up).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { requestId } from "@fetchkit/toolkit/request-id-middleware";
import { serve } from "@fetchkit/toolkit/serve";
import { waitUntil, withExecutionContext } from "@fetchkit/toolkit/wait-until";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function app(shutdownTimeoutMs = 5000) {
  const events: string[] = [];
  const lines: string[] = [];
  const router = createRouter({ middleware: [requestId()] });
  router.get("/work/:ms", (context) => {
    const ms = Number(context.params.ms);
    waitUntil(
      context,
      delay(ms).then(() => {
        events.push(`done ${ms}`);
      }),
    );
    events.push("answered");
    return new Response("answered");
  });
  router.get("/fail", (context) => {
    waitUntil(
      context,
      delay(20).then(() => {
        throw new Error("the mail server is down");
      }),
    );
    return new Response("answered");
  });
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    shutdownTimeoutMs,
    log: (line) => lines.push(line),
  });
  return {
    server,
    base: `http://127.0.0.1:${server.addr.port}`,
    events,
    lines,
  };
}

Deno.test("waitUntil(): the answer does not wait for the work; shutdown does", async () => {
  const { server, base, events } = app();
  let stopped = false;
  try {
    const started = performance.now();
    const response = await fetch(`${base}/work/800`);
    assert.equal(await response.text(), "answered");
    const answeredAfter = performance.now() - started;
    assert.ok(
      answeredAfter < 700,
      `answered after ${answeredAfter.toFixed(0)} ms`,
    );
    assert.deepEqual(events, ["answered"], "the work is still running");
    const shutdownAt = performance.now();
    await server.shutdown();
    stopped = true;
    assert.deepEqual(events, ["answered", "done 800"]);
    assert.ok(
      performance.now() - shutdownAt > 300,
      "finished only after the work",
    );
  } finally {
    if (!stopped) await server.shutdown();
  }
});

Deno.test("waitUntil(): a shutdown cuts off work past shutdownTimeoutMs and logs it by request id", async () => {
  const { server, base, events, lines } = app(300);
  const response = await fetch(`${base}/work/2000`, {
    headers: { "X-Request-Id": "ignored-by-default" },
  });
  const id = response.headers.get("x-request-id");
  await response.body?.cancel();
  const shutdownAt = performance.now();
  await server.shutdown();
  const took = performance.now() - shutdownAt;
  assert.ok(took < 2000, `finished ${took.toFixed(0)} ms after the shutdown`);
  assert.deepEqual(events, ["answered"]);
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(
    lines[0]!,
    /cut off 1 piece\(s\) of work still running after 300 ms/,
  );
  assert.ok(lines[0]!.includes(`request ${id} (GET /work/2000)`), lines[0]);
});

Deno.test("waitUntil(): a rejected promise is logged with the request id, not unhandled; the server keeps serving", async () => {
  const { server, base, lines } = app();
  try {
    const response = await fetch(`${base}/fail`);
    const id = response.headers.get("x-request-id");
    assert.equal(await response.text(), "answered");
    for (let i = 0; i < 100 && lines.length === 0; i++) await delay(10);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      new RegExp(
        `^waitUntil: work for request ${id} \\(GET /fail\\) failed: Error: the mail server is down`,
      ),
    );
    assert.equal(
      await fetch(`${base}/work/0`).then((r) => r.text()),
      "answered",
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("waitUntil(): with two servers each waits for its own requests' work", async () => {
  const one = app();
  const two = app();
  try {
    await (await fetch(`${one.base}/work/600`)).text();
    await (await fetch(`${two.base}/work/10`)).text();
    await two.server.shutdown();
    assert.deepEqual(two.events, ["answered", "done 10"]);
    assert.deepEqual(one.events, ["answered"], "one's work is not two's");
  } finally {
    await one.server.shutdown();
    await two.server.shutdown();
  }
  assert.deepEqual(one.events, ["answered", "done 600"]);
});

Deno.test("withExecutionContext(): work goes to the Workers execution context's waitUntil", async () => {
  const handed: Promise<unknown>[] = [];
  const router = createRouter();
  router.get("/", (context) => {
    waitUntil(context, Promise.reject(new Error("logged, not thrown")));
    waitUntil(context, Promise.resolve("kept"));
    return new Response("ok");
  });
  const fetch = withExecutionContext(router.fetch);
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
  try {
    const response = await fetch(new Request("http://localhost/"), {}, {
      waitUntil: (promise) => handed.push(promise),
    });
    assert.equal(await response.text(), "ok");
    assert.equal(handed.length, 2);
    await Promise.all(handed); // neither rejects
  } finally {
    console.error = original;
  }
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /failed: Error: logged, not thrown/);
});

Deno.test("waitUntil(): something other than a promise is a TypeError naming it", () => {
  assert.throws(
    () =>
      waitUntil(
        new Request("http://localhost/"),
        (() => Promise.resolve()) as unknown as Promise<void>,
      ),
    /pass the work as a promise \(call the async function\), got function/,
  );
});
