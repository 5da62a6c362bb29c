import assert from "node:assert/strict";
import {
  createRouter,
  type Middleware,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import { cors, type CorsOptions } from "@fetchkit/toolkit/cors-middleware";

const APP = "https://app.example";
const OTHER = "https://evil.example";

function app(options?: CorsOptions, extra: Middleware[] = []): Router {
  const router = createRouter({ middleware: [cors(options), ...extra] });
  router.get("/items", () => Response.json([]));
  router.post("/items", () => new Response("created", { status: 201 }));
  router.get(
    "/vary",
    () => new Response("x", { headers: { Vary: "Accept-Encoding" } }),
  );
  router.get("/vary-star", () => new Response("x", { headers: { Vary: "*" } }));
  router.get("/redirect", () => Response.redirect("https://app.example/", 302));
  return router;
}

function call(
  router: Router,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  return Promise.resolve(
    router.fetch(new Request(`http://api.local${path}`, init)),
  );
}

function preflight(
  router: Router,
  path: string,
  origin: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return call(router, path, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      ...extra,
    },
  });
}

Deno.test("cors: a preflight is answered 204 before routing, even where no route is", async () => {
  const seen: string[] = [];
  const router = app({ origin: APP, maxAge: 600 }, [(context) => {
    seen.push(context.url.pathname);
  }]);
  for (const path of ["/items", "/no-such-path"]) {
    const response = await preflight(router, path, APP, {
      "Access-Control-Request-Headers": "content-type, x-token",
    });
    assert.equal(response.status, 204);
    assert.equal(response.body, null);
    assert.equal(response.headers.get("Access-Control-Allow-Origin"), APP);
    assert.equal(
      response.headers.get("Access-Control-Allow-Methods"),
      "GET, HEAD, PUT, PATCH, POST, DELETE",
    );
    assert.equal(
      response.headers.get("Access-Control-Allow-Headers"),
      "content-type, x-token",
    );
    assert.equal(response.headers.get("Access-Control-Max-Age"), "600");
    assert.equal(
      response.headers.get("Vary"),
      "Origin, Access-Control-Request-Headers",
    );
    assert.equal(
      response.headers.get("Access-Control-Allow-Credentials"),
      null,
    );
  }
  assert.deepEqual(seen, [], "later middleware and routing never ran");
});

Deno.test("cors: OPTIONS without Access-Control-Request-Method keeps the router's answers", async () => {
  const router = app({ origin: APP });
  const options = await call(router, "/items", {
    method: "OPTIONS",
    headers: { Origin: APP },
  });
  assert.equal(options.status, 204);
  assert.equal(options.headers.get("Allow"), "GET, HEAD, POST");
  assert.equal(options.headers.get("Access-Control-Allow-Origin"), APP);
  const put = await call(router, "/items", {
    method: "PUT",
    headers: { Origin: APP },
  });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("Allow"), "GET, HEAD, POST");
  assert.equal(put.headers.get("Access-Control-Allow-Origin"), APP);
  assert.equal(put.headers.get("Vary"), "Origin");
  const missing = await call(router, "/nope", { headers: { Origin: APP } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("Access-Control-Allow-Origin"), APP);
});

