// SIGTERM flips readiness before the listener closes, on real server
// processes (Deno, Node and Bun): /readyz answers 503 draining at once,
// /livez and a slow request still get 200 while drainMs runs, then new
// connections are refused and the process exits 0.
import assert from "node:assert/strict";
import {
  accepts,
  commandFor,
  REQUIRE_ALL,
  start,
} from "../serve/_test_process.ts";
import { ROOT } from "../_tools/runtimes/bundle.ts";
import { join } from "node:path";

const SCRIPT = join(ROOT, "health/testdata/health_server.ts");
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const runtime of ["deno", "node", "bun"]) {
  Deno.test(`${runtime}: SIGTERM makes /readyz 503 before the listener closes (drainMs)`, async () => {
    let argv: string[] | undefined;
    try {
      argv = await commandFor(SCRIPT, runtime, "1500");
    } catch (error) {
      if (REQUIRE_ALL) throw error;
      console.log(`skipped: ${runtime}: ${(error as Error).message}`);
      return;
    }
    if (argv === undefined) {
      if (REQUIRE_ALL) throw new Error(`${runtime} is missing`);
      console.log(`skipped: ${runtime} is missing`);
      return;
    }
    if (runtime === "deno") argv.splice(2, 0, "--allow-env", "--allow-read");
    const server = await start(argv);
    const origin = `http://127.0.0.1:${server.port}`;
    try {
      const before = await fetch(`${origin}/readyz`);
      assert.equal(before.status, 200, server.output());
      await before.body?.cancel();
      const signalled = performance.now();
      server.child.kill("SIGTERM");
      // Readiness flips first...
      let ready: Response | undefined;
      for (let i = 0; i < 50; i++) {
        ready = await fetch(`${origin}/readyz`);
        if (ready.status === 503) break;
        await ready.body?.cancel();
        await delay(10);
      }
      assert.equal(ready!.status, 503);
      assert.deepEqual(await ready!.json(), { status: "draining" });
      const flipped = performance.now() - signalled;
      assert.ok(flipped < 500, `readiness flipped ${flipped} ms after SIGTERM`);
      // ...while the listener still serves, new requests included.
      const slow = fetch(`${origin}/slow`);
      const live = await fetch(`${origin}/livez`);
      assert.equal(live.status, 200);
      await live.body?.cancel();
      assert.equal(await accepts(server.port), true);
      const response = await slow;
      assert.equal(await response.text(), "slow done");
      // Then it closes, and the process ends by itself.
      await delay(Math.max(0, 1500 - (performance.now() - signalled)));
      let open = true;
      for (let i = 0; i < 100 && open; i++) {
        open = await accepts(server.port);
        if (open) await delay(50);
      }
      assert.equal(open, false, "closed after drainMs");
      const { code, at } = await server.exited;
      assert.equal(code, 0, server.output());
      assert.ok(
        at - signalled >= 1400,
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
}
