// serveStatic({ precompressed }): .br / .zst / .gz siblings chosen by
// Accept-Encoding. Portable: set-up with node:fs, runs on Node and Bun.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  serveStatic,
  type ServeStaticOptions,
} from "@fetchkit/toolkit/static-middleware";
import { compress } from "@fetchkit/toolkit/compress-middleware";

const JS = "export const answer = 42;\n".repeat(200);

function fixture(): { root: string; remove(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "precompressed-"));
  fs.writeFileSync(path.join(root, "app.js"), JS);
  fs.writeFileSync(path.join(root, "app.js.br"), zlib.brotliCompressSync(JS));
  fs.writeFileSync(path.join(root, "app.js.gz"), zlib.gzipSync(JS));
  fs.writeFileSync(path.join(root, "only-gz.css"), "body{}".repeat(300));
  fs.writeFileSync(
    path.join(root, "only-gz.css.gz"),
    zlib.gzipSync("body{}".repeat(300)),
  );
  fs.writeFileSync(path.join(root, "plain.txt"), "plain ".repeat(300));
  fs.mkdirSync(path.join(root, "docs"));
  fs.writeFileSync(path.join(root, "docs", "index.html"), "<h1>docs</h1>");
  fs.writeFileSync(
    path.join(root, "docs", "index.html.br"),
    zlib.brotliCompressSync("<h1>docs</h1>"),
  );
  return {
    root,
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

function app(options: Omit<ServeStaticOptions, "root">, root: string) {
  const router = createRouter({
    middleware: [serveStatic({ root, ...options })],
  });
  return (target: string, headers: Record<string, string> = {}) =>
    router.fetch(new Request(`http://localhost${target}`, { headers }));
}

async function body(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

Deno.test("serveStatic precompressed: the best sibling the client accepts", async () => {
  const { root, remove } = fixture();
  try {
    const fetch = app({ precompressed: true }, root);
    const br = await fetch("/app.js", { "Accept-Encoding": "gzip, br" });
    assert.equal(br.status, 200);
    assert.equal(br.headers.get("Content-Encoding"), "br");
    assert.equal(
      br.headers.get("Content-Type"),
      "text/javascript; charset=utf-8",
    );
    assert.equal(br.headers.get("Vary"), "Accept-Encoding");
    const brBytes = await body(br);
    assert.equal(br.headers.get("Content-Length"), String(brBytes.length));
    assert.equal(zlib.brotliDecompressSync(brBytes).toString(), JS);

    const gz = await fetch("/app.js", { "Accept-Encoding": "gzip, br;q=0.5" });
    assert.equal(gz.headers.get("Content-Encoding"), "gzip");
    assert.equal(zlib.gunzipSync(await body(gz)).toString(), JS);

    // The plain file, when nothing is accepted, with Vary all the same.
    const plain = await fetch("/app.js");
    assert.equal(plain.headers.get("Content-Encoding"), null);
    assert.equal(plain.headers.get("Vary"), "Accept-Encoding");
    assert.equal((await body(plain)).toString(), JS);

    // Only the siblings that exist are offered.
    const css = await fetch("/only-gz.css", { "Accept-Encoding": "br, gzip" });
    assert.equal(css.headers.get("Content-Encoding"), "gzip");
    assert.equal(
      zlib.gunzipSync(await body(css)).toString(),
      "body{}".repeat(300),
    );

    // No sibling: no Vary, the file as it is.
    const txt = await fetch("/plain.txt", { "Accept-Encoding": "br, gzip" });
    assert.equal(txt.headers.get("Content-Encoding"), null);
    assert.equal(txt.headers.get("Vary"), null);
    await txt.body?.cancel();

    // A directory's index file too.
    const docs = await fetch("/docs/", { "Accept-Encoding": "br" });
    assert.equal(docs.headers.get("Content-Encoding"), "br");
    assert.equal(docs.headers.get("Content-Type"), "text/html; charset=utf-8");
    assert.equal(
      zlib.brotliDecompressSync(await body(docs)).toString(),
      "<h1>docs</h1>",
    );
  } finally {
    remove();
  }
});

Deno.test("serveStatic precompressed: each coding has its own ETag and 304", async () => {
  const { root, remove } = fixture();
  try {
    const fetch = app({ precompressed: true }, root);
    const br = await fetch("/app.js", { "Accept-Encoding": "br" });
    const gz = await fetch("/app.js", { "Accept-Encoding": "gzip" });
    const plain = await fetch("/app.js");
    const tags = [br, gz, plain].map((r) => r.headers.get("ETag"));
    assert.equal(new Set(tags).size, 3, tags.join(" "));
    await Promise.all([br, gz, plain].map((r) => r.body?.cancel()));
    const again = await fetch("/app.js", {
      "Accept-Encoding": "br",
      "If-None-Match": tags[0]!,
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("Vary"), "Accept-Encoding");
    // The br tag does not validate the gzip bytes.
    const other = await fetch("/app.js", {
      "Accept-Encoding": "gzip",
      "If-None-Match": tags[0]!,
    });
    assert.equal(other.status, 200);
    await other.body?.cancel();
  } finally {
    remove();
  }
});

Deno.test("serveStatic precompressed: a list limits the codings; off by default", async () => {
  const { root, remove } = fixture();
  try {
    const gzipOnly = app({ precompressed: ["gzip"] }, root);
    const response = await gzipOnly("/app.js", {
      "Accept-Encoding": "br, gzip",
    });
    assert.equal(response.headers.get("Content-Encoding"), "gzip");
    await response.body?.cancel();

    const off = app({}, root);
    const plain = await off("/app.js", { "Accept-Encoding": "br, gzip" });
    assert.equal(plain.headers.get("Content-Encoding"), null);
    assert.equal((await body(plain)).toString(), JS);

    assert.throws(
      () => serveStatic({ root, precompressed: ["lzma" as "br"] }),
      /unknown precompressed coding "lzma"/,
    );
  } finally {
    remove();
  }
});

Deno.test("serveStatic precompressed behind compress(): served as they are, not twice", async () => {
  const { root, remove } = fixture();
  try {
    const router = createRouter({
      middleware: [compress(), serveStatic({ root, precompressed: true })],
    });
    const response = await router.fetch(
      new Request("http://localhost/app.js", {
        headers: { "Accept-Encoding": "br" },
      }),
    );
    assert.equal(response.headers.get("Content-Encoding"), "br");
    assert.equal(response.headers.get("Vary"), "Accept-Encoding");
    assert.equal(
      zlib.brotliDecompressSync(await body(response)).toString(),
      JS,
    );
    // A file without siblings is compressed on the fly.
    const txt = await router.fetch(
      new Request("http://localhost/plain.txt", {
        headers: { "Accept-Encoding": "gzip" },
      }),
    );
    assert.equal(txt.headers.get("Content-Encoding"), "gzip");
    assert.equal(
      zlib.gunzipSync(await body(txt)).toString(),
      "plain ".repeat(300),
    );
  } finally {
    remove();
  }
});
