// waitUntil() behind middleware that hands the chain a copy of the request
// (bodyLimit(), methodOverride()): the work still reaches the Workers
// execution context, and with two serve() servers in one process the one
// that took the request waits for it. And a client's raw X-Request-Id is
// never copied into the failure log unless requestId() would accept it.
// Portable: runs on Deno, Node and Bun.
import assert from "node:assert/strict";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { bodyLimit } from "@fetchkit/toolkit/body-limit-middleware";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
import { serve } from "@fetchkit/toolkit/serve";
import { waitUntil, withExecutionContext } from "@fetchkit/toolkit/wait-until";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const COPIERS: [string, () => Middleware][] = [
  ["bodyLimit()", () => bodyLimit({ maxBytes: 1024 })],
  ["methodOverride()", () => methodOverride()],
];

function form(url: string, fields: Record<string, string> = { a: "1" }) {
  return new Request(url, {
    method: "POST",
    body: new URLSearchParams(fields),
  });
}

for (const [name, copier] of COPIERS) {
  Deno.test(`withExecutionContext(): work behind ${name} reaches ctx.waitUntil()`, async () => {
    const router = createRouter({ middleware: [copier()] });
    let copied = false;
    router.post("/", async (context) => {
      copied = true;
      await context.request.text();
      waitUntil(context, Promise.resolve("kept"));
      return new Response("ok");
    });
    const handed: Promise<unknown>[] = [];
    const fetch = withExecutionContext(router.fetch);
    const response = await fetch(form("http://localhost/"), {}, {
      waitUntil: (promise) => handed.push(promise),
    });
    assert.equal(await response.text(), "ok");
    assert.ok(copied);
    assert.equal(handed.length, 1, "the work went to the execution context");
  });

  Deno.test(`waitUntil(): with two serve() servers, work behind ${name} is waited for by the server that took it`, async () => {
    const apps = [0, 1].map(() => {
      const events: string[] = [];
      const router = createRouter({ middleware: [copier()] });
      router.post("/work/:ms", async (context) => {
        await context.request.text();
        const ms = Number(context.params.ms);
        waitUntil(context, delay(ms).then(() => events.push(`done ${ms}`)));
        return new Response("answered");
      });
      const server = serve(router.fetch, {
        hostname: "127.0.0.1",
        port: 0,
        handleSignals: false,
        shutdownTimeoutMs: 5000,
      });
      return { server, events, base: `http://127.0.0.1:${server.addr.port}` };
    });
    const [one, two] = apps;
    try {
      const response = await fetch(form(`${one.base}/work/500`));
      assert.equal(await response.text(), "answered");
      // The first server took the request: its shutdown waits for the work.
      await one.server.shutdown();
      assert.deepEqual(one.events, ["done 500"]);
    } finally {
      await one.server.shutdown();
      await two.server.shutdown();
    }
  });
}

Deno.test("waitUntil(): a client's raw X-Request-Id (4,070 characters, quotes and text) is not copied into the failure log", async () => {
  const lines: string[] = [];
  const router = createRouter();
  router.get("/fail", (context) => {
    waitUntil(context, Promise.reject(new Error("the mail server is down")));
    return new Response("answered");
  });
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    log: (line) => lines.push(line),
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const forged = `"x" ` + "a".repeat(4002) +
    ` waitUntil: work for request admin (GET /admin) failed: "forged"`;
  try {
    for (const id of [forged, "safe-id-123", "x".repeat(256)]) {
      const response = await fetch(`${base}/fail`, {
        headers: { "X-Request-Id": id },
      });
      await response.text();
    }
    for (let i = 0; i < 100 && lines.length < 3; i++) await delay(10);
  } finally {
    await server.shutdown();
  }
  assert.equal(lines.length, 3, lines.join("\n"));
  assert.ok(forged.length >= 4070);
  assert.ok(!lines[0].includes("aaaa"), lines[0].slice(0, 200));
  assert.ok(!lines[0].includes("forged"), lines[0].slice(0, 200));
  assert.match(lines[0], /^waitUntil: work for #\d+ \(GET \/fail\) failed/);
  // An id requestId() would reuse is still named.
  assert.match(
    lines[1],
    /^waitUntil: work for request safe-id-123 \(GET \/fail\)/,
  );
  // Past requestId()'s 255 characters: not named either.
  assert.match(lines[2], /^waitUntil: work for #\d+ \(GET \/fail\)/);
});
