// Handler faults on a real server: a handler that throws or never
// resolves, an onError that throws, a middleware that calls next() after
// its response was sent. The server stays healthy throughout.

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { timeout } from "@fetchkit/toolkit/timeout-middleware";
import { quietErrors } from "../_tools/console.ts";
import { rawGet } from "../_tools/raw_http.ts";

async function get(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, text: await response.text() };
}

Deno.test("timeout(): a handler that never resolves gets a 503, others are served", async () => {
  using logs = quietErrors();
  let lateRejections = 0;
  const router = createRouter({ middleware: [timeout(100)] });
  router.get("/hang", () => new Promise<Response>(() => {}));
  router.get("/late-throw", async () => {
    await new Promise((r) => setTimeout(r, 150));
    lateRejections++;
    throw new Error("late failure");
  });
  router.get("/fast", () => new Response("fast"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    const port = server.addr.port;
    const started = performance.now();
    const [hang, fast] = await Promise.all([
      get(port, "/hang"),
      get(port, "/fast"),
    ]);
    assert.equal(hang.status, 503);
    assert.equal(hang.text, "Service Unavailable: the request took too long.");
    assert.ok(performance.now() - started < 3000);
    assert.deepEqual(fast, { status: 200, text: "fast" });
    // A handler failing after its answer: logged, no unhandled rejection.
    assert.equal((await get(port, "/late-throw")).status, 503);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(lateRejections, 1);
    assert.ok(
      logs.errors.some((e) => String(e).includes("late failure")),
      "the late error is logged",
    );
    assert.equal((await get(port, "/fast")).status, 200);
  } finally {
    await server.shutdown();
  }
});

Deno.test("timeout(): a late failure on a Host that URL refuses is logged by its path as sent", async () => {
  using logs = quietErrors();
  let failed = false;
  const router = createRouter({ middleware: [timeout(50)] });
  router.get("/late-throw", async () => {
    await new Promise((r) => setTimeout(r, 100));
    failed = true;
    throw new Error("late failure");
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    // new URL() throws on "http://a b/late-throw": the log line must not
    // read context.url, or its own rejection would go unhandled.
    const { text } = await rawGet(server.addr.port, "/late-throw", {
      host: "a b",
    });
    assert.match(text, /^HTTP\/1\.1 503 /);
    while (!failed) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      logs.errors.some((e) => String(e).includes("GET /late-throw failed")),
      `logged: ${logs.errors.map(String).join("; ")}`,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("timeout(): 504 on request, and bad arguments are TypeErrors", async () => {
  const router = createRouter({
    middleware: [timeout(20, { status: 504, message: "upstream slow" })],
  });
  router.get("/", () => new Promise<Response>(() => {}));
  const response = await router.fetch(new Request("http://localhost/"));
  assert.equal(response.status, 504);
  assert.equal(await response.text(), "upstream slow");
  for (const ms of [0, -1, NaN, Infinity]) {
    assert.throws(() => timeout(ms), TypeError);
  }
  // @ts-expect-error: checking the run-time guard
  assert.throws(() => timeout(10, { status: 500 }), TypeError);
});

Deno.test("faults: throwing handler, throwing onError, next() after the response", async () => {
  using logs = quietErrors();
  const nextErrors: unknown[] = [];
  const router = createRouter({
    onError: (error) => {
      if (String(error).includes("onError too")) {
        throw new Error("onError threw");
      }
      return new Response("handled", { status: 500 });
    },
    middleware: [
      (context, next) => {
        if (context.url.pathname !== "/early") return next();
        // Answers first, then calls next() once the response is out.
        setTimeout(async () => {
          try {
            await next();
          } catch (error) {
            nextErrors.push(error);
          }
        }, 10);
        return new Response("early");
      },
    ],
  });
  router.get("/throws", () => {
    throw new Error("boom");
  });
  router.get("/throws-both", () => {
    throw new Error("onError too");
  });
  router.get("/early", () => new Response("handler"));
  router.get("/ok", () => new Response("ok"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    const port = server.addr.port;
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(await get(port, "/throws"), {
        status: 500,
        text: "handled",
      });
      const both = await get(port, "/throws-both");
      assert.equal(both.status, 500);
      assert.doesNotMatch(both.text, /onError threw|at /, "no stack trace");
      assert.deepEqual(await get(port, "/early"), {
        status: 200,
        text: "early",
      });
      assert.deepEqual(await get(port, "/ok"), { status: 200, text: "ok" });
    }
    await new Promise((r) => setTimeout(r, 50));
    // next() after the response ran the handler harmlessly or threw into
    // the middleware's own catch; either way nothing escaped.
    assert.ok(nextErrors.length <= 3);
    assert.ok(logs.errors.length >= 3, "onError's failure is logged");
  } finally {
    await server.shutdown();
  }
});
