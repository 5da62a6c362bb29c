/**
 * Instructions per request of `compress()` on the 100 KB page of
 * `compress_cpu.ts` (gzip and br) and on small pages, against Hono's
 * `compress` and `node:zlib` called directly, counted by callgrind
 * (`bench/_callgrind_calls.ts`): a count that the machine's load does not
 * move.
 *
 *     deno run --allow-all bench/compress/compress_instructions.ts
 *
 * @module
 */
import * as zlib from "node:zlib";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { Hono } from "hono";
import { compress as honoCompress } from "hono/compress";
import { type Calls, countCalls } from "../_callgrind_calls.ts";
import { htmlPage } from "./_bodies.ts";

const PAGE = htmlPage(100_000);
const SMALL = htmlPage(2000).slice(0, 1000);
const OVER = htmlPage(3000).slice(0, 1500);
const TYPE = "text/html; charset=utf-8";
const brParams = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

type App = { fetch(request: Request): Response | Promise<Response> };
function ours(text: string, withCompress = true, helper = false): App {
  const router = createRouter({ middleware: withCompress ? [compress()] : [] });
  router.get(
    "/",
    () =>
      helper
        ? createHtmlResponse(text)
        : new Response(text, { headers: { "Content-Type": TYPE } }),
  );
  return router;
}
function hono(text: string): App {
  const app = new Hono();
  app.use(honoCompress());
  app.get("/", () => new Response(text, { headers: { "Content-Type": TYPE } }));
  return { fetch: (request) => app.request(request) };
}
async function call(app: App, coding: string): Promise<void> {
  const request = new Request("http://localhost/", {
    headers: { "Accept-Encoding": coding },
  });
  await (await app.fetch(request)).arrayBuffer();
}

const page = {
  ours: ours(PAGE),
  helper: ours(PAGE, true, true),
  hono: hono(PAGE),
};
const small = { plain: ours(SMALL, false), ours: ours(SMALL) };
const over = { plain: ours(OVER, false), ours: ours(OVER), hono: hono(OVER) };

const big: Calls = {
  "100 KB gzip: node:zlib gzipSync, direct": () =>
    Promise.resolve(zlib.gzipSync(PAGE, { level: 6 })),
  "100 KB gzip: compress(), new Response(text)": () => call(page.ours, "gzip"),
  "100 KB gzip: compress(), createHtmlResponse": () =>
    call(page.helper, "gzip"),
  "100 KB gzip: Hono compress": () => call(page.hono, "gzip"),
  "100 KB br: node:zlib brotliCompressSync q4, direct": () =>
    Promise.resolve(zlib.brotliCompressSync(PAGE, brParams)),
  "100 KB br: compress(), new Response(text)": () => call(page.ours, "br"),
  "100 KB br: compress(), createHtmlResponse": () => call(page.helper, "br"),
};
const little: Calls = {
  "1000 B, no compress()": () => call(small.plain, "gzip, br"),
  "1000 B, compress() (under threshold)": () => call(small.ours, "gzip, br"),
  "1500 B, no compress()": () => call(over.plain, "gzip"),
  "1500 B, compress() gzip": () => call(over.ours, "gzip"),
  "1500 B, compress() br": () => call(over.ours, "br"),
  "1500 B, Hono compress gzip": () => call(over.hono, "gzip"),
};
const which = Deno.args.includes("--child")
  ? (Deno.args[Deno.args.indexOf("--child") + 1] in big ? "big" : "little")
  : undefined;
const bigCounts = which === "little"
  ? undefined
  : await countCalls(import.meta.url, big, { warm: 40, calls: 20 });
const littleCounts = which === "big"
  ? undefined
  : await countCalls(import.meta.url, little, { warm: 2000, calls: 500 });

if (which === undefined) {
  console.log(
    `Deno ${Deno.version.deno}, callgrind, instructions per request (100 KB: 20 calls after 40; small: 500 after 2000)\n`,
  );
  console.log("| case | instructions |");
  console.log("|---|---:|");
  for (const counts of [bigCounts!, littleCounts!]) {
    for (const [name, count] of counts) {
      console.log(`| ${name} | ${Math.round(count).toLocaleString("en-US")} |`);
    }
  }
}
