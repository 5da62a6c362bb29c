/**
 * Per-request cost of `etag()` on a 10 KB HTML body, against Hono's
 * `etag` on a Hono app: the first visit (a `200` with the tag computed)
 * and a revalidation (`If-None-Match` matching: `304`). The same handler
 * (`new Response(text)`) on both, plus our `createHtmlResponse()` (whose
 * string body is hashed without reading a stream), and each app without
 * the middleware.
 *
 *     deno bench --allow-all bench/etag/etag_bench.ts
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { etag } from "@fetchkit/toolkit/etag-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { Hono } from "hono";
import { etag as honoEtag } from "hono/etag";

const TEXT = "<!doctype html><title>Items</title><ul>" +
  Array.from({ length: 400 }, (_, i) => `<li>item ${i * 7919 % 1000}</li>`)
    .join("").slice(0, 10_000 - 60) +
  "</ul>";
const HEADERS = { "Content-Type": "text/html; charset=utf-8" };
const handler = () => new Response(TEXT, { headers: HEADERS });

const plain = createRouter();
plain.get("/", handler);
const ours = createRouter({ middleware: [etag()] });
ours.get("/", handler);
const oursHelper = createRouter({ middleware: [etag()] });
oursHelper.get("/", () => createHtmlResponse(TEXT));
const honoPlain = new Hono();
honoPlain.get("/", handler);
const hono = new Hono();
hono.use(honoEtag());
hono.get("/", handler);

const url = "http://localhost/";
const tagOf = async (
  app: { fetch(r: Request): Response | Promise<Response> },
) => {
  const response = await app.fetch(new Request(url));
  await response.arrayBuffer();
  return response.headers.get("ETag")!;
};
const ourTag = await tagOf(ours);
const honoTag = await tagOf(hono);
const revalidate = (tag: string) =>
  new Request(url, { headers: { "If-None-Match": tag } });

async function consume(response: Response | Promise<Response>): Promise<void> {
  await (await response).arrayBuffer();
}

Deno.bench("no etag (fetchkit)", { group: "200" }, async () => {
  await consume(plain.fetch(new Request(url)));
});
Deno.bench(
  "etag() new Response",
  { group: "200", baseline: true },
  async () => {
    await consume(ours.fetch(new Request(url)));
  },
);
Deno.bench("etag() createHtmlResponse", { group: "200" }, async () => {
  await consume(oursHelper.fetch(new Request(url)));
});
Deno.bench("no etag (Hono)", { group: "200" }, async () => {
  await consume(honoPlain.request(new Request(url)));
});
Deno.bench("Hono etag", { group: "200" }, async () => {
  await consume(hono.request(new Request(url)));
});

Deno.bench(
  "etag() new Response",
  { group: "304", baseline: true },
  async () => {
    await consume(ours.fetch(revalidate(ourTag)));
  },
);
Deno.bench("etag() createHtmlResponse", { group: "304" }, async () => {
  await consume(oursHelper.fetch(revalidate(ourTag)));
});
Deno.bench("Hono etag", { group: "304" }, async () => {
  await consume(hono.request(revalidate(honoTag)));
});
