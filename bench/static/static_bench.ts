/**
 * Static files in process (no sockets): why `serveStatic` makes its file
 * system calls synchronously, and one 1 KiB file through our router and
 * through a Hono app with Hono's `serveStatic` for Deno, body read whole.
 *
 *     deno bench --allow-all bench/static/static_bench.ts
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { Hono } from "hono";
import { serveStatic as honoServeStatic } from "hono/deno";

const root = Deno.makeTempDirSync({ prefix: "static-bench-" });
Deno.mkdirSync(`${root}/css/site`, { recursive: true });
const file = `${root}/css/site/small.css`;
Deno.writeTextFileSync(file, "a".repeat(1024));
globalThis.addEventListener("unload", () => {
  Deno.removeSync(root, { recursive: true });
});

Deno.bench("realPath (async)", { group: "fs" }, async () => {
  await Deno.realPath(file);
});
Deno.bench("realPathSync", { group: "fs", baseline: true }, () => {
  Deno.realPathSync(file);
});
Deno.bench("stat (async)", { group: "fs" }, async () => {
  await Deno.stat(file);
});
Deno.bench("statSync", { group: "fs" }, () => {
  Deno.statSync(file);
});
Deno.bench("open + close (async)", { group: "fs" }, async () => {
  (await Deno.open(file)).close();
});
Deno.bench("openSync + close", { group: "fs" }, () => {
  Deno.openSync(file).close();
});

const ours = createRouter({ middleware: [serveStatic({ root })] }).fetch;
const app = new Hono();
app.use("/*", honoServeStatic({ root }));
const url = "http://localhost/css/site/small.css";

Deno.bench("fetchkit serveStatic, 1 KiB", {
  group: "serve",
  baseline: true,
}, async () => {
  await (await ours(new Request(url))).arrayBuffer();
});
Deno.bench("Hono serveStatic (hono/deno), 1 KiB", {
  group: "serve",
}, async () => {
  await (await app.fetch(new Request(url))).arrayBuffer();
});
