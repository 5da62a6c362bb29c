/**
 * Instructions per request of `etag()` against Hono's `etag` on a 10 KB
 * HTML body (the cases of `etag_cpu.ts`), counted by callgrind
 * (`bench/_callgrind_calls.ts`): a count that the machine's load does not
 * move.
 *
 *     deno run --allow-all bench/etag/etag_instructions.ts
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { etag } from "@fetchkit/toolkit/etag-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { Hono } from "hono";
import { etag as honoEtag } from "hono/etag";
import { countCalls } from "../_callgrind_calls.ts";

const TEXT = "<!doctype html><title>Items</title><ul>" +
  Array.from({ length: 400 }, (_, i) => `<li>item ${i * 7919 % 1000}</li>`)
    .join("").slice(0, 10_000 - 60) +
  "</ul>";
const HEADERS = { "Content-Type": "text/html; charset=utf-8" };
const handler = () => new Response(TEXT, { headers: HEADERS });

type App = { fetch(request: Request): Response | Promise<Response> };
function ours(make: () => Response, withEtag = true): App {
  const router = createRouter({ middleware: withEtag ? [etag()] : [] });
  router.get("/", make);
  return router;
}
function hono(withEtag = true): App {
  const app = new Hono();
  if (withEtag) app.use(honoEtag());
  app.get("/", handler);
  return { fetch: (request) => app.request(request) };
}

const url = "http://localhost/";
async function call(app: App, tag?: string): Promise<void> {
  const request = tag === undefined
    ? new Request(url)
    : new Request(url, { headers: { "If-None-Match": tag } });
  await (await app.fetch(request)).arrayBuffer();
}
async function tagOf(app: App): Promise<string> {
  const response = await app.fetch(new Request(url));
  await response.arrayBuffer();
  return response.headers.get("ETag")!;
}

const apps = {
  plain: ours(handler, false),
  ours: ours(handler),
  oursHelper: ours(() => createHtmlResponse(TEXT)),
  honoPlain: hono(false),
  hono: hono(),
};
const ourTag = await tagOf(apps.ours);
const honoTag = await tagOf(apps.hono);

const counts = await countCalls(import.meta.url, {
  "200: fetchkit, no etag": () => call(apps.plain),
  "200: etag(), new Response(text)": () => call(apps.ours),
  "200: etag(), createHtmlResponse(text)": () => call(apps.oursHelper),
  "200: Hono, no etag": () => call(apps.honoPlain),
  "200: Hono etag": () => call(apps.hono),
  "304: etag(), new Response(text)": () => call(apps.ours, ourTag),
  "304: etag(), createHtmlResponse(text)": () => call(apps.oursHelper, ourTag),
  "304: Hono etag": () => call(apps.hono, honoTag),
}, { warm: 3000, calls: 1000 });

if (counts !== undefined) {
  console.log(
    `Deno ${Deno.version.deno}, callgrind, instructions per request (10 KB body), 1000 calls after 3000 warm-up\n`,
  );
  console.log("| case | instructions |");
  console.log("|---|---:|");
  for (const [name, count] of counts) {
    console.log(`| ${name} | ${Math.round(count).toLocaleString("en-US")} |`);
  }
}
