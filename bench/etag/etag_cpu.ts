/**
 * CPU per request of `etag()` against Hono's `etag` on a 10 KB HTML body:
 * the first visit (`200`, tag computed) and a revalidation (`304`), each
 * app also without the middleware, in interleaved batches (see
 * `bench/_cpu_interleaved.ts`); the median over rounds, with quartiles.
 *
 *     deno run --allow-all bench/etag/etag_cpu.ts [rounds]
 *
 * `etag_bench.ts` has the same cases for `deno bench`, whose means this
 * shared machine's pauses swamp.
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { etag } from "@fetchkit/toolkit/etag-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { Hono } from "hono";
import { etag as honoEtag } from "hono/etag";
import { measureCpu } from "../_cpu_interleaved.ts";
import { median, quantile } from "../_stats.ts";

const ROUNDS = Number(Deno.args[0] ?? 15);
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

const samples = await measureCpu([
  { name: "200: fetchkit, no etag", run: () => call(apps.plain) },
  { name: "200: etag(), new Response(text)", run: () => call(apps.ours) },
  {
    name: "200: etag(), createHtmlResponse(text)",
    run: () => call(apps.oursHelper),
  },
  { name: "200: Hono, no etag", run: () => call(apps.honoPlain) },
  { name: "200: Hono etag", run: () => call(apps.hono) },
  {
    name: "304: etag(), new Response(text)",
    run: () => call(apps.ours, ourTag),
  },
  {
    name: "304: etag(), createHtmlResponse(text)",
    run: () => call(apps.oursHelper, ourTag),
  },
  { name: "304: Hono etag", run: () => call(apps.hono, honoTag) },
], { rounds: ROUNDS, batch: 500, warm: 500 });

console.log(
  `Deno ${Deno.version.deno}, ${ROUNDS} rounds interleaved, 500 requests a batch; CPU µs per request (10 KB body)\n`,
);
console.log("| case | CPU µs | quartiles |");
console.log("|---|---:|---|");
for (const [name, values] of samples) {
  console.log(
    `| ${name} | ${median(values).toFixed(1)} | ${
      quantile(values, 0.25).toFixed(1)
    }–${quantile(values, 0.75).toFixed(1)} |`,
  );
}
