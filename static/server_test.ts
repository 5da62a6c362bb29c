// serveStatic behind a real Deno.serve: raw request targets that
// `new Request()` would normalize, large files, Content-Length on the wire,
// and a download cut short.

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { makeFixture } from "./_test_fixture.ts";
import { rawGet } from "../_tools/raw_http.ts";

interface Served {
  port: number;
  root: string;
  secret: string;
  close(): Promise<void>;
}

async function serve(): Promise<Served> {
  const fixture = await makeFixture();
  const router = createRouter({
    middleware: [serveStatic({ root: fixture.root })],
  });
  router.get("*rest", () => new Response("reached the routes"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  return {
    port: server.addr.port,
    root: fixture.root,
    secret: fixture.secret,
    async close() {
      await server.shutdown();
      await fixture.remove();
    },
  };
}

Deno.test("serveStatic over HTTP: raw ways out of the root are 404", async () => {
  const served = await serve();
  try {
    const targets = [
      "/../public-secret.txt",
      "/../private/secret.txt",
      "/sub/../../private/secret.txt",
      "/%2e%2e/public-secret.txt",
      "/%2E%2E/private/secret.txt",
      "/.%2e/public-secret.txt",
      "/..%2fpublic-secret.txt",
      "/..\\public-secret.txt",
      "/sub\\..\\..\\public-secret.txt",
      "/..%5cpublic-secret.txt",
      "/app.css%00",
      "/leak.txt",
      "/leak-dir/secret.txt",
    ];
    for (const target of targets) {
      const response = (await rawGet(served.port, target)).text;
      assert.ok(!response.includes(served.secret), `${target} leaked`);
      assert.match(response, /^HTTP\/1\.1 404 /, `${target}:\n${response}`);
    }
    // The same server serves a real file.
    assert.match(
      (await rawGet(served.port, "/app.css")).text,
      /^HTTP\/1\.1 200 [^]*body\{margin:0\}$/,
    );
  } finally {
    await served.close();
  }
});

Deno.test("serveStatic over HTTP: a large file streams whole, with its Content-Length", async () => {
  const served = await serve();
  try {
    const size = 3 * 1024 * 1024 + 7;
    const bytes = crypto.getRandomValues(new Uint8Array(65536));
    const big = new Uint8Array(size);
    for (let i = 0; i < size; i += bytes.length) {
      big.set(bytes.subarray(0, Math.min(bytes.length, size - i)), i);
    }
    await Deno.writeFile(`${served.root}/big.bin`, big);
    const response = await fetch(`http://127.0.0.1:${served.port}/big.bin`);
    assert.equal(response.headers.get("Content-Length"), String(size));
    assert.equal(response.headers.get("Transfer-Encoding"), null);
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), big);
    const head = await fetch(`http://127.0.0.1:${served.port}/big.bin`, {
      method: "HEAD",
    });
    assert.equal(head.headers.get("Content-Length"), String(size));
    assert.equal(head.body, null);
    const part = await fetch(`http://127.0.0.1:${served.port}/big.bin`, {
      headers: { Range: "bytes=1000000-1999999" },
    });
    assert.equal(part.status, 206);
    assert.deepEqual(
      new Uint8Array(await part.arrayBuffer()),
      big.subarray(1000000, 2000000),
    );
  } finally {
    await served.close();
  }
});

Deno.test("serveStatic over HTTP: a download cut short closes the file", async () => {
  const served = await serve();
  try {
    await Deno.writeFile(
      `${served.root}/big.bin`,
      new Uint8Array(8 * 1024 * 1024),
    );
    for (const range of [undefined, "bytes=10-8000000"]) {
      const controller = new AbortController();
      const response = await fetch(`http://127.0.0.1:${served.port}/big.bin`, {
        signal: controller.signal,
        headers: range === undefined ? {} : { Range: range },
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.closed.catch(() => {});
    }
    // The test's resource sanitizer fails the test if a file stayed open;
    // give the server a moment to see the closed connections.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await served.close();
  }
});
