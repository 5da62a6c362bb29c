// SIGTERM with waitUntil() work pending, on real server processes on
// Deno, Node and Bun: the process exits only after the work (code 0), or
// after shutdownTimeoutMs with the cut-off work logged (code 1).
// Deno-only (it spawns the runtimes).
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "../_tools/runtimes/bundle.ts";
import { commandFor, REQUIRE_ALL, start } from "../serve/_test_process.ts";

const SCRIPT = join(ROOT, "wait_until/testdata/wait_server.ts");

for (const runtime of ["deno", "node", "bun"]) {
  for (const [workMs, timeoutMs] of [[1200, 5000], [60_000, 800]]) {
    const cut = workMs > timeoutMs;
    Deno.test(
      `${runtime}: SIGTERM with ${workMs} ms of waitUntil() work pending exits ${
        cut
          ? "after the 800 ms timeout, the cut-off work logged"
          : "only after the work"
      }`,
      async () => {
        const argv = await commandFor(SCRIPT, runtime, String(timeoutMs));
        if (argv === undefined) {
          if (REQUIRE_ALL) throw new Error(`${runtime} is missing`);
          console.log(`skipped: ${runtime} is missing`);
          return;
        }
        const server = await start(argv);
        try {
          const asked = performance.now();
          const response = await fetch(
            `http://127.0.0.1:${server.port}/work/${workMs}`,
          );
          assert.equal(await response.text(), "answered");
          const answered = performance.now() - asked;
          assert.ok(
            answered < workMs,
            `answered after ${answered.toFixed(0)} ms`,
          );
          const signalled = performance.now();
          server.child.kill("SIGTERM");
          const { code, at } = await server.exited;
          const took = at - signalled;
          if (cut) {
            assert.equal(code, 1, server.output());
            assert.doesNotMatch(server.output(), /work done/);
            assert.match(
              server.output(),
              /cut off 1 piece\(s\) of work still running after 800 ms \(waitUntil\): #1 \(GET \/work\/60000\)/,
            );
            assert.ok(
              took >= 700 && took < 4000,
              `exited after ${took.toFixed(0)} ms`,
            );
          } else {
            assert.equal(code, 0, server.output());
            assert.match(server.output(), /work done\s+finished/);
            assert.ok(
              took >= workMs - answered - 200,
              `exited ${took.toFixed(0)} ms after SIGTERM, before the work`,
            );
          }
        } finally {
          try {
            server.child.kill("SIGKILL");
          } catch { /* exited */ }
          await server.exited;
        }
      },
    );
  }
}
