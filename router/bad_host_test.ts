import assert from "node:assert/strict";
import { connect } from "node:net";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";

/** One raw request on a fresh connection; the whole answer as text. */
function send(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => answer += chunk);
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

// Bun hands a handler `request.url === "/admin"` for these hosts, and
// "http://[::1/admin" for an unclosed bracket; URL refuses both.
const ON_BUN = "Bun" in globalThis;
const BAD_HOSTS = ["a?x", "a#x", "a\\b", "u:p@x", "a/b", "", "a b", "[::1"];

Deno.test("context.url: a Host that makes the request URL unparsable is a 400 naming the Host header, on every runtime's server, and the server keeps serving", async () => {
  const readsUrl: Middleware = (context, next) => {
    context.url; // what a logger, CSRF check or redirect reads
    return next();
  };
  const router = createRouter({ middleware: [readsUrl] });
  router.get("/admin", ({ url }) => new Response(`admin at ${url.host}`));
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  try {
    const port = server.addr.port;
    for (const host of BAD_HOSTS) {
      const answer = await send(
        port,
        `GET /admin HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      const status = answer.slice(9, 12);
      // Each server reads these its own way: Deno's takes "a?x" as host
      // "a" and a query (a 404 here) and "u:p@x" as host "x"; Node's
      // refuses some itself (400); where the URL reaches the router
      // unparsable (Bun), the router answers 400 and says why. Never 5xx.
      assert.doesNotMatch(
        status,
        /^5/,
        `Host ${JSON.stringify(host)}: ${answer}`,
      );
      if (ON_BUN && host !== "[::1") {
        assert.equal(status, "400", answer);
        assert.match(answer, /is its Host header a valid host\?/);
      }
    }
    const good = await send(
      port,
      "GET /admin HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n",
    );
    assert.match(good, /^HTTP\/1\.1 200/);
    assert.match(good, /admin at example\.com/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("context.url: a request whose url does not parse gives a 400 through the router's boundary, not a 500", async () => {
  const router = createRouter();
  router.get("/admin", ({ url }) => new Response(url.pathname));
  const request = new Request("http://example.com/admin");
  // What Bun's server hands a handler for `Host: a?x`.
  Object.defineProperty(request, "url", { value: "/admin" });
  const response = await router.fetch(request);
  assert.equal(response.status, 400);
  assert.match(await response.text(), /could not be parsed/);
});
