// The server (serve() from @fetchkit/toolkit/serve) outlives descriptor
// exhaustion and main.ts says plainly when its port is taken: main.ts in
// a child process with a low `ulimit -n`.
import assert from "node:assert/strict";
import { runMain, startMain } from "./_test_server.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(url: string): Promise<number | string> {
  try {
    const response = await fetch(`${url}/auth/login`, {
      signal: AbortSignal.timeout(2000),
    });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return String(error);
  }
}

Deno.test({
  name:
    "main.ts under ulimit -n 256: 400 stalled connections, then it serves again within seconds",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "auth-fd-" });
    const server = await startMain(
      { DENO_KV_PATH: `${dir}/auth.sqlite` },
      { openFiles: 256 },
    );
    const port = Number(new URL(server.url).port);
    const stalled: Deno.Conn[] = [];
    try {
      assert.equal(await status(server.url), 200);
      const head = new TextEncoder().encode(
        "GET /auth/login HTTP/1.1\r\nHost: x\r\nX-Slow: ",
      );
      for (let i = 0; i < 400; i++) {
        try {
          const connection = await Deno.connect({
            hostname: "127.0.0.1",
            port,
          });
          stalled.push(connection);
          await connection.write(head).catch(() => {});
        } catch {
          // Refused or reset: the listener is down, as expected.
        }
      }
      for (let i = 0; i < 50 && !/Server stopped/.test(server.output()); i++) {
        await delay(100);
      }
      assert.match(
        server.output(),
        /Server stopped accepting connections on port \d+ \(.*Too many open files.*\); listening again/,
      );
      assert.equal(
        server.output().match(/Server stopped/g)!.length,
        1,
        "one line, not one per attempt",
      );
      for (const connection of stalled.splice(0)) {
        try {
          connection.close();
        } catch { /* reset */ }
      }
      const freed = performance.now();
      let last: number | string = "";
      while (performance.now() - freed < 10_000) {
        last = await status(server.url);
        if (last === 200) break;
        await delay(100);
      }
      assert.equal(last, 200, `serving again: ${server.output()}`);
      console.log(
        `serving again ${
          Math.round(performance.now() - freed)
        } ms after the connections closed`,
      );
      assert.equal(server.exited(), false);
      assert.doesNotMatch(server.output(), /Uncaught/);
    } finally {
      for (const connection of stalled) {
        try {
          connection.close();
        } catch { /* reset */ }
      }
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("main.ts on a taken port prints one line naming it and how to choose another", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  const dir = await Deno.makeTempDir({ prefix: "auth-port-" });
  try {
    const { code, output } = await runMain({
      DENO_KV_PATH: `${dir}/auth.sqlite`,
      PORT: String(port),
    });
    assert.equal(code, 1);
    const hint = new RegExp(
      `^Port ${port} is in use\\. Choose another: PORT=(\\d+) deno task dev$`,
      "m",
    ).exec(output);
    assert.ok(hint, output);
    // The port it names is free now (not merely the next number).
    Deno.listen({ hostname: "127.0.0.1", port: Number(hint[1]) }).close();
    assert.doesNotMatch(output, /AddrInUse|\n {4}at /, "no stack");
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});
