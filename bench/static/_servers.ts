/**
 * Static files from one folder on our `serveStatic` and Hono's `serveStatic`
 * for Deno, each `Deno.serve`d for `bench/static/load.ts`:
 * `deno run --allow-net=127.0.0.1 --allow-read bench/static/_servers.ts <name> <root> <port>`.
 * The `bare-*` servers answer every request with `<root>/small.txt` from a
 * bare handler, to compare body kinds: bytes read with one `readSync`, the
 * file's stream with `Content-Length`, and the stream without it (chunked).
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { Hono } from "hono";
import { serveStatic as honoServeStatic } from "hono/deno";
import { serveNamed } from "../_load.ts";

const [name, root, port] = Deno.args;

function fetchkit(): (request: Request) => Response | Promise<Response> {
  return createRouter({ middleware: [serveStatic({ root })] }).fetch;
}

function hono(): (request: Request) => Response | Promise<Response> {
  const app = new Hono();
  app.use("/*", honoServeStatic({ root }));
  return app.fetch;
}

function bare(kind: "bytes" | "stream-length" | "stream") {
  const path = `${root}/small.txt`;
  return (): Response => {
    const { size } = Deno.statSync(path);
    const file = Deno.openSync(path);
    const headers: Record<string, string> = { "Content-Type": "text/plain" };
    if (kind !== "stream") headers["Content-Length"] = String(size);
    if (kind !== "bytes") return new Response(file.readable, { headers });
    const bytes = new Uint8Array(size);
    let filled = 0;
    while (filled < size) {
      const read = file.readSync(bytes.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    file.close();
    return new Response(bytes, { headers });
  };
}

serveNamed(
  {
    fetchkit,
    hono,
    "bare-bytes": () => bare("bytes"),
    "bare-stream-length": () => bare("stream-length"),
    "bare-stream": () => bare("stream"),
  },
  name,
  port,
);
