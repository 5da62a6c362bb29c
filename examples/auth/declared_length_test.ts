// The login form (16 KiB) against a request that declares 100,000 bytes
// and sends 43: refused with 413 at once, not after methodOverride()'s
// 10 s wait for the body. A real socket (Deno.serve). Deno-only.
import assert from "node:assert/strict";
import { testApp } from "./_test_app.ts";

Deno.test("auth: a login declaring Content-Length 100000 and sending 43 bytes gets 413 at once", async () => {
  const { app, close } = await testApp();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request, info) => app.fetch(request, info),
  );
  const connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.addr.port,
  });
  try {
    const started = performance.now();
    await connection.write(
      new TextEncoder().encode(
        `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1:${server.addr.port}\r\n` +
          `Origin: http://127.0.0.1:${server.addr.port}\r\n` +
          "Sec-Fetch-Site: same-origin\r\n" +
          "Content-Type: application/x-www-form-urlencoded\r\n" +
          "Content-Length: 100000\r\n\r\n" +
          "email=ada%40example.com&password=correct-ho",
      ),
    );
    const buffer = new Uint8Array(8192);
    const read = await connection.read(buffer);
    const ms = performance.now() - started;
    const answer = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.ok(ms < 2000, `answered after ${ms.toFixed(0)} ms`);
  } finally {
    connection.close();
    await server.shutdown();
    close();
  }
});
