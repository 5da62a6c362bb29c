// The client over real HTTP with the runtime's own fetch (Deno-only: it
// starts servers with Deno.serve): a redirect to another origin carries
// none of the headers the caller set, and an answer past the size limit
// is refused with an error naming the limit, without being read whole.

import assert from "node:assert/strict";
import { createClient, ResponseTooLargeError } from "@fetchkit/toolkit/client";
import { route } from "@fetchkit/toolkit/fetch-router/routes";

const routes = route({
  go: { method: "GET", pattern: "/go" },
  send: { method: "POST", pattern: "/send" },
  big: { method: "GET", pattern: "/big" },
  sized: { method: "GET", pattern: "/sized" },
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

Deno.test("client: a redirect to another origin drops every header the caller set; a same-origin one keeps them", async () => {
  const seen: Record<string, Headers> = {};
  const other = listen((request) => {
    seen[new URL(request.url).pathname] = request.headers;
    return Response.json({ where: "other" });
  });
  // 127.0.0.1 and localhost are two origins on one machine.
  const otherUrl = other.url.replace("127.0.0.1", "localhost");
  const home = listen((request) => {
    const path = new URL(request.url).pathname;
    seen[path] = request.headers;
    if (path === "/go") return Response.redirect(`${otherUrl}/landed`, 302);
    if (path === "/send") {
      return new Response(null, {
        status: 303,
        headers: { Location: "/here" },
      });
    }
    return Response.json({ where: "home" });
  });
  try {
    const client = createClient(routes, {
      baseUrl: home.url,
      headers: { "X-Api-Key": "secret-key", Authorization: "Bearer t" },
    });
    const away = await client.go({}, {
      headers: { Cookie: "sid=1", "X-Trace": "7" },
    });
    assert.deepEqual(away.data, { where: "other" });
    for (const name of ["x-api-key", "authorization", "cookie", "x-trace"]) {
      assert.equal(seen["/go"].get(name) !== null, true, `sent home: ${name}`);
      assert.equal(seen["/landed"].get(name), null, `not sent away: ${name}`);
    }
    const here = await client.send({ body: { a: 1 } });
    assert.deepEqual(here.data, { where: "home" });
    assert.equal(seen["/here"].get("x-api-key"), "secret-key");
    // manual: the caller handles redirects.
    const manual = await client.go({}, { redirect: "manual" });
    assert.equal(manual.status, 302);
    assert.equal(manual.response.headers.get("location"), `${otherUrl}/landed`);
  } finally {
    await home.server.shutdown();
    await other.server.shutdown();
  }
});

Deno.test("client: an answer over maxResponseBytes is refused naming the limit, without reading it whole; stream: true hands the body over", async () => {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(120);
  const server = listen((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/sized") {
      return new Response(new Uint8Array(3 * 1024 * 1024));
    }
    // 256 MiB, produced as read.
    let left = 4096;
    return new Response(
      new ReadableStream({
        pull(controller) {
          if (left-- === 0) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
      { headers: { "Content-Type": "application/octet-stream" } },
    );
  });
  try {
    const client = createClient(routes, { baseUrl: server.url });
    const error = await client.big().then(() => undefined, (error) => error);
    assert.ok(error instanceof ResponseTooLargeError, String(error));
    assert.match(error.message, /over maxResponseBytes \(16777216 bytes\)/);
    assert.match(error.message, /GET http:\/\/127\.0\.0\.1:\d+\/big/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(sent < 64 * 1024 * 1024, `the server sent ${sent} bytes`);

    // A declared length over the limit is refused before any read.
    const small = createClient(routes, {
      baseUrl: server.url,
      maxResponseBytes: 1024 * 1024,
    });
    await assert.rejects(
      small.sized(),
      /over maxResponseBytes \(1048576 bytes\): Content-Length declares 3145728 bytes/,
    );
    // Per call, a stream.
    sent = 0;
    const streamed = await client.big({}, { stream: true });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.data, undefined);
    let total = 0;
    for await (const part of streamed.response.body!) total += part.byteLength;
    assert.equal(total, 256 * 1024 * 1024);
  } finally {
    await server.server.shutdown();
  }
});
