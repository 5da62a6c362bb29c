// The router through Deno.serve (Content-Length on the wire, the real
// peer's address): Deno-only, beside router_test.ts and
// remote_addr_test.ts, which stay portable so their tests run on Node and
// Bun too (and through Bun's native routes).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";

Deno.test("HEAD through Deno.serve sends the GET body's Content-Length", async () => {
  const router = createRouter();
  router.get("/", () => new Response("hello world"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      method: "HEAD",
    });
    await response.body?.cancel();
    assert.equal(response.headers.get("content-length"), "11");
  } finally {
    await server.shutdown();
  }
});

Deno.test("the router's own 404, 405 and 500 answers go out with Content-Length", async () => {
  const router = createRouter({ onError: undefined });
  router.get("/boom", () => {
    throw new Error("boom");
  });
  const error = console.error;
  console.error = () => {};
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    for (
      const [path, method, status, body] of [
        ["/nothing", "GET", 404, "Not Found"],
        ["/boom", "POST", 405, "Method Not Allowed"],
        ["/boom", "GET", 500, "Internal Server Error"],
        ["/nothing", "HEAD", 404, ""],
      ] as const
    ) {
      const response = await fetch(
        `http://127.0.0.1:${server.addr.port}${path}`,
        { method },
      );
      assert.equal(response.status, status);
      assert.equal(
        response.headers.get("content-type"),
        "text/plain; charset=utf-8",
      );
      assert.equal(
        response.headers.get("content-length"),
        String(method === "HEAD" ? "Not Found".length : body.length),
      );
      assert.equal(await response.text(), body);
    }
  } finally {
    await server.shutdown();
    console.error = error;
  }
});

Deno.test("remoteAddr: the real peer through Deno.serve", async () => {
  const router = createRouter();
  router.get(
    "/",
    ({ remoteAddr }) =>
      Response.json(remoteAddr === undefined ? null : { ...remoteAddr }),
  );
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    const addr = await response.json();
    assert.equal(addr.hostname, "127.0.0.1");
    assert.equal(addr.transport, "tcp");
    assert.ok(addr.port > 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("each 404 is a Response of its own: a header one request adds does not reach the next", async () => {
  const router = createRouter({
    middleware: [async (context, next) => {
      const response = await next();
      const mark = context.headers.get("x-mark");
      if (mark !== null) response.headers.set("x-mark", mark);
      return response;
    }],
  });
  router.get("/", () => new Response("home"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/nowhere`;
    for (const mark of ["1", null, "2", null]) {
      const response = await fetch(url, {
        headers: mark === null ? {} : { "X-Mark": mark },
      });
      assert.equal(response.status, 404);
      assert.equal(await response.text(), "Not Found");
      assert.equal(response.headers.get("x-mark"), mark);
      assert.equal(
        response.headers.get("content-type"),
        "text/plain; charset=utf-8",
      );
      assert.equal(response.headers.get("content-length"), "9");
    }
    // In process too, and each body readable once by its own reader.
    const first = await router.fetch(new Request("http://x/a"));
    const second = await router.fetch(new Request("http://x/b"));
    assert.notEqual(first, second);
    assert.equal(await first.text(), "Not Found");
    assert.equal(await second.text(), "Not Found");
  } finally {
    await server.shutdown();
  }
});
