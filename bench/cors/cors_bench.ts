/**
 * Per-request cost of `cors()`: the same router with and without it, next
 * to Hono's `cors()` on a Hono app, for a simple GET from an allowed origin
 * and for a preflight.
 *
 *     deno bench --allow-all bench/cors/cors_bench.ts
 *
 * The overhead is the difference of the means within a group.
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { cors } from "@fetchkit/toolkit/cors-middleware";
import { Hono } from "hono";
import { cors as honoCors } from "hono/cors";

const ORIGIN = "https://app.example";
const options = { origin: [ORIGIN], credentials: true, maxAge: 600 };
const handler = (): Response => new Response("ok");

const plain = createRouter();
plain.get("/api/items", handler);
const withCors = createRouter({ middleware: [cors(options)] });
withCors.get("/api/items", handler);
const honoPlain = new Hono();
honoPlain.get("/api/items", handler);
const honoWithCors = new Hono();
honoWithCors.use(honoCors(options));
honoWithCors.get("/api/items", handler);

const get = new Request("http://localhost/api/items", {
  headers: { Origin: ORIGIN },
});
const preflight = new Request("http://localhost/api/items", {
  method: "OPTIONS",
  headers: {
    Origin: ORIGIN,
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "content-type",
  },
});

// Answers must be right, or the numbers mean nothing.
for (const app of [withCors, honoWithCors]) {
  const ok = await app.fetch(get);
  const pre = await app.fetch(preflight);
  if (
    ok.headers.get("Access-Control-Allow-Origin") !== ORIGIN ||
    await ok.text() !== "ok" || pre.status !== 204 ||
    pre.headers.get("Access-Control-Allow-Origin") !== ORIGIN
  ) {
    throw new Error("bench app does not answer CORS as expected");
  }
}

Deno.bench("fetchkit router", { group: "GET", baseline: true }, async () => {
  await plain.fetch(get);
});
Deno.bench("fetchkit + cors()", { group: "GET" }, async () => {
  await withCors.fetch(get);
});
Deno.bench("Hono", { group: "GET" }, async () => {
  await honoPlain.fetch(get);
});
Deno.bench("Hono + cors()", { group: "GET" }, async () => {
  await honoWithCors.fetch(get);
});
Deno.bench("fetchkit + cors() preflight", { group: "preflight" }, async () => {
  await withCors.fetch(preflight);
});
Deno.bench("Hono + cors() preflight", { group: "preflight" }, async () => {
  await honoWithCors.fetch(preflight);
});
