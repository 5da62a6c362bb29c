// Headers staged with context.responseHeaders, served by serve() over a
// real socket: on Node, serve() writes them into the response head itself
// (the router hands them over instead of setting them on the Response), so
// every way a response can be made must still carry them exactly as the
// router applies them elsewhere. Runs on Deno, Node and Bun (the
// _tools/runtimes bundle picks this file up).
import assert from "node:assert/strict";
import { connect } from "node:net";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { serve } from "@fetchkit/toolkit/serve";

const local = { hostname: "127.0.0.1", port: 0, handleSignals: false };

/** The raw response head to `GET path` (or `HEAD`): its header lines. */
function rawHead(
  port: number,
  path: string,
  method = "GET",
): Promise<{ status: number; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\r\n\r\n");
      if (end === -1) return;
      socket.destroy();
      const [first, ...lines] = text.slice(0, end).split("\r\n");
      resolve({
        status: Number(first!.split(" ")[1]),
        lines: lines.map((line) => line.toLowerCase()),
      });
    });
    socket.on("error", reject);
    socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
  });
}

function stagingRouter() {
  const router = createRouter({
    middleware: [(context, next) => {
      context.responseHeaders.set("X-Frame-Options", "DENY");
      context.responseHeaders.append("Set-Cookie", "staged=1; HttpOnly");
      return next();
    }],
  });
  router.get("/plain", () => new Response("plain"));
  // The response's own Content-Type (any case), replaced by the staged one.
  router.get("/own", (context) => {
    context.responseHeaders.set("content-type", "text/html; charset=utf-8");
    return new Response("<p>own</p>", {
      headers: {
        "CONTENT-TYPE": "text/plain",
        "X-Own": "kept",
        "Set-Cookie": "own=1",
      },
    });
  });
  router.get("/headers", () =>
    new Response("headers", {
      headers: new Headers([["set-cookie", "a=1"], ["set-cookie", "b=2"]]),
    }));
  router.get("/redirect", () => Response.redirect("http://127.0.0.1/x", 303));
  router.get("/given", (context) => {
    context.responseHeaders.set("X-Given", "yes");
    return new Response("given", { headers: context.responseHeaders });
  });
  router.get("/stream", () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("streamed"));
          controller.close();
        },
      }),
    ));
  router.get("/teapot", () => {
    throw new HttpError(418, "short and stout");
  });
  router.get("/late", async (context) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    context.responseHeaders.set("X-Late", "1");
    return new Response("late");
  });
  return router;
}

const count = (lines: string[], line: string) =>
  lines.filter((one) => one === line).length;

Deno.test("serve(): staged headers reach the head of every kind of answer, once, replacing the response's own", async () => {
  const server = serve(stagingRouter().fetch, local);
  const port = server.addr.port;
  try {
    for (
      const path of [
        "/plain",
        "/own",
        "/headers",
        "/redirect",
        "/given",
        "/stream",
        "/teapot",
        "/late",
        "/nowhere",
      ]
    ) {
      const { lines } = await rawHead(port, path);
      assert.equal(count(lines, "x-frame-options: deny"), 1, path);
      assert.equal(count(lines, "set-cookie: staged=1; httponly"), 1, path);
    }
    const own = await rawHead(port, "/own");
    assert.equal(
      own.lines.filter((line) => line.startsWith("content-type:")).join(),
      "content-type: text/html; charset=utf-8",
    );
    assert.ok(own.lines.includes("x-own: kept"));
    assert.ok(own.lines.includes("set-cookie: own=1"));
    const headers = await rawHead(port, "/headers");
    assert.ok(headers.lines.includes("set-cookie: a=1"));
    assert.ok(headers.lines.includes("set-cookie: b=2"));
    const redirect = await rawHead(port, "/redirect");
    assert.equal(redirect.status, 303);
    assert.ok(redirect.lines.includes("location: http://127.0.0.1/x"));
    assert.ok((await rawHead(port, "/given")).lines.includes("x-given: yes"));
    const teapot = await rawHead(port, "/teapot");
    assert.equal(teapot.status, 418);
    assert.ok((await rawHead(port, "/late")).lines.includes("x-late: 1"));
    assert.equal((await rawHead(port, "/nowhere")).status, 404);
    // HEAD: the GET route's head, staged headers included, no body.
    const head = await rawHead(port, "/plain", "HEAD");
    assert.equal(head.status, 200);
    assert.equal(count(head.lines, "x-frame-options: deny"), 1);
    assert.ok(head.lines.includes("content-length: 5"));
    // The router's own 404, to HEAD: the length of "Not Found".
    const missing = await rawHead(port, "/nowhere", "HEAD");
    assert.equal(missing.status, 404);
    assert.ok(missing.lines.includes("content-length: 9"), `${missing.lines}`);
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): a handler wrapping router.fetch sees the staged headers on the Response", async () => {
  // Only the router's fetch given to serve() itself hands its staged
  // headers to the server; code between them reads a finished Response.
  const router = stagingRouter();
  const seen: (string | null)[] = [];
  const server = serve(async (request, info) => {
    const response = await router.fetch(request, info);
    seen.push(response.headers.get("x-frame-options"));
    return response;
  }, local);
  try {
    const { lines } = await rawHead(server.addr.port, "/plain");
    assert.equal(count(lines, "x-frame-options: deny"), 1);
    assert.deepEqual(seen, ["DENY"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(): staged headers without cookies reach the head of plain, Headers and typed answers, once", async () => {
  // No staged cookie: on Node the staged headers go straight into the head
  // record the listener made (no merge), unless the record has a name
  // staged too (then they merge as with cookies).
  const router = createRouter({
    middleware: [(context, next) => {
      context.responseHeaders.set("X-Bench", "1");
      return next();
    }],
  });
  router.get("/plain", () => new Response("plain"));
  router.get("/empty", () => new Response(null, { status: 204 }));
  router.get("/headers", () =>
    new Response("headers", {
      headers: new Headers([["x-own", "kept"], ["set-cookie", "a=1"]]),
    }));
  router.get("/typed", (context) => {
    context.responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    return new Response("<p>typed</p>");
  });
  router.get("/typed-headers", (context) => {
    context.responseHeaders.set("content-type", "text/html; charset=utf-8");
    return new Response("<p>typed</p>", {
      headers: new Headers({ "Content-Type": "text/plain" }),
    });
  });
  const server = serve(router.fetch, local);
  const port = server.addr.port;
  try {
    for (
      const path of ["/plain", "/empty", "/headers", "/typed", "/typed-headers"]
    ) {
      const { lines } = await rawHead(port, path);
      assert.equal(count(lines, "x-bench: 1"), 1, `${path}: ${lines}`);
    }
    const plain = await rawHead(port, "/plain");
    assert.ok(plain.lines.includes("content-length: 5"), `${plain.lines}`);
    assert.equal(
      count(plain.lines.map((line) => line.slice(0, 13)), "content-type:"),
      1,
      `${plain.lines}`,
    );
    const headers = await rawHead(port, "/headers");
    assert.ok(headers.lines.includes("x-own: kept"));
    assert.ok(headers.lines.includes("set-cookie: a=1"));
    for (const path of ["/typed", "/typed-headers"]) {
      const { lines } = await rawHead(port, path);
      assert.equal(
        lines.filter((line) => line.startsWith("content-type:")).join(),
        "content-type: text/html; charset=utf-8",
        path,
      );
    }
  } finally {
    await server.shutdown();
  }
});
