// Descriptor exhaustion (EMFILE) on Deno, Node and Bun: a serve() process
// under `ulimit -n 64` is sent 100 connections that never finish their
// headers; it stays alive and answers again once they close. (Node's and
// Bun's event loops close connections they have no descriptor for and
// keep listening; Deno's listener dies, and serve() listens again.)
import assert from "node:assert/strict";
import { command, start } from "./_test_process.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(port: number): Promise<number | string> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      signal: AbortSignal.timeout(2000),
    });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return String(error);
  }
}

for (const runtime of ["deno", "node", "bun"]) {
  Deno.test(`${runtime}: under ulimit -n 64, 100 stalled connections do not end the process; it serves again after`, async () => {
    const argv = await command(runtime);
    if (argv === undefined) return;
    const server = await start([
      "sh",
      "-c",
      'ulimit -n 64; exec "$@"',
      "sh",
      ...argv,
    ]);
    const stalled: Deno.Conn[] = [];
    try {
      assert.equal(await status(server.port), 200);
      const head = new TextEncoder().encode(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ",
      );
      for (let i = 0; i < 100; i++) {
        try {
          const connection = await Deno.connect({
            hostname: "127.0.0.1",
            port: server.port,
          });
          stalled.push(connection);
          await connection.write(head).catch(() => {});
        } catch {
          // Refused or reset while the listener is down.
        }
      }
      await delay(500);
      for (const connection of stalled.splice(0)) {
        try {
          connection.close();
        } catch { /* reset */ }
      }
      let last: number | string = "";
      const freed = performance.now();
      while (performance.now() - freed < 10_000) {
        last = await status(server.port);
        if (last === 200) break;
        await delay(100);
      }
      assert.equal(last, 200, `serving again: ${server.output()}`);
      if (runtime === "deno") {
        // Deno's listener died and serve() opened it again.
        assert.match(
          server.output(),
          /Server stopped accepting connections on port \d+ \(Too many open files.*\); listening again/,
        );
      }
      assert.doesNotMatch(server.output(), /Uncaught|Unhandled|\n\s+at /);
    } finally {
      for (const connection of stalled) {
        try {
          connection.close();
        } catch { /* reset */ }
      }
      try {
        server.child.kill("SIGKILL");
      } catch { /* exited */ }
      await server.exited;
    }
  });
}
