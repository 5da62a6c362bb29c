// Vectors from Hono's cors tests (honojs/hono at 28a9c128,
// src/middleware/cors/index.test.ts), in our terms: a preflight needs
// Origin and Access-Control-Request-Method here, and `credentials: true`
// with the default origin "*" is refused when created rather than answered
// with a wildcard. Portable.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { cors, type CorsOptions } from "@fetchkit/toolkit/cors-middleware";

function app(options: CorsOptions) {
  const router = createRouter({ middleware: [cors(options)] });
  router.get("/api/abc", () => new Response("abc"));
  router.delete("/api/account", () => Response.json({ deleted: true }));
  return async (init: RequestInit & { path?: string } = {}) => {
    const response = await router.fetch(
      new Request(`http://localhost${init.path ?? "/api/abc"}`, init),
    );
    await response.body?.cancel();
    return response;
  };
}

const LIST = ["http://example.com", "http://example.org", "http://example.dev"];

Deno.test("cors (Hono vectors): a 200,000-character Access-Control-Request-Headers preflight is answered", async () => {
  const request = app({ origin: "*" });
  const response = await request({
    method: "OPTIONS",
    headers: {
      Origin: "http://example.com",
      "Access-Control-Request-Method": "GET",
      "Access-Control-Request-Headers": "x" + " ".repeat(200_000) + "x",
    },
  });
  assert.equal(response.status, 204);
});

Deno.test("cors (Hono vectors): an unmatched origin, no Origin, or only a Referer gets no Allow-Origin", async () => {
  const request = app({ origin: LIST });
  const preflight = await request({
    method: "OPTIONS",
    headers: {
      Origin: "http://example.net",
      "Access-Control-Request-Method": "GET",
    },
  });
  assert.equal(preflight.headers.has("Access-Control-Allow-Origin"), false);
  const matched = await request({ headers: { Origin: "http://example.org" } });
  assert.equal(
    matched.headers.get("Access-Control-Allow-Origin"),
    "http://example.org",
  );
  assert.equal(
    (await request()).headers.has("Access-Control-Allow-Origin"),
    false,
  );
  const referer = await request({
    headers: { Referer: "http://example.net/" },
  });
  assert.equal(referer.headers.has("Access-Control-Allow-Origin"), false);
  const nullOrigin = await request({ headers: { Origin: "null" } });
  assert.equal(nullOrigin.headers.has("Access-Control-Allow-Origin"), false);
});

Deno.test("cors (Hono vectors): credentials never reflect an arbitrary origin", async () => {
  // Hono answers "*" (which browsers refuse with credentials); ours refuses
  // the configuration outright.
  assert.throws(() => cors({ credentials: true }), TypeError);
  assert.throws(() => cors({ origin: "*", credentials: true }), TypeError);
  const request = app({ origin: LIST, credentials: true });
  for (
    const origin of ["https://attacker.example", "http://evil.test", "null"]
  ) {
    const simple = await request({
      path: "/api/account",
      headers: { Origin: origin },
    });
    assert.notEqual(simple.headers.get("Access-Control-Allow-Origin"), origin);
    assert.equal(simple.headers.has("Access-Control-Allow-Credentials"), false);
    const preflight = await request({
      path: "/api/account",
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "DELETE",
        "Access-Control-Request-Headers": "X-CSRF",
      },
    });
    assert.notEqual(
      preflight.headers.get("Access-Control-Allow-Origin"),
      origin,
    );
  }
});
