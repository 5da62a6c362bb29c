/**
 * CPU per MiB and ratio of `compress()`, against Hono's `compress` (gzip
 * only: it has no brotli) and `node:zlib` called directly (one-shot, at the
 * same level), in the same run, on a 100 KB HTML page and a 1 MB JSON
 * body; and the CPU a 1 KB response costs with and without `compress()`.
 *
 *     deno run --allow-all bench/compress/compress_cpu.ts [rounds]
 *
 * Each contender runs a batch, then the next (A B C A B C ...), for
 * `rounds` rounds; the figure is the median over rounds of the process's
 * CPU time (user + system, all threads: zlib work off the main thread
 * counts) per MiB of input, or per request for the 1 KB case.
 *
 * @module
 */
import * as zlib from "node:zlib";
import process from "node:process";
import { type Contender, measureCpu } from "../_cpu_interleaved.ts";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { Hono } from "hono";
import { compress as honoCompress } from "hono/compress";
import { median, quantile } from "../_stats.ts";
import { htmlPage, jsonBody } from "./_bodies.ts";

const ROUNDS = Number(process.argv[2] ?? Deno.args[0] ?? 9);

const BODIES = [
  {
    name: "HTML 100 KB",
    text: htmlPage(100_000),
    type: "text/html; charset=utf-8",
  },
  { name: "JSON 1 MB", text: jsonBody(1_000_000), type: "application/json" },
];

function routerApp(text: string, type: string, middleware = [compress()]) {
  const router = createRouter({ middleware });
  router.get(
    "/",
    () => new Response(text, { headers: { "Content-Type": type } }),
  );
  return router;
}

function honoApp(text: string, type: string) {
  const app = new Hono();
  app.use(honoCompress());
  app.get("/", () => new Response(text, { headers: { "Content-Type": type } }));
  return app;
}

async function size(response: Response): Promise<number> {
  return (await response.arrayBuffer()).byteLength;
}

async function measure(
  contenders: Contender[],
  batch: number,
): Promise<Map<string, number[]>> {
  return await measureCpu(contenders, { rounds: ROUNDS, batch, warm: 3 });
}

function fmt(n: number, digits = 0): string {
  return n.toFixed(digits);
}

