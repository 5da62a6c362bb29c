// serveStatic() under serve() on every runtime: a file larger than one
// read goes out with its Content-Length (Bun drops an explicit length on
// a stream body, so there the body is Bun's own file Blob).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { serve } from "@fetchkit/toolkit/serve";

/** One raw request; the answer's head and the length of its body. */
function send(
  port: number,
  head: string,
): Promise<{ head: string; bodyLength: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    const chunks: Uint8Array[] = [];
    socket.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      resolve({
        head: all.subarray(0, split).toString("latin1"),
        bodyLength: all.length - split - 4,
      });
    });
    socket.on("error", reject);
  });
}

Deno.test("serveStatic: a 200 KB file and a 100 KB range of it go out with Content-Length, not chunked, on each runtime", async () => {
  const root = mkdtempSync(join(tmpdir(), "fetchkit-static-"));
  const size = 200 * 1024;
  writeFileSync(join(root, "big.bin"), new Uint8Array(size).fill(7));
  const router = createRouter({ middleware: [serveStatic({ root })] });
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  try {
    const port = server.addr.port;
    const whole = await send(
      port,
      "GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert.match(whole.head, /^HTTP\/1\.1 200/);
    assert.match(whole.head, new RegExp(`\r\ncontent-length: ${size}\r`, "i"));
    assert.doesNotMatch(whole.head, /transfer-encoding/i);
    assert.equal(whole.bodyLength, size);
    const part = await send(
      port,
      "GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1000-103399\r\n" +
        "Connection: close\r\n\r\n",
    );
    assert.match(part.head, /^HTTP\/1\.1 206/);
    assert.match(part.head, /\r\ncontent-length: 102400\r/i);
    assert.match(part.head, /\r\ncontent-range: bytes 1000-103399\/204800\r/i);
    assert.equal(part.bodyLength, 102400);
  } finally {
    await server.shutdown();
    rmSync(root, { recursive: true, force: true });
  }
});
