// The timeout middleware, and a server's health after handlers misbehave,
// over a real Deno.serve on loopback.
import assert from "node:assert/strict";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { timeout } from "@fetchkit/toolkit/timeout-middleware";

function listen(router: Router) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, onError: undefined },
    router.fetch,
  );
  return { base: `http://127.0.0.1:${server.addr.port}`, server };
}

Deno.test("a handler that never resolves is a 503 after ms; others are served meanwhile", async () => {
  const router = createRouter({ middleware: [timeout({ ms: 200 })] });
  router.get("/hang", () => new Promise<Response>(() => {}));
  router.get("/late-error", async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    throw new Error("too late to matter");
  });
  router.get("/fast", () => new Response("fast"));
  const { base, server } = listen(router);
  try {
    const started = performance.now();
    const hung = fetch(`${base}/hang`);
    // While /hang waits, other clients are answered at once.
    const fast = await fetch(`${base}/fast`);
    assert.equal(await fast.text(), "fast");
    assert.ok(performance.now() - started < 200, "served before the timeout");
    const response = await hung;
    assert.equal(response.status, 503);
    assert.equal(
      await response.text(),
      "Service Unavailable: the request took longer than 200 ms.",
    );
    assert.ok(performance.now() - started >= 190);
    // A handler failing after its 503 was sent is dropped, not unhandled.
    const late = await fetch(`${base}/late-error`);
    assert.equal(late.status, 503);
    await late.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(await (await fetch(`${base}/fast`)).text(), "fast");
  } finally {
    await server.shutdown();
  }
});

Deno.test("a response within ms passes through, errors too", async () => {
  const router = createRouter({
    middleware: [timeout({ ms: 1000, message: "slow" })],
  });
  router.get("/ok", () => new Response("ok", { status: 201 }));
  router.get("/boom", () => {
    throw new Error("boom");
  });
  const console_error = console.error;
  console.error = () => {};
  try {
    const ok = await router.fetch(new Request("http://x/ok"));
    assert.equal(ok.status, 201);
    const boom = await router.fetch(new Request("http://x/boom"));
    assert.equal(boom.status, 500);
  } finally {
    console.error = console_error;
  }
});

Deno.test("timeout() needs a positive ms", () => {
  for (const ms of [0, -1, NaN, Infinity, "5"]) {
    // @ts-expect-error: checking the run-time guard
    assert.throws(() => timeout({ ms }), TypeError, String(ms));
  }
});

Deno.test("an onError that throws: the client gets a 500, the server keeps serving", async () => {
  const router = createRouter({
    onError() {
      throw new Error("the error handler failed too");
    },
  });
  router.get("/boom", () => {
    throw new Error("boom");
  });
  router.get("/ok", () => new Response("ok"));
  const console_error = console.error;
  console.error = () => {};
  const { base, server } = listen(router);
  try {
    const boom = await fetch(`${base}/boom`);
    assert.equal(boom.status, 500);
    const body = await boom.text();
    assert.doesNotMatch(body, /boom|failed too|at /, "no error text leaks");
    assert.equal(await (await fetch(`${base}/ok`)).text(), "ok");
  } finally {
    console.error = console_error;
    await server.shutdown();
  }
});

Deno.test("a middleware calling next() after the response was sent gets an error; the server keeps serving", async () => {
  const late: unknown[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const router = createRouter({
    middleware: [(_context, next) => {
      setTimeout(async () => {
        try {
          await next();
          late.push("no error");
        } catch (error) {
          late.push(error);
        }
        done();
      }, 20);
      return new Response("sent");
    }],
  });
  router.get("/", () => new Response("handler"));
  const { base, server } = listen(router);
  try {
    assert.equal(await (await fetch(`${base}/`)).text(), "sent");
    await finished;
    assert.equal(late.length, 1);
    assert.ok(late[0] instanceof Error, String(late[0]));
    // Either the chain runs detached (its response goes nowhere) or the
    // router refuses; it must never reach the client or crash the server.
    assert.equal(await (await fetch(`${base}/`)).text(), "sent");
  } finally {
    await server.shutdown();
  }
});
