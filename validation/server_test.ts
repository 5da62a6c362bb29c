// Hostile bodies over a real socket to Deno.serve: lying and non-numeric
// lengths, chunked bodies past the limit, stalls; the server keeps serving.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { parseJson } from "@fetchkit/toolkit/validation";
import * as z from "zod";

function serve() {
  const router = createRouter();
  router.post("/json", async ({ request }) => {
    const result = await parseJson(request, z.object({ a: z.number() }), {
      maxBytes: 1000,
      idleTimeout: 200,
    });
    return Response.json(result.success ? result.value : result.fieldErrors, {
      status: result.success ? 200 : 422,
    });
  });
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
}

/** Sends `head` then `parts` (a pause before each), and reads the answer. */
async function raw(
  port: number,
  head: string,
  parts: string[] = [],
  pause = 0,
): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const encoder = new TextEncoder();
  try {
    await conn.write(encoder.encode(head));
    for (const part of parts) {
      if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
      await conn.write(encoder.encode(part)).catch(() => {});
    }
    let text = "";
    const buffer = new Uint8Array(65536);
    const decoder = new TextDecoder();
    // Until the answer's body is in (it ends with "}" or the text), or close.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
      const [head, body] = text.split("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(head ?? "")?.[1];
      if (
        length !== undefined && body !== undefined && body.length >= +length
      ) {
        break;
      }
    }
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
    return { status, text };
  } finally {
    conn.close();
  }
}

const head = (headers: string) =>
  `POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}\r\n`;

Deno.test("parseJson over HTTP: hostile lengths, chunked bodies and stalls get their 4xx", async () => {
  const server = serve();
  const port = server.addr.port;
  try {
    // Non-numeric Content-Length: refused by the HTTP server itself.
    const abc = await raw(port, head("Content-Length: abc\r\n"), ['{"a":1}']);
    assert.ok(abc.status >= 400 && abc.status < 500, abc.text);

    // A length that lies high: the client stalls, 408 after idleTimeout.
    const high = await raw(port, head("Content-Length: 100\r\n"), ['{"a":1}']);
    assert.equal(high.status, 408, high.text);
    assert.match(high.text, /No request body data arrived for 200 ms/);

    // A length that lies low: the server stops at it; what it got is cut.
    const low = await raw(port, head("Content-Length: 5\r\n"), ['{"a":1}']);
    assert.equal(low.status, 400, low.text);
    assert.match(low.text, /Malformed JSON at line 1, column 6/);

    // Declared past the limit: 413 before reading.
    const declared = await raw(port, head("Content-Length: 5000\r\n"));
    assert.equal(declared.status, 413, declared.text);
    assert.match(declared.text, /Content-Length declares 5000 bytes/);

    // Chunked past the limit.
    const chunk = " ".repeat(600);
    const chunked = await raw(port, head("Transfer-Encoding: chunked\r\n"), [
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    ]);
    assert.equal(chunked.status, 413, chunked.text);
    assert.match(chunked.text, /larger than maxBytes \(1000 bytes\)/);

    // Chunked, then a stall.
    const stalled = await raw(port, head("Transfer-Encoding: chunked\r\n"), [
      '3\r\n{"a\r\n',
    ]);
    assert.equal(stalled.status, 408, stalled.text);

    // Still serving.
    const ok = await fetch(`http://127.0.0.1:${port}/json`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a": 1}',
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { a: 1 });
  } finally {
    await server.shutdown();
  }
});
