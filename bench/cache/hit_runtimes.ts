/**
 * The cached page's hit path in process, on Deno, Node and Bun: the
 * `GET /cached` scenario of `bench/runtimes/_apps.ts` (the 3.9 KB page of
 * 30 rows behind `cache()` on the memory store) sent to `router.fetch`,
 * against the same router answering from a `Map` of strings in a
 * middleware (what Hono, Elysia and Fastify do in that scenario on Node
 * and Bun), and, with `--base=<dir>`, against `cache()` and the router of
 * an earlier checkout loaded in the same process. Every contender's body
 * is read (`--read=0`: not read, as a server writes a string body to the
 * socket without a read in JavaScript; on Node the `Response` class is
 * `@hono/node-server`'s, which `serve()` uses there, and whose read builds
 * a second, native `Response`). Interleaved rounds: each round runs
 * every contender `--n` times in turn; CPU time of the process
 * (`process.cpuUsage()`), medians and quartiles over rounds, and the
 * median of the per-round ratios.
 *
 * ```sh
 * git archive main | tar -x -C /tmp/base
 * deno run -A bench/cache/hit_runtimes.ts --base=/tmp/base \
 *   [--runtimes=deno,node,bun] [--rounds=15] [--n=2000] [--read=1]
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { OUT, ROOT } from "../../_tools/runtimes/bundle.ts";
import { bunBinary } from "../../_tools/runtimes/binaries.ts";

const args = new Map(
  Deno.args.map((arg) => {
    const [name, value = ""] = arg.replace(/^--/, "").split("=");
    return [name, value] as [string, string];
  }),
);
const runtimes = (args.get("runtimes") ?? "deno,node,bun").split(",");
const rounds = Number(args.get("rounds") ?? 15);
const n = Number(args.get("n") ?? 2000);
const read = args.get("read") ?? "1";
const base = args.get("base");

/** One side's parts, bundled: its router and cache, and the page. */
function side(root: string): string {
  return `
export { createRouter } from "${root}/router/mod.ts";
export { cache, createMemoryCacheStore } from "${root}/cache/mod.ts";
export { createHtmlResponse } from "${root}/response/html.ts";
`;
}

const DRIVER = `
import { cpuUsage } from "node:process";
const [oursPath, basePath, rounds, n, read, page] = (globalThis.Deno?.args ??
  globalThis.process.argv.slice(2));
// On Node, the serve() adapter's (@hono/node-server) Response and Request
// classes, as a served request has them: its Response keeps a string body
// and a header record to write them to the socket as they are.
if (!globalThis.Deno && !globalThis.Bun) {
  const { getRequestListener } = await import("@hono/node-server");
  getRequestListener(() => new Response(null));
}
const ours = await import(oursPath);
const sides = [["ours", ours]];
if (basePath !== "-") sides.push(["base", await import(basePath)]);
const { renderPage } = await import(page);
const PAGE = renderPage("guest", 0, "static");
const URL_ = "http://127.0.0.1:8000/cached";
const HTML = "text/html; charset=utf-8";

function cached(parts) {
  const router = parts.createRouter();
  router.get("/cached", parts.cache({ store: parts.createMemoryCacheStore() }),
    () => parts.createHtmlResponse(PAGE));
  return router.fetch;
}
// The peers' bar: a Map of strings by URL in a middleware (Hono's mapCache
// of _apps.ts: body and headers kept, one Response per hit).
function mapped(parts) {
  const router = parts.createRouter();
  const store = new Map();
  router.get("/cached", async (context, next) => {
    const hit = store.get(context.request.url);
    if (hit !== undefined) {
      return new Response(hit.body, { headers: hit.headers });
    }
    const response = await next();
    const headers = Object.fromEntries(response.headers);
    headers["x-cache"] = "HIT";
    store.set(context.request.url, { body: await response.clone().text(), headers });
    return response;
  }, () => parts.createHtmlResponse(PAGE));
  return router.fetch;
}
const contenders = [["Map of strings (ours router)", mapped(ours)]];
for (const [name, parts] of sides) contenders.push([name + " cache()", cached(parts)]);

const reading = read === "1";
async function run(fetch, count) {
  for (let i = 0; i < count; i++) {
    let response = fetch(new Request(URL_));
    if (typeof response.then === "function") response = await response;
    if (reading) {
      const text = await response.text();
      if (text.length !== PAGE.length) throw new Error("wrong body");
    }
  }
}
for (const [name, fetch] of contenders) {
  await run(fetch, 1);
  const response = await fetch(new Request(URL_));
  if (response.headers.get("x-cache") !== "HIT") throw new Error(name + ": no hit");
  await run(fetch, 3000);
}
const cpu = contenders.map(() => []);
for (let round = 0; round < Number(rounds); round++) {
  for (const [index, [, fetch]] of contenders.entries()) {
    const start = cpuUsage();
    await run(fetch, Number(n));
    const used = cpuUsage(start);
    cpu[index].push((used.user + used.system) / Number(n));
  }
}
console.log(JSON.stringify({ names: contenders.map(([name]) => name), cpu }));
`;

