// serveStatic() under serve() on every runtime: a file larger than one
// read goes out whole, with its Content-Length on Deno and Node. Bun drops
// an explicit length on a stream body and sends it chunked; Bun's own lazy
// file body would keep the length but open the path again when it is sent,
// after the check that it is inside the root (a symlink swapped in between
// would be followed), so Bun gets the stream of the file opened at once.

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
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
      resolve({
        head: all.subarray(0, all.indexOf("\r\n\r\n")).toString("latin1"),
        bodyLength: bodyBytes(all),
      });
    });
    socket.on("error", reject);
  });
}

const ON_BUN = "Bun" in globalThis;

/** The head names the length, or (Bun) is chunked. */
function assertLength(head: string, length: number): void {
  if (ON_BUN) {
    assert.match(head, /\r\ntransfer-encoding: chunked/i);
    return;
  }
  assert.match(head, new RegExp(`\r\ncontent-length: ${length}\r`, "i"));
  assert.doesNotMatch(head, /transfer-encoding/i);
}

/** The body's length: as sent, or (chunked) after the chunk sizes. */
function bodyBytes(raw: Buffer): number {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, split).toString("latin1");
  let body = raw.subarray(split + 4);
  if (!/transfer-encoding: chunked/i.test(head)) return body.length;
  let total = 0;
  for (;;) {
    const line = body.indexOf("\r\n");
    const size = parseInt(body.subarray(0, line).toString("latin1"), 16);
    if (size === 0) return total;
    total += size;
    body = body.subarray(line + 2 + size + 2);
  }
}

Deno.test("serveStatic: a 200 KB file and a 100 KB range of it go out whole, with Content-Length on Deno and Node (chunked on Bun)", async () => {
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
    assertLength(whole.head, size);
    assert.equal(whole.bodyLength, size);
    const part = await send(
      port,
      "GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1000-103399\r\n" +
        "Connection: close\r\n\r\n",
    );
    assert.match(part.head, /^HTTP\/1\.1 206/);
    assertLength(part.head, 102400);
    assert.match(part.head, /\r\ncontent-range: bytes 1000-103399\/204800\r/i);
    assert.equal(part.bodyLength, 102400);
  } finally {
    await server.shutdown();
    rmSync(root, { recursive: true, force: true });
  }
});
