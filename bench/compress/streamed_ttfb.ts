/**
 * Time to first byte of a streamed page, with and without `compress()`:
 * the page sends its `<head>` at once and the rest 50 ms later (a database
 * query). Measured over real HTTP on loopback: the time from sending the
 * request to the first decoded bytes of the page (`<head>` readable by the
 * browser), for identity, gzip and br, interleaved, `rounds` times.
 *
 *     deno run --allow-all bench/compress/streamed_ttfb.ts [rounds]
 *
 * @module
 */
import * as http from "node:http";
import * as zlib from "node:zlib";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { median, quantile } from "../_stats.ts";

const ROUNDS = Number(Deno.args[0] ?? 30);
const encoder = new TextEncoder();
const HEAD = "<!doctype html><html><head><title>Report</title>" +
  "<link rel=stylesheet href=/style.css>".repeat(40) + "</head>";
const REST = "<body>" + "<p>row of the report</p>".repeat(2000) +
  "</body></html>";

function page(): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(HEAD));
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.enqueue(encoder.encode(REST));
        controller.close();
      },
    }),
    { headers: { "Content-Type": "text/html; charset=utf-8" } },
  );
}

function serve(withCompress: boolean) {
  const router = createRouter({
    middleware: withCompress ? [compress()] : [],
  });
  router.get("/", page);
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
}

/** What the bytes so far decode to (synchronously: no client-side delay). */
function decodeSoFar(encoding: string | undefined, raw: Buffer): string {
  const c = zlib.constants;
  if (encoding === "br") {
    return zlib.brotliDecompressSync(raw, {
      finishFlush: c.BROTLI_OPERATION_FLUSH,
    }).toString();
  }
  if (encoding === "gzip") {
    return zlib.gunzipSync(raw, { finishFlush: c.Z_SYNC_FLUSH }).toString();
  }
  return raw.toString();
}

/**
 * Milliseconds until the page's whole `<head>` can be decoded from the
 * bytes received; the rest is checked to decode whole.
 */
function firstByte(port: number, coding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let first: number | undefined;
    const chunks: Buffer[] = [];
    http.get({
      host: "127.0.0.1",
      port,
      path: "/",
      headers: { "Accept-Encoding": coding },
    }, (response) => {
      const encoding = response.headers["content-encoding"];
      if ((encoding ?? "identity") !== coding) {
        reject(new Error(`asked for ${coding}, got ${encoding}`));
      }
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        if (first === undefined) {
          const text = decodeSoFar(encoding, Buffer.concat(chunks));
          if (text.startsWith(HEAD)) first = performance.now() - start;
        }
      });
      response.on("end", () => {
        const text = decodeSoFar(encoding, Buffer.concat(chunks));
        if (text !== HEAD + REST) reject(new Error("body differs"));
        else resolve(first!);
      });
      response.on("error", reject);
    }).on("error", reject);
  });
}

const plain = serve(false);
const compressed = serve(true);
const cases = [
  { name: "no compress()", port: plain.addr.port, coding: "identity" },
  {
    name: "compress(), identity",
    port: compressed.addr.port,
    coding: "identity",
  },
  { name: "compress(), gzip", port: compressed.addr.port, coding: "gzip" },
  { name: "compress(), br", port: compressed.addr.port, coding: "br" },
];
const samples = new Map(cases.map((c) => [c.name, [] as number[]]));
for (const c of cases) await firstByte(c.port, c.coding); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    samples.get(c.name)!.push(await firstByte(c.port, c.coding));
  }
}
await plain.shutdown();
await compressed.shutdown();

console.log(
  `Deno ${Deno.version.deno}, ${ROUNDS} rounds interleaved; ms from request until the page's <head> decodes from the bytes received (the rest follows 50 ms later)\n`,
);
console.log("| case | median ms | quartiles |");
console.log("|---|---:|---|");
for (const [name, values] of samples) {
  console.log(
    `| ${name} | ${median(values).toFixed(2)} | ${
      quantile(values, 0.25).toFixed(2)
    }–${quantile(values, 0.75).toFixed(2)} |`,
  );
}