await Deno.mkdir(OUT, { recursive: true });
const bundles: string[] = [];
for (const [name, root] of [["ours", ROOT], ["base", base]]) {
  if (root === undefined) {
    bundles.push("-");
    continue;
  }
  const ts = join(root, `_tools/runtimes/.out/cache_hit_${name}.ts`);
  await Deno.mkdir(join(root, "_tools/runtimes/.out"), { recursive: true });
  await Deno.writeTextFile(ts, side(root));
  const js = join(OUT, `cache_hit_${name}.mjs`);
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=deno", "-o", js, ts],
    cwd: root,
  }).output();
  if (!built.success) throw new Error(new TextDecoder().decode(built.stderr));
  bundles.push(js);
}
const pageTs = join(OUT, "cache_hit_page.ts");
await Deno.writeTextFile(
  pageTs,
  `export { renderPage } from "${ROOT}/bench/runtimes/_app_data.ts";\n`,
);
const pageJs = join(OUT, "cache_hit_page.mjs");
const builtPage = await new Deno.Command(Deno.execPath(), {
  args: ["bundle", "--quiet", "--platform=deno", "-o", pageJs, pageTs],
  cwd: ROOT,
}).output();
if (!builtPage.success) {
  throw new Error(new TextDecoder().decode(builtPage.stderr));
}
const driver = join(OUT, "cache_hit_driver.mjs");
await Deno.writeTextFile(driver, DRIVER);

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)] + sorted[Math.ceil(middle)]) / 2;
}
function quartiles(values: number[]): string {
  const sorted = values.toSorted((a, b) => a - b);
  const at = (q: number) => sorted[Math.round((sorted.length - 1) * q)];
  return `${at(0.25).toFixed(2)}-${at(0.75).toFixed(2)}`;
}

console.log(
  `${rounds} rounds of ${n} requests per contender, body ${
    read === "1" ? "read" : "unread"
  }\n`,
);
console.log(
  "| runtime | contender | CPU µs/request, median (IQR) | ÷ Map of strings, median of rounds (IQR) |",
);
console.log("|---|---|---:|---:|");
for (const runtime of runtimes) {
  const command = runtime === "deno"
    ? [Deno.execPath(), "run", "-A", driver]
    : [runtime === "node" ? "node" : await bunBinary() ?? "bun", driver];
  const output = await new Deno.Command(command[0], {
    args: [
      ...command.slice(1),
      ...bundles,
      String(rounds),
      String(n),
      read,
      pageJs,
    ],
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`${runtime} failed`);
  const { names, cpu } = JSON.parse(new TextDecoder().decode(output.stdout));
  for (const [index, name] of (names as string[]).entries()) {
    const values = cpu[index] as number[];
    const ratios = values.map((value, round) => value / cpu[0][round]);
    console.log(
      `| ${runtime} | ${name} | ${median(values).toFixed(2)} (${
        quartiles(values)
      }) | ${median(ratios).toFixed(2)} (${quartiles(ratios)}) |`,
    );
  }
}
