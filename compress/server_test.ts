// compress() behind a real Deno.serve: server-sent events arrive one by
// one, each decoded by node:zlib before the next is produced; a page is
// sent compressed with the right headers on the wire.

import assert from "node:assert/strict";
import * as http from "node:http";
import * as zlib from "node:zlib";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";

const EVENTS = 5;

interface Served {
  port: number;
  /** Lets event `n` + 1 be produced. */
  release(n: number): void;
  /** Releases every event (so that shutdown does not wait on the stream). */
  releaseAll(): void;
  close(): Promise<void>;
}

function serve(): Served {
  const gates = Array.from(
    { length: EVENTS },
    () => Promise.withResolvers<void>(),
  );
  const router = createRouter({ middleware: [compress()] });
  router.get("/events", () => {
    async function* events() {
      for (let n = 0; n < EVENTS; n++) {
        yield { id: n, data: `event ${n} ` + "payload ".repeat(20) };
        await gates[n].promise;
      }
    }
    return createEventStreamResponse(events(), { heartbeatMs: 0 });
  });
  router.get("/page", () =>
    new Response("<li>row</li>".repeat(1000), {
      headers: { "Content-Type": "text/html; charset=utf-8" },
    }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  return {
    port: server.addr.port,
    release: (n) => gates[n].resolve(),
    releaseAll: () => gates.forEach((gate) => gate.resolve()),
    close: () => server.shutdown(),
  };
}

/** GET over node:http, which hands over the body bytes as they come, undecoded. */
function get(
  port: number,
  path: string,
  acceptEncoding: string,
): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http.get({
      host: "127.0.0.1",
      port,
      path,
      headers: { "Accept-Encoding": acceptEncoding },
    }, resolve).on("error", reject);
  });
}

function decoderFor(coding: string) {
  if (coding === "br") return zlib.createBrotliDecompress();
  if (coding === "gzip") return zlib.createGunzip();
  if (coding === "deflate") return zlib.createInflate();
  return (zlib as unknown as { createZstdDecompress(): zlib.Gunzip })
    .createZstdDecompress();
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 3 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (const coding of ["br", "gzip", "deflate", "zstd"]) {
  Deno.test(`compress over HTTP: server-sent events arrive one by one (${coding})`, async () => {
    const served = serve();
    let response: http.IncomingMessage | undefined;
    try {
      response = await get(served.port, "/events", coding);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers["content-type"], "text/event-stream");
      assert.equal(response.headers["content-encoding"], coding);
      assert.equal(response.headers["vary"], "Accept-Encoding");
      assert.equal(response.headers["content-length"], undefined);
      const decoder = decoderFor(coding);
      let text = "";
      decoder.on("data", (chunk: Buffer) => text += chunk.toString());
      response.pipe(decoder);
      for (let n = 0; n < EVENTS; n++) {
        // Event n is readable while event n + 1 does not exist yet.
        await waitFor(() => text.includes(`data: event ${n} `), `event ${n}`);
        assert.ok(!text.includes(`data: event ${n + 1} `));
        served.release(n);
      }
      await new Promise((resolve) => decoder.on("end", resolve));
      assert.equal(text.match(/^data: event \d/gm)?.length, EVENTS);
    } finally {
      served.releaseAll();
      response?.destroy();
      await served.close();
    }
  });
}

Deno.test("compress over HTTP: a page arrives compressed and decodes whole", async () => {
  const served = serve();
  try {
    for (const coding of ["br", "gzip"]) {
      const response = await get(
        served.port,
        "/page",
        `${coding}, identity;q=0.5`,
      );
      assert.equal(response.headers["content-encoding"], coding);
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      // Compressed in one go: the length of the compressed body is known.
      assert.equal(response.headers["content-length"], String(raw.length));
      assert.ok(raw.length < 500, `${coding}: ${raw.length} bytes`);
      const text = coding === "br"
        ? zlib.brotliDecompressSync(raw).toString()
        : zlib.gunzipSync(raw).toString();
      assert.equal(text, "<li>row</li>".repeat(1000));
    }
  } finally {
    await served.close();
  }
});