Deno.test("cors: an allowed origin is echoed on the response, with exposed headers and credentials", async () => {
  const router = app({
    origin: [APP, "https://admin.example"],
    credentials: true,
    exposeHeaders: ["X-Request-Id", "Content-Length"],
  });
  const response = await call(router, "/items", { headers: { Origin: APP } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Access-Control-Allow-Origin"), APP);
  assert.equal(
    response.headers.get("Access-Control-Allow-Credentials"),
    "true",
  );
  assert.equal(
    response.headers.get("Access-Control-Expose-Headers"),
    "X-Request-Id, Content-Length",
  );
  assert.equal(response.headers.get("Vary"), "Origin");
  assert.deepEqual(await response.json(), []);
});

Deno.test("cors: an origin not allowed gets no CORS headers, only Vary", async () => {
  const router = app({ origin: APP, credentials: true });
  const response = await call(router, "/items", { headers: { Origin: OTHER } });
  assert.equal(
    response.status,
    200,
    "the server still answers; the browser hides it",
  );
  assert.equal(response.headers.get("Access-Control-Allow-Origin"), null);
  assert.equal(response.headers.get("Access-Control-Allow-Credentials"), null);
  assert.equal(response.headers.get("Vary"), "Origin");
  await response.body?.cancel();
  const refused = await preflight(router, "/items", OTHER);
  assert.equal(refused.status, 204);
  assert.equal(refused.headers.get("Access-Control-Allow-Origin"), null);
  assert.equal(refused.headers.get("Access-Control-Allow-Methods"), null);
  assert.equal(refused.headers.get("Vary"), "Origin");
});

Deno.test("cors: Vary: Origin whenever the answer depends on the origin, never for *", async () => {
  const listed = await call(app({ origin: APP }), "/items");
  assert.equal(listed.headers.get("Vary"), "Origin", "no Origin header sent");
  assert.equal(listed.headers.get("Access-Control-Allow-Origin"), null);
  await listed.body?.cancel();
  const star = await call(app(), "/items", { headers: { Origin: OTHER } });
  assert.equal(star.headers.get("Access-Control-Allow-Origin"), "*");
  assert.equal(star.headers.get("Vary"), null);
  await star.body?.cancel();
  const starPreflight = await preflight(
    app({ allowHeaders: ["X-Token"] }),
    "/items",
    OTHER,
  );
  assert.equal(starPreflight.headers.get("Vary"), null);
  assert.equal(
    starPreflight.headers.get("Access-Control-Allow-Headers"),
    "X-Token",
  );
  const noOrigin = await call(app(), "/items");
  assert.equal(noOrigin.headers.get("Access-Control-Allow-Origin"), null);
  await noOrigin.body?.cancel();
});

Deno.test("cors: Vary is merged with the response's own", async () => {
  const router = app({ origin: APP });
  const merged = await call(router, "/vary", { headers: { Origin: APP } });
  assert.equal(merged.headers.get("Vary"), "Accept-Encoding, Origin");
  await merged.body?.cancel();
  const star = await call(router, "/vary-star", { headers: { Origin: APP } });
  assert.equal(star.headers.get("Vary"), "*");
  await star.body?.cancel();
});

Deno.test("cors: responses with immutable headers are copied, not broken", async () => {
  const response = await call(app({ origin: APP }), "/redirect", {
    headers: { Origin: APP },
  });
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("Location"), "https://app.example/");
  assert.equal(response.headers.get("Access-Control-Allow-Origin"), APP);
});

Deno.test("cors: origin as a RegExp, a mixed list, and an async function with the context", async () => {
  const regexp = app({ origin: /^https:\/\/[a-z]+\.app\.example$/ });
  const ok = await call(regexp, "/items", {
    headers: { Origin: "https://eu.app.example" },
  });
  assert.equal(
    ok.headers.get("Access-Control-Allow-Origin"),
    "https://eu.app.example",
  );
  await ok.body?.cancel();
  const no = await call(regexp, "/items", {
    headers: { Origin: "https://eu.app.example.evil" },
  });
  assert.equal(no.headers.get("Access-Control-Allow-Origin"), null);
  await no.body?.cancel();

  const seen: string[] = [];
  const fn = app({
    origin: async (origin, context) => {
      await Promise.resolve();
      seen.push(`${context.request.method} ${context.url.pathname}`);
      return origin === APP;
    },
    credentials: true,
  });
  const yes = await preflight(fn, "/items", APP);
  assert.equal(yes.headers.get("Access-Control-Allow-Origin"), APP);
  assert.equal(yes.headers.get("Access-Control-Allow-Credentials"), "true");
  const other = await call(fn, "/items", { headers: { Origin: OTHER } });
  assert.equal(other.headers.get("Access-Control-Allow-Origin"), null);
  await other.body?.cancel();
  assert.deepEqual(seen, ["OPTIONS /items", "GET /items"]);

  const mixed = app({
    origin: [APP, /^http:\/\/[a-z]+\.local\.test$/],
    methods: ["GET", "POST"],
  });
  const local = await preflight(mixed, "/items", "http://x.local.test");
  assert.equal(
    local.headers.get("Access-Control-Allow-Origin"),
    "http://x.local.test",
  );
  assert.equal(local.headers.get("Access-Control-Allow-Methods"), "GET, POST");
});

Deno.test("cors: the Origin 'null' matches only when listed", async () => {
  const listed = await call(app({ origin: ["null"] }), "/items", {
    headers: { Origin: "null" },
  });
  assert.equal(listed.headers.get("Access-Control-Allow-Origin"), "null");
  await listed.body?.cancel();
  const unlisted = await call(app({ origin: APP }), "/items", {
    headers: { Origin: "null" },
  });
  assert.equal(unlisted.headers.get("Access-Control-Allow-Origin"), null);
  await unlisted.body?.cancel();
});

Deno.test("cors: bad options are refused when it is created", () => {
  assert.throws(
    () => cors({ credentials: true }),
    /cannot be used with credentials/,
  );
  assert.throws(() => cors({ origin: "*", credentials: true }), TypeError);
  assert.throws(() => cors({ origin: [APP, "*"] }), /cannot be part of a list/);
  assert.throws(
    () => cors({ origin: "https://app.example/" }),
    /did you mean "https:\/\/app\.example"/,
  );
  assert.throws(() => cors({ origin: "app.example" }), /is not an origin/);
  assert.throws(
    () => cors({ origin: [42 as unknown as string] }),
    /got number/,
  );
  assert.throws(
    () => cors({ methods: ["GET", "BAD METHOD"] }),
    /methods must list/,
  );
  assert.throws(
    () => cors({ allowHeaders: ["X-Ok", "bad\nheader"] }),
    /allowHeaders/,
  );
  assert.throws(() => cors({ maxAge: -1 }), RangeError);
  assert.throws(() => cors({ maxAge: 1.5 }), /whole number/);
});
