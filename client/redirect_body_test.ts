// The client over real HTTP (Deno-only: Deno.serve): a body never follows
// a redirect to another origin, whatever the status (301 and 302 keep a
// PUT's method and body, as 307 and 308 keep any); and a compressed
// answer is measured as it decompresses, not by its Content-Length.

import assert from "node:assert/strict";
import { createClient, ResponseTooLargeError } from "@fetchkit/toolkit/client";
import { route } from "@fetchkit/toolkit/fetch-router/routes";

const routes = route({
  put: { method: "PUT", pattern: "/put" },
  patch: { method: "PATCH", pattern: "/patch" },
  remove: { method: "DELETE", pattern: "/remove" },
  bomb: { method: "GET", pattern: "/bomb" },
  loop: { method: "GET", pattern: "/loop" },
});

function listen(
  handler: (request: Request) => Response | Promise<Response>,
): { url: string; server: Deno.HttpServer } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return { url: `http://127.0.0.1:${server.addr.port}`, server };
}

for (const status of [301, 302]) {
  Deno.test(`client: a ${status} to another origin does not carry a PUT, PATCH or DELETE body there`, async () => {
    const received: string[] = [];
    const other = listen(async (request) => {
      received.push(`${request.method} ${await request.text()}`);
      return Response.json({ where: "other" });
    });
    const otherUrl = other.url.replace("127.0.0.1", "localhost");
    const home = listen((request) =>
      new Response(null, {
        status,
        headers: { Location: `${otherUrl}${new URL(request.url).pathname}` },
      })
    );
    try {
      const client = createClient(routes, { baseUrl: home.url });
      for (
        const call of [
          () => client.put({ body: { card: "4242 4242 4242 4242" } }),
          () => client.patch({ body: { password: "hunter2" } }),
          () => client.remove({ body: { token: "secret" } }),
        ]
      ) {
        const result = await call();
        // Handed back, as for a 307 with a body: the caller decides.
        assert.equal(result.status, status);
        assert.equal(
          result.response.headers.get("location")?.startsWith(otherUrl),
          true,
        );
      }
      assert.deepEqual(received, [], "nothing reached the other origin");
    } finally {
      await home.server.shutdown();
      await other.server.shutdown();
    }
  });
}

Deno.test("client: a gzip answer small on the wire but over maxResponseBytes decompressed is refused", async () => {
  const plain = new Uint8Array(32 * 1024 * 1024);
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  const server = listen(() =>
    new Response(gzipped, {
      headers: {
        "Content-Encoding": "gzip",
        "Content-Type": "application/octet-stream",
      },
    })
  );
  try {
    const client = createClient(routes, {
      baseUrl: server.url,
      maxResponseBytes: 1024 * 1024,
    });
    assert.ok(gzipped.byteLength < 1024 * 1024);
    await assert.rejects(
      client.bomb(),
      (error) =>
        error instanceof ResponseTooLargeError &&
        /over maxResponseBytes \(1048576 bytes\)/.test(error.message),
    );
  } finally {
    await server.server.shutdown();
  }
});

Deno.test("client: a redirect loop stops after 20 hops with an error naming it", async () => {
  let hops = 0;
  const server = listen(() => {
    hops++;
    return new Response(null, { status: 302, headers: { Location: "/loop" } });
  });
  try {
    const client = createClient(routes, { baseUrl: server.url });
    await assert.rejects(
      client.loop(),
      /GET http:\/\/127\.0\.0\.1:\d+\/loop: more than 20 redirects/,
    );
    assert.equal(hops, 21);
  } finally {
    await server.server.shutdown();
  }
});
