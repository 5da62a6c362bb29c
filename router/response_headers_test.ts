// context.responseHeaders: headers staged by middleware or handlers and
// applied once to the response the request is answered with.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { HttpError } from "@fetchkit/toolkit/http-error";

const request = (path: string, init?: RequestInit) =>
  new Request(`http://localhost${path}`, init);

Deno.test("responseHeaders: staged by synchronous middleware, the answer stays synchronous", async () => {
  const router = createRouter({
    middleware: [(context, next) => {
      context.responseHeaders.set("X-Frame-Options", "DENY");
      return next();
    }],
  });
  router.get("/", () => new Response("home"));
  const result = router.fetch(request("/"));
  assert.ok(result instanceof Response, "a Response, not a promise");
  assert.equal(result.headers.get("x-frame-options"), "DENY");
  assert.equal(await result.text(), "home");
});

Deno.test("responseHeaders: staged after an awaited next(), and by the handler", async () => {
  const router = createRouter();
  router.get(
    "/",
    async (context, next) => {
      const response = await next();
      context.responseHeaders.set("X-After", String(response.status));
      return response;
    },
    (context) => {
      context.responseHeaders.set("X-Handler", "1");
      return new Response("home", { headers: { "X-Handler": "0" } });
    },
  );
  const response = await router.fetch(request("/"));
  assert.equal(response.headers.get("x-after"), "200");
  assert.equal(response.headers.get("x-handler"), "1", "staged replaces");
});

Deno.test("responseHeaders: applied to 404, 405, HttpError and 500 answers", async () => {
  const router = createRouter({
    middleware: [(context, next) => {
      context.responseHeaders.set("X-Request-Id", "abc");
      return next();
    }],
  });
  router.post("/form", () => new Response("ok"));
  router.get("/teapot", () => {
    throw new HttpError(418, "short and stout");
  });
  router.get("/bug", async () => {
    await Promise.resolve();
    throw new Error("bug");
  });
  const error = console.error;
  console.error = () => {};
  try {
    for (
      const [path, status] of [
        ["/none", 404],
        ["/form", 405],
        ["/teapot", 418],
        ["/bug", 500],
      ] as const
    ) {
      const response = await router.fetch(request(path));
      assert.equal(response.status, status, path);
      assert.equal(response.headers.get("x-request-id"), "abc", path);
      await response.body?.cancel();
    }
  } finally {
    console.error = error;
  }
});

Deno.test("responseHeaders: Set-Cookie is added to the response's own", async () => {
  const router = createRouter();
  router.get("/", (context) => {
    context.responseHeaders.append("Set-Cookie", "a=1; Path=/");
    context.responseHeaders.append("Set-Cookie", "b=2; Path=/");
    const response = new Response("home");
    response.headers.append("Set-Cookie", "c=3; Path=/");
    return response;
  });
  const response = await router.fetch(request("/"));
  assert.deepEqual(response.headers.getSetCookie(), [
    "c=3; Path=/",
    "a=1; Path=/",
    "b=2; Path=/",
  ]);
});

Deno.test("responseHeaders: a response with immutable headers is copied", async () => {
  const router = createRouter();
  router.get("/old", (context) => {
    context.responseHeaders.set("Cache-Control", "no-store");
    return Response.redirect("http://localhost/new", 301);
  });
  const response = await router.fetch(request("/old"));
  assert.equal(response.status, 301);
  assert.equal(response.headers.get("location"), "http://localhost/new");
  assert.equal(response.headers.get("cache-control"), "no-store");
});

Deno.test("responseHeaders: HEAD answers carry them", async () => {
  const router = createRouter();
  router.get("/", (context) => {
    context.responseHeaders.set("X-Staged", "1");
    return new Response("home");
  });
  const response = await router.fetch(request("/", { method: "HEAD" }));
  assert.equal(response.headers.get("x-staged"), "1");
  assert.equal(await response.text(), "");
});

Deno.test("responseHeaders: applied once, however deep the chain", async () => {
  const router = createRouter({
    middleware: [async (_context, next) => await next()],
  });
  router.get(
    "/",
    async (_context, next) => await next(),
    (context) => {
      context.responseHeaders.append("Set-Cookie", "once=1");
      return new Response("home");
    },
  );
  const response = await router.fetch(request("/"));
  assert.deepEqual(response.headers.getSetCookie(), ["once=1"]);
});