console.log(
  `Deno ${Deno.version.deno}, ${ROUNDS} rounds interleaved; CPU ms per MiB of input, median [quartiles]; ratio = compressed / original\n`,
);
const brParams = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
for (const body of BODIES) {
  const bytes = new TextEncoder().encode(body.text).byteLength;
  const mib = bytes / (1024 * 1024);
  const batch = bytes > 500_000 ? 4 : 30;
  const ours = routerApp(body.text, body.type);
  const oursHelper = createRouter({ middleware: [compress()] });
  // A response helper's string body (remembered, so compressed from the
  // string): createHtmlResponse with the body's own Content-Type.
  oursHelper.get(
    "/",
    () =>
      createHtmlResponse(body.text, { headers: { "Content-Type": body.type } }),
  );
  // node:zlib called in the handler, with no middleware: the same router
  // and Response costs as compress(), and zlib's.
  const inHandler = (coding: "gzip" | "br") => {
    const router = createRouter();
    router.get("/", () =>
      new Response(
        (coding === "gzip"
          ? zlib.gzipSync(body.text, { level: 6 })
          : zlib.brotliCompressSync(body.text, brParams)) as Uint8Array<
            ArrayBuffer
          >,
        { headers: { "Content-Type": body.type, "Content-Encoding": coding } },
      ));
    return router;
  };
  const gzipHandler = inHandler("gzip");
  const brHandler = inHandler("br");
  const hono = honoApp(body.text, body.type);
  const request = (coding: string) =>
    new Request("http://localhost/", {
      headers: { "Accept-Encoding": coding },
    });
  const contenders: Contender[] = [
    {
      name: "gzip: node:zlib gzipSync (level 6)",
      run: () =>
        Promise.resolve(zlib.gzipSync(body.text, { level: 6 }).byteLength),
    },
    {
      name: "gzip: CompressionStream direct",
      run: () =>
        size(
          new Response(
            new Blob([body.text]).stream().pipeThrough(
              new CompressionStream("gzip"),
            ),
          ),
        ),
    },
    {
      name: "gzip: node:zlib gzipSync in the handler (router, no middleware)",
      run: async () => size(await gzipHandler.fetch(request("gzip"))),
    },
    {
      name: "gzip: compress(), new Response(text)",
      run: async () => size(await ours.fetch(request("gzip"))),
    },
    {
      name: "gzip: compress(), response helper",
      run: async () => size(await oursHelper.fetch(request("gzip"))),
    },
    {
      name: "gzip: Hono compress",
      run: async () => size(await hono.request(request("gzip"))),
    },
    {
      name: "br: node:zlib brotliCompressSync (quality 4)",
      run: () =>
        Promise.resolve(
          zlib.brotliCompressSync(body.text, brParams).byteLength,
        ),
    },
    {
      name: "br: node:zlib in the handler (router, no middleware)",
      run: async () => size(await brHandler.fetch(request("br"))),
    },
    {
      name: "br: compress(), new Response(text)",
      run: async () => size(await ours.fetch(request("br"))),
    },
    {
      name: "br: compress(), response helper",
      run: async () => size(await oursHelper.fetch(request("br"))),
    },
  ];
  const ratios = new Map<string, number>();
  for (const contender of contenders) {
    ratios.set(contender.name, (await contender.run() as number) / bytes);
  }
  const samples = await measure(contenders, batch);
  console.log(`${body.name} (${bytes} bytes)`);
  console.log("| contender | CPU ms/MiB | quartiles | ratio |");
  console.log("|---|---:|---|---:|");
  for (const contender of contenders) {
    const perMiB = samples.get(contender.name)!.map((us) => us / 1000 / mib);
    console.log(
      `| ${contender.name} | ${fmt(median(perMiB), 1)} | ${
        fmt(quantile(perMiB, 0.25), 1)
      }–${fmt(quantile(perMiB, 0.75), 1)} | ${
        fmt(ratios.get(contender.name)!, 3)
      } |`,
    );
  }
  console.log();
}

// A 1 KB response: under the 1 KiB threshold (left alone) and just over it.
const small = htmlPage(2000).slice(0, 1000);
const over = htmlPage(3000).slice(0, 1500);
const plainRouter = routerApp(small, "text/html", []);
const smallRouter = routerApp(small, "text/html");
const overPlain = routerApp(over, "text/html", []);
const overRouter = routerApp(over, "text/html");
const overHono = honoApp(over, "text/html");
const gzipRequest = () =>
  new Request("http://localhost/", {
    headers: { "Accept-Encoding": "gzip, deflate, br, zstd" },
  });
const gzipOnly = () =>
  new Request("http://localhost/", { headers: { "Accept-Encoding": "gzip" } });
const small_ = await measure([
  {
    name: "1000 B, no compress()",
    run: async () => size(await plainRouter.fetch(gzipRequest())),
  },
  {
    name: "1000 B, compress() (under threshold)",
    run: async () => size(await smallRouter.fetch(gzipRequest())),
  },
  {
    name: "1500 B, no compress()",
    run: async () => size(await overPlain.fetch(gzipRequest())),
  },
  {
    name: "1500 B, compress() br",
    run: async () => size(await overRouter.fetch(gzipRequest())),
  },
  {
    name: "1500 B, compress() gzip",
    run: async () => size(await overRouter.fetch(gzipOnly())),
  },
  {
    name: "1500 B, Hono compress gzip",
    run: async () => size(await overHono.request(gzipOnly())),
  },
], 2000);
console.log("Small responses: CPU µs per request, median [quartiles]");
console.log("| case | CPU µs | quartiles |");
console.log("|---|---:|---|");
for (const [name, values] of small_) {
  console.log(
    `| ${name} | ${fmt(median(values), 1)} | ${
      fmt(quantile(values, 0.25), 1)
    }–${fmt(quantile(values, 0.75), 1)} |`,
  );
}
