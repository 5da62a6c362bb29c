// Graceful shutdown of real server processes on Deno, Node and Bun: a
// slow request in flight during SIGTERM completes with 200, new
// connections are refused, the process exits 0 within the timeout; a
// second signal exits at once.
import assert from "node:assert/strict";
import { accepts, command, REQUIRE_ALL, start } from "./_test_process.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const runtime of ["deno", "node", "bun"]) {
  Deno.test(`${runtime}: SIGTERM with a slow request in flight: 200, new connections refused, exit 0 within the timeout`, async () => {
    const argv = await command(runtime);
    if (argv === undefined) {
      if (REQUIRE_ALL) throw new Error(`${runtime} is missing`);
      console.log(`skipped: ${runtime} is missing`);
      return;
    }
    const server = await start(argv);
    try {
      const slow = fetch(`http://127.0.0.1:${server.port}/slow`);
      await delay(300);
      const signalled = performance.now();
      server.child.kill("SIGTERM");
      await delay(300);
      assert.equal(
        await accepts(server.port),
        false,
        "new connections refused",
      );
      const response = await slow;
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "done /slow");
      const { code, at } = await server.exited;
      assert.equal(code, 0, server.output());
      assert.ok(
        at - signalled < 5000,
        `exited ${at - signalled} ms after SIGTERM`,
      );
      assert.match(server.output(), /finished/);
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });

  Deno.test(`${runtime}: a second SIGTERM exits at once with 143`, async () => {
    const argv = await command(runtime);
    if (argv === undefined) return;
    const server = await start(argv);
    try {
      const hanging = fetch(`http://127.0.0.1:${server.port}/hang`).catch(
        () => {},
      );
      await delay(300);
      server.child.kill("SIGTERM");
      await delay(300);
      const second = performance.now();
      server.child.kill("SIGTERM");
      const { code, at } = await server.exited;
      assert.equal(code, 143, server.output());
      assert.ok(
        at - second < 2000,
        `exited ${at - second} ms after the second signal`,
      );
      await hanging;
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });

  Deno.test(`${runtime}: a request still running at shutdownTimeoutMs does not hold the process`, async () => {
    const argv = await command(runtime, "500");
    if (argv === undefined) return;
    const server = await start(argv);
    try {
      const hanging = fetch(`http://127.0.0.1:${server.port}/hang`).then(
        (response) => response.status,
        () => "cut",
      );
      await delay(300);
      const signalled = performance.now();
      server.child.kill("SIGTERM");
      const { code, at } = await server.exited;
      assert.ok(
        at - signalled < 2500,
        `exited ${at - signalled} ms after SIGTERM`,
      );
      // The request was cut (Node, Bun) or abandoned (Deno): code 1.
      assert.equal(code, 1, server.output());
      assert.match(server.output(), /finished/);
      assert.equal(await hanging, "cut");
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });
}
