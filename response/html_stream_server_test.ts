// A streamed page over a real socket (Deno-only: Deno.serve, Deno.connect).
// The raw test reads the chunked framing itself, so it sees the chunk
// boundaries the server sent: the shell arrives while the slow part is
// still unresolved (the test resolves it only after reading the shell).
// Then the CSP nonce of secureHeaders() on the swap script, compress()
// flushing each part, and what etag() and cache() do with a live stream.
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import {
  CspNonce,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { etag } from "@fetchkit/toolkit/etag-middleware";
import {
  cache,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";

function later<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((yes) => resolve = yes);
  return { promise, resolve };
}

async function withServer(
  router: Router,
  run: (port: number) => Promise<void>,
): Promise<void> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    await run(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

/** Reads an HTTP/1.1 chunked response off a socket, chunk by chunk. */
class ChunkedReader {
  #conn: Deno.Conn;
  #buffer = new Uint8Array(0);
  headers = "";
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }
  async #more(): Promise<void> {
    const into = new Uint8Array(65536);
    // A page held back until it is complete would never send the shell
    // here (the test resolves the slow part only after reading it): fail.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      this.#conn.read(into),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error("no bytes within 5 s: the page was held back")),
          5000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (n === null) throw new Error("connection closed early");
    const joined = new Uint8Array(this.#buffer.length + n);
    joined.set(this.#buffer);
    joined.set(into.subarray(0, n), this.#buffer.length);
    this.#buffer = joined;
  }
  #indexOf(text: string): number {
    return new TextDecoder("latin1").decode(this.#buffer).indexOf(text);
  }
  async readHeaders(): Promise<string> {
    while (this.#indexOf("\r\n\r\n") === -1) await this.#more();
    const end = this.#indexOf("\r\n\r\n");
    this.headers = new TextDecoder().decode(this.#buffer.subarray(0, end));
    this.#buffer = this.#buffer.subarray(end + 4);
    return this.headers;
  }
  /** The next chunk's text; `undefined` at the last (empty) chunk. */
  async chunk(): Promise<string | undefined> {
    const bytes = await this.bytes();
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }
  /** The next chunk's bytes; `undefined` at the last (empty) chunk. */
  async bytes(): Promise<Uint8Array | undefined> {
    while (this.#indexOf("\r\n") === -1) await this.#more();
    const line = this.#indexOf("\r\n");
    const size = parseInt(
      new TextDecoder().decode(this.#buffer.subarray(0, line)),
      16,
    );
    while (this.#buffer.length < line + 2 + size + 2) await this.#more();
    const data = this.#buffer.subarray(line + 2, line + 2 + size);
    this.#buffer = this.#buffer.subarray(line + 2 + size + 2);
    return size === 0 ? undefined : data.slice();
  }
}

// deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
function page(slow: Promise<string>, comments: Promise<SafeHtml>): SafeHtml {
  return html`<!doctype html><html><head><title>Post</title></head><body><h1>Post</h1><p>${slow}</p>${html.defer(comments, html`<p id="loading">Loading comments…</p>`, { name: "comments" })}<footer>end</footer></body></html>`;
}

Deno.test("streamed page on a raw socket: the shell is sent before the slow hole resolves, then one chunk per part", async () => {
  const slow = later<string>();
  const comments = later<SafeHtml>();
  const router = createRouter();
  router.get(
    "/",
    () => createHtmlResponse(page(slow.promise, comments.promise)),
  );
  await withServer(router, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(
        new TextEncoder().encode(
          "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        ),
      );
      const reader = new ChunkedReader(conn);
      const head = await reader.readHeaders();
      assert.match(head, /^HTTP\/1\.1 200 OK/);
      assert.match(head, /content-type: text\/html; charset=utf-8/i);
      assert.match(head, /transfer-encoding: chunked/i);
      // Nothing is resolved yet: these bytes came before the slow part.
      assert.equal(
        await reader.chunk(),
        "<!doctype html><html><head><title>Post</title></head><body><h1>Post</h1><p>",
      );
      slow.resolve("<slow>");
      assert.equal(
        await reader.chunk(),
        '&lt;slow&gt;</p><template id="fk-d-1"></template><p id="loading">Loading comments…</p><template id="fk-e-1"></template><footer>end</footer>',
      );
      // deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
      comments.resolve(html`<ul><li>${"first"}</li></ul>`);
      // The part and the page's end are ready together: the server may
      // send them in one chunk.
      let rest = "";
      for (let chunk; (chunk = await reader.chunk()) !== undefined;) {
        rest += chunk;
      }
      assert.match(
        rest,
        /^<div id="fk-c-1" data-fk-deferred><ul><li>first<\/li><\/ul><\/div><script>function fkSwap\(n\)\{.*\};fkSwap\(1\)<\/script><\/body><\/html>$/,
      );
    } finally {
      conn.close();
    }
  });
});

Deno.test("streamed page under secureHeaders(): the swap script carries the CSP nonce of that response", async () => {
  const router = createRouter({
    middleware: [
      secureHeaders({ contentSecurityPolicy: { scriptSrc: ["'nonce'"] } }),
    ],
  });
  router.get("/", ({ get }) =>
    createHtmlResponse(
      page(Promise.resolve("s"), Promise.resolve(html`<b>c</b>`)),
      { nonce: get(CspNonce) },
    ));
  await withServer(router, async (port) => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      const policy = response.headers.get("content-security-policy")!;
      const nonce = /'nonce-([^']+)'/.exec(policy)![1];
      const text = await response.text();
      const scripts = [...text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
      assert.deepEqual(scripts, [` nonce="${nonce}"`]);
      nonces.add(nonce);
    }
    assert.equal(nonces.size, 2, "a fresh nonce per response");
  });
});

Deno.test("streamed page under compress(): the shell arrives (gzip, flushed) before the slow part resolves", async () => {
  const slow = later<string>();
  const router = createRouter({ middleware: [compress({ threshold: 0 })] });
  router.get(
    "/",
    () => createHtmlResponse(page(slow.promise, Promise.resolve(html`c`))),
  );
  await withServer(router, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await conn.write(
        new TextEncoder().encode(
          "GET / HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        ),
      );
      const reader = new ChunkedReader(conn);
      assert.match(await reader.readHeaders(), /content-encoding: gzip/i);
      // Gzip bytes, flushed: what arrived so far inflates to the shell.
      const compressed: Uint8Array[] = [];
      let text = "";
      while (!text.endsWith("<p>")) {
        const chunk = await reader.bytes();
        assert.ok(chunk !== undefined, "the stream ended early");
        compressed.push(chunk);
        text = new TextDecoder().decode(
          gunzipSync(concat(compressed), { finishFlush: 2 /* Z_SYNC_FLUSH */ }),
        );
      }
      assert.equal(
        text,
        "<!doctype html><html><head><title>Post</title></head><body><h1>Post</h1><p>",
      );
      slow.resolve("done");
    } finally {
      conn.close();
    }
  });
});

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

Deno.test("streamed page under etag(): a live stream passes untagged at once; under cache(): stored whole once complete", async () => {
  const slow = later<string>();
  const store = createMemoryCacheStore({ maxBytes: 1 << 20 });
  const router = createRouter();
  router.get(
    "/tagged",
    etag(),
    () => createHtmlResponse(page(slow.promise, Promise.resolve(html`c`))),
  );
  router.get(
    "/cached",
    cache({ store, ttl: 60 }),
    () =>
      createHtmlResponse(
        page(Promise.resolve("s"), Promise.resolve(html`c`)),
      ),
  );
  await withServer(router, async (port) => {
    const tagged = await fetch(`http://127.0.0.1:${port}/tagged`);
    assert.equal(tagged.headers.get("etag"), null, "untagged: not complete");
    const reader = tagged.body!.getReader();
    assert.match(
      new TextDecoder().decode((await reader.read()).value),
      /<h1>Post/,
    );
    slow.resolve("s");
    await reader.cancel();

    const miss = await fetch(`http://127.0.0.1:${port}/cached`);
    const first = await miss.text();
    assert.equal(miss.headers.get("x-cache"), "MISS");
    const hit = await fetch(`http://127.0.0.1:${port}/cached`);
    assert.equal(hit.headers.get("x-cache"), "HIT");
    assert.equal(
      await hit.text(),
      first,
      "the whole page, deferred part and all",
    );
    assert.match(first, /fkSwap\(1\)<\/script><\/body><\/html>$/);
  });
});
