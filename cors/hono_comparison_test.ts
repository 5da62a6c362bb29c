// Checks each row of the comparison table in cors/mod.ts against Hono's
// cors() (npm:hono, the version pinned in deno.json), request by request.

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { cors, type CorsOptions } from "@fetchkit/toolkit/cors-middleware";
import { Hono } from "hono";
import { cors as honoCors } from "hono/cors";

const APP = "https://app.example";

type Fetch = (request: Request) => Response | Promise<Response>;

function ours(options: CorsOptions): Fetch {
  const router = createRouter({ middleware: [cors(options)] });
  router.get("/items", () => new Response("items"));
  return router.fetch;
}

function hono(options: Parameters<typeof honoCors>[0]): Fetch {
  const app = new Hono();
  app.use("*", honoCors(options));
  app.get("/items", (c) => c.text("items"));
  return app.fetch;
}

async function headersOf(
  fetch: Fetch,
  init: RequestInit,
): Promise<{ status: number; headers: Headers }> {
  const response = await fetch(new Request("http://api.local/items", init));
  await response.body?.cancel();
  return { status: response.status, headers: response.headers };
}

Deno.test("vs Hono: origin * with credentials", async () => {
  assert.throws(() => ours({ origin: "*", credentials: true }), TypeError);
  const theirs = await headersOf(hono({ origin: "*", credentials: true }), {
    headers: { Origin: APP },
  });
  assert.equal(theirs.headers.get("Access-Control-Allow-Origin"), "*");
  assert.equal(theirs.headers.get("Access-Control-Allow-Credentials"), "true");
});

Deno.test("vs Hono: credentials header for an origin not allowed", async () => {
  const init = { headers: { Origin: "https://evil.example" } };
  const mine = await headersOf(ours({ origin: APP, credentials: true }), init);
  const theirs = await headersOf(
    hono({ origin: APP, credentials: true }),
    init,
  );
  assert.equal(mine.headers.get("Access-Control-Allow-Credentials"), null);
  assert.equal(theirs.headers.get("Access-Control-Allow-Credentials"), "true");
  assert.equal(mine.headers.get("Access-Control-Allow-Origin"), null);
  assert.equal(theirs.headers.get("Access-Control-Allow-Origin"), null);
});

Deno.test("vs Hono: OPTIONS without Access-Control-Request-Method", async () => {
  const init = { method: "OPTIONS", headers: { Origin: APP } };
  const mine = await headersOf(ours({ origin: APP }), init);
  const theirs = await headersOf(hono({ origin: APP }), init);
  assert.equal(
    mine.headers.get("Allow"),
    "GET, HEAD",
    "routed: the router's answer",
  );
  assert.equal(mine.headers.get("Access-Control-Allow-Methods"), null);
  assert.notEqual(theirs.headers.get("Access-Control-Allow-Methods"), null);
});

Deno.test("vs Hono: Vary: Origin on responses and preflights for a listed origin", async () => {
  for (const make of [ours, hono]) {
    const fetch = make({ origin: [APP] });
    const plain = await headersOf(fetch, { headers: { Origin: APP } });
    assert.match(plain.headers.get("Vary") ?? "", /Origin/, make.name);
    const pre = await headersOf(fetch, {
      method: "OPTIONS",
      headers: { Origin: APP, "Access-Control-Request-Method": "GET" },
    });
    assert.equal(pre.status, 204, make.name);
    assert.match(pre.headers.get("Vary") ?? "", /Origin/, make.name);
    const none = await headersOf(fetch, {});
    assert.match(none.headers.get("Vary") ?? "", /Origin/, make.name);
  }
});

Deno.test("vs Hono: an origin with a trailing slash", async () => {
  assert.throws(() => ours({ origin: `${APP}/` }), /did you mean/);
  const theirs = await headersOf(hono({ origin: `${APP}/` }), {
    headers: { Origin: APP },
  });
  assert.equal(theirs.headers.get("Access-Control-Allow-Origin"), null);
});

Deno.test("vs Hono: default methods and echoed request headers", async () => {
  const init = {
    method: "OPTIONS",
    headers: {
      Origin: APP,
      "Access-Control-Request-Method": "PUT",
      "Access-Control-Request-Headers": "x-token",
    },
  };
  const mine = await headersOf(ours({}), init);
  const theirs = await headersOf(hono({}), init);
  assert.equal(
    mine.headers.get("Access-Control-Allow-Methods"),
    "GET, HEAD, PUT, PATCH, POST, DELETE",
  );
  assert.equal(
    theirs.headers.get("Access-Control-Allow-Methods"),
    "GET,HEAD,PUT,POST,DELETE,PATCH,QUERY",
  );
  assert.equal(mine.headers.get("Access-Control-Allow-Headers"), "x-token");
  assert.equal(theirs.headers.get("Access-Control-Allow-Headers"), "x-token");
});
