// Deno-only: idempotency() and cache() behind a real Deno.serve, in a
// process of its own, print nothing. Deno warns once per process
// ("Deno.serve: request.signal aborts on successful responses (legacy
// behavior)") when a request's signal is read, as request.clone() does:
// run in this test process, the warning would show in the output and fail
// nothing, so the server runs as a child and its stderr must stay empty.

import assert from "node:assert/strict";

const SERVER = `
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { cache, createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
const store = createMemoryCacheStore();
const router = createRouter();
router.post("/orders", idempotency({ store }), async ({ request }) =>
  new Response("order " + (await request.text()), { status: 201 }));
router.get("/page", cache({ store }), () => new Response("page"));
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen({ port }) {
  console.log("port " + port);
} }, router.fetch);
await server.finished;
`;

Deno.test("idempotency() and cache() under Deno.serve print no runtime warning", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, SERVER);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${root}deno.json`,
      "--allow-net=127.0.0.1",
      file,
    ],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  let stderr = "";
  const pumps = [child.stdout, child.stderr].map(async (stream, index) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      if (index === 0) stdout += chunk;
      else stderr += chunk;
    }
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!/port (\d+)/.test(stdout)) {
      assert.ok(Date.now() < deadline, `did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const base = `http://127.0.0.1:${/port (\d+)/.exec(stdout)![1]}`;
    for (let i = 0; i < 2; i++) {
      const order = await fetch(`${base}/orders`, {
        method: "POST",
        headers: { "Idempotency-Key": "one" },
        body: "tea",
      });
      assert.equal(await order.text(), "order tea");
      const page = await fetch(`${base}/page`);
      assert.equal(await page.text(), "page");
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(stderr, "", "the server wrote to stderr");
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Promise.all(pumps);
    await Deno.remove(file);
  }
});
