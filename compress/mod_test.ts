// compress(): negotiation, what is left alone, headers, and round trips
// decoded with node:zlib. Portable: runs on Deno, Node and Bun.

import assert from "node:assert/strict";
import * as zlib from "node:zlib";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import {
  compress,
  type CompressOptions,
  isCompressible,
} from "@fetchkit/toolkit/compress-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { quietErrors } from "../_tools/console.ts";

const HTML = "<p>Hello, compressed world. ".repeat(200) + "é ✓ 😀</p>";
const hasZstd = typeof (zlib as { zstdDecompressSync?: unknown })
  .zstdDecompressSync === "function";

function app(
  handler: () => Response | Promise<Response>,
  options?: CompressOptions,
  more: Middleware[] = [],
) {
  const router = createRouter({ middleware: [compress(options), ...more] });
  router.get("/", handler);
  return (headers: Record<string, string> = {}, method = "GET") =>
    router.fetch(new Request("http://localhost/", { method, headers }));
}

function html(body = HTML, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    headers: { "Content-Type": "text/html; charset=utf-8", ...headers },
  });
}

/** `promise`, or a rejection naming `what` after `ms` milliseconds. */
async function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not arrive within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function bytes(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

function decode(coding: string | null, data: Uint8Array): string {
  const buffer = Buffer.from(data);
  switch (coding) {
    case "br":
      return zlib.brotliDecompressSync(buffer).toString();
    case "gzip":
      return zlib.gunzipSync(buffer).toString();
    case "deflate":
      return zlib.inflateSync(buffer).toString();
    case "zstd":
      return (zlib as unknown as {
        zstdDecompressSync(data: Buffer): Buffer;
      }).zstdDecompressSync(buffer).toString();
    case null:
      return new TextDecoder().decode(data);
  }
  throw new Error(`unexpected coding ${coding}`);
}

/** What the bytes so far decode to: a stream cut anywhere decodes this far. */
function decodePartial(coding: string, data: Buffer): string {
  const c = zlib.constants;
  if (coding === "br") {
    return zlib.brotliDecompressSync(data, {
      finishFlush: c.BROTLI_OPERATION_FLUSH,
    }).toString();
  }
  const options = { finishFlush: c.Z_SYNC_FLUSH };
  return (coding === "gzip"
    ? zlib.gunzipSync(data, options)
    : zlib.inflateSync(data, options)).toString();
}

async function codingFor(acceptEncoding: string | undefined) {
  const fetch = app(() => html());
  const response = await fetch(
    acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding },
  );
  const coding = response.headers.get("Content-Encoding");
  assert.equal(decode(coding, await bytes(response)), HTML);
  return coding;
}

Deno.test("compress: round trips decode with node:zlib to the same text", async () => {
  const codings = ["br", "gzip", "deflate", ...(hasZstd ? ["zstd"] : [])];
  for (const coding of codings) {
    const fetch = app(() => html());
    const response = await fetch({ "Accept-Encoding": coding });
    assert.equal(response.headers.get("Content-Encoding"), coding);
    const data = await bytes(response);
    assert.ok(data.byteLength < HTML.length / 5, `${coding} compressed`);
    assert.equal(decode(coding, data), HTML);
  }
});

Deno.test("compress: among equal q-values br, then zstd, gzip, deflate", async () => {
  assert.equal(await codingFor("gzip, deflate, br, zstd"), "br");
  assert.equal(await codingFor("deflate, gzip"), "gzip");
  assert.equal(await codingFor("deflate"), "deflate");
  assert.equal(
    await codingFor("gzip, deflate, zstd"),
    hasZstd ? "zstd" : "gzip",
  );
  assert.equal(await codingFor("GZIP"), "gzip");
});

Deno.test("compress: q-values choose, q=0 refuses", async () => {
  assert.equal(await codingFor("br;q=0.5, gzip;q=0.8"), "gzip");
  assert.equal(await codingFor("br;q=0, gzip"), "gzip");
  assert.equal(await codingFor("gzip;q=1.0, br;q=0.999"), "gzip");
  assert.equal(await codingFor("br;q=0.5, gzip;q=0.5, deflate;q=0.5"), "br");
  assert.equal(await codingFor("gzip;q=0, deflate;q=0"), null);
  // A malformed q-value counts as 0.
  assert.equal(await codingFor("br;q=2, gzip;q=abc, deflate"), "deflate");
});

Deno.test("compress: * stands for the codings not named", async () => {
  assert.equal(await codingFor("*"), "br");
  assert.equal(await codingFor("br;q=0, *"), hasZstd ? "zstd" : "gzip");
  assert.equal(await codingFor("*;q=0.1, deflate"), "deflate");
  assert.equal(await codingFor("*;q=0"), null);
});

Deno.test("compress: identity, and never 406", async () => {
  // No Accept-Encoding: the body as it is.
  assert.equal(await codingFor(undefined), null);
  assert.equal(await codingFor(""), null);
  assert.equal(await codingFor("identity"), null);
  // identity preferred by a higher q-value.
  assert.equal(await codingFor("gzip;q=0.5, identity"), null);
  assert.equal(await codingFor("gzip, identity;q=0.5"), "gzip");
  // Nothing acceptable, identity refused too: still 200 with the body.
  const fetch = app(() => html());
  const response = await fetch({ "Accept-Encoding": "identity;q=0, *;q=0" });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Encoding"), null);
  assert.equal(await response.text(), HTML);
  assert.equal(await codingFor("compress, x-unknown"), null);
});

Deno.test("compress: Vary, Content-Length dropped, strong ETag made weak", async () => {
  const fetch = app(() =>
    html(HTML, {
      "Content-Length": String(new TextEncoder().encode(HTML).byteLength),
      ETag: '"abc"',
      "Accept-Ranges": "bytes",
      Vary: "Cookie",
    })
  );
  const response = await fetch({ "Accept-Encoding": "gzip" });
  assert.equal(response.headers.get("Content-Encoding"), "gzip");
  assert.equal(response.headers.get("Content-Length"), null);
  assert.equal(response.headers.get("Accept-Ranges"), null);
  assert.equal(response.headers.get("ETag"), 'W/"abc"');
  assert.equal(response.headers.get("Vary"), "Cookie, Accept-Encoding");
  await response.body?.cancel();

  // Identity answers vary too, and keep their length and tag.
  const plain = await fetch({});
  assert.equal(plain.headers.get("Vary"), "Cookie, Accept-Encoding");
  assert.equal(plain.headers.get("ETag"), '"abc"');
  assert.ok(plain.headers.get("Content-Length"));
  assert.equal(await plain.text(), HTML);

  // A weak tag stays as it is; Vary listing it already is not repeated.
  const weak = app(() =>
    html(HTML, { ETag: 'W/"x"', Vary: "accept-encoding" })
  );
  const answer = await weak({ "Accept-Encoding": "br" });
  assert.equal(answer.headers.get("ETag"), 'W/"x"');
  assert.equal(answer.headers.get("Vary"), "accept-encoding");
  await answer.body?.cancel();
});

Deno.test("compress: leaves alone HEAD, 204, 206, 304, encoded, no-transform", async () => {
  const headers = { "Accept-Encoding": "gzip, br" };
  const head = await app(() => html())(headers, "HEAD");
  assert.equal(head.headers.get("Content-Encoding"), null);
  assert.equal(await head.text(), "");

  const cases: Array<[string, () => Response]> = [
    ["204", () => new Response(null, { status: 204 })],
    ["304", () => new Response(null, { status: 304 })],
    [
      "206",
      () =>
        new Response(HTML, {
          status: 206,
          headers: {
            "Content-Type": "text/html",
            "Content-Range": `bytes 0-${HTML.length - 1}/${HTML.length + 10}`,
          },
        }),
    ],
    ["encoded", () => html(HTML, { "Content-Encoding": "identity" })],
    [
      "no-transform",
      () => html(HTML, { "Cache-Control": "public, no-transform" }),
    ],
    [
      "image",
      () => new Response(HTML, { headers: { "Content-Type": "image/png" } }),
    ],
    ["no type", () => new Response(new TextEncoder().encode(HTML))],
  ];
  for (const [name, make] of cases) {
    const response = await app(make)(headers);
    assert.equal(
      response.headers.get("Content-Encoding"),
      name === "encoded" ? "identity" : null,
      name,
    );
    assert.equal(response.headers.get("Vary"), null, name);
    if (response.body !== null) {
      assert.equal(await response.text(), HTML, name);
    }
  }
});

Deno.test("compress: the threshold applies when the length is known", async () => {
  const small = "<p>small</p>".repeat(80); // 960 bytes
  const headers = { "Accept-Encoding": "gzip" };
  // A body made from a string by the toolkit: its length is known.
  const viaHelper = await app(() => createHtmlResponse(small))(headers);
  assert.equal(viaHelper.headers.get("Content-Encoding"), null);
  assert.equal(viaHelper.headers.get("Vary"), null);
  assert.equal(await viaHelper.text(), small);
  // Content-Length given.
  const declared = await app(() =>
    html(small, { "Content-Length": String(small.length) })
  )(headers);
  assert.equal(declared.headers.get("Content-Encoding"), null);
  assert.equal(await declared.text(), small);
  // threshold: 0 compresses it; a bigger threshold leaves a big body alone.
  const zero = await app(() => createHtmlResponse(small), { threshold: 0 })(
    headers,
  );
  assert.equal(zero.headers.get("Content-Encoding"), "gzip");
  assert.equal(decode("gzip", await bytes(zero)), small);
  const big = await app(() => createHtmlResponse(HTML), {
    threshold: 1_000_000,
  })(headers);
  assert.equal(big.headers.get("Content-Encoding"), null);
  await big.body?.cancel();
  // A plain Response (length unknown to the toolkit) complete at once is
  // measured: under the threshold, sent as it is, with no Vary.
  const plainSmall = await app(() =>
    new Response(small, { headers: { "Content-Type": "text/html" } })
  )(headers);
  assert.equal(plainSmall.headers.get("Content-Encoding"), null);
  assert.equal(plainSmall.headers.get("Vary"), null);
  assert.equal(await plainSmall.text(), small);
  const chunked = await app(() =>
    new Response(
      ReadableStream.from(
        ["<p>", "small", "</p>"].map((part) => new TextEncoder().encode(part)),
      ),
      { headers: { "Content-Type": "text/plain" } },
    )
  )(headers);
  assert.equal(chunked.headers.get("Content-Encoding"), null);
  assert.equal(await chunked.text(), "<p>small</p>");
  // A live stream (its end not yet there): compressed whatever its size.
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => finish = resolve);
  const live = await app(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(small));
          await finished;
          controller.close();
        },
      }),
      { headers: { "Content-Type": "text/plain" } },
    )
  )(headers);
  assert.equal(live.headers.get("Content-Encoding"), "gzip");
  finish();
  assert.equal(decode("gzip", await bytes(live)), small);
});

Deno.test("compress: encodings, levels and filter options", async () => {
  const headers = { "Accept-Encoding": "br, gzip" };
  const onlyGzip = await app(() => html(), { encodings: ["gzip"] })(headers);
  assert.equal(onlyGzip.headers.get("Content-Encoding"), "gzip");
  assert.equal(decode("gzip", await bytes(onlyGzip)), HTML);

  const fast = await app(() => html(), { level: { br: 1 } })(headers);
  const best = await app(() => html(), { level: { br: 11 } })(headers);
  const fastBytes = await bytes(fast);
  const bestBytes = await bytes(best);
  assert.equal(decode("br", fastBytes), HTML);
  assert.equal(decode("br", bestBytes), HTML);
  assert.ok(bestBytes.byteLength <= fastBytes.byteLength);

  const gzip9 = await app(() => html(), { level: { gzip: 9 } })({
    "Accept-Encoding": "gzip",
  });
  assert.equal(decode("gzip", await bytes(gzip9)), HTML);

  const filtered = await app(
    () => html(HTML, { "Content-Type": "application/x-custom" }),
    { filter: (type) => type.startsWith("application/x-custom") },
  )(headers);
  assert.equal(filtered.headers.get("Content-Encoding"), "br");
  assert.equal(decode("br", await bytes(filtered)), HTML);
});

Deno.test("compress: a body under 8 KiB is brotli quality 2 by default, larger ones quality 4", async () => {
  const headers = { "Accept-Encoding": "br" };
  const quality = (text: string, q: number) =>
    new Uint8Array(zlib.brotliCompressSync(text, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: q,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: text.length,
      },
    }));
  const small = `<ul>${
    Array.from({ length: 120 }, (_, i) => `<li>item ${i * 7919 % 1000}</li>`)
      .join("")
  }</ul>`;
  assert.ok(small.length > 1024 && small.length < 8192);
  assert.notDeepEqual(quality(small, 2), quality(small, 4));
  const large = small.repeat(5) +
    Array.from({ length: 800 }, (_, i) => `<b>${i * 104729 % 9973}</b>`)
      .join("");
  assert.ok(large.length >= 8192);

  const smallAnswer = await app(() => html(small))(headers);
  assert.equal(smallAnswer.headers.get("Content-Encoding"), "br");
  assert.deepEqual(await bytes(smallAnswer), quality(small, 2));
  const largeAnswer = await app(() => html(large))(headers);
  assert.deepEqual(await bytes(largeAnswer), quality(large, 4));
  // A quality chosen applies to every body.
  const chosen = await app(() => html(small), { level: { br: 4 } })(headers);
  assert.deepEqual(await bytes(chosen), quality(small, 4));
});

Deno.test("compress: bad options throw when created, naming the limit", () => {
  assert.throws(() => compress({ threshold: -1 }), /threshold .*>= 0, got -1/);
  assert.throws(
    () => compress({ level: { br: 12 } }),
    /level\.br .*0 to 11, got 12/,
  );
  assert.throws(
    () => compress({ level: { gzip: 0 } }),
    /level\.gzip .*1 to 9, got 0/,
  );
  assert.throws(
    () => compress({ encodings: ["lzma" as "br"] }),
    /unknown coding "lzma"/,
  );
});

Deno.test("compress: isCompressible", () => {
  for (
    const type of [
      "text/html; charset=utf-8",
      "text/event-stream",
      "application/json",
      "application/problem+json",
      "application/vnd.api+json",
      "application/javascript",
      "image/svg+xml",
      "application/xml",
      "application/wasm",
    ]
  ) assert.ok(isCompressible(type), type);
  for (
    const type of [
      "image/png",
      "image/jpeg",
      "video/mp4",
      "audio/ogg",
      "application/zip",
      "application/gzip",
      "font/woff2",
      "application/octet-stream",
      "application/pdf",
      "",
    ]
  ) assert.ok(!isCompressible(type), type);
});

Deno.test("compress: a streamed body is compressed chunk by chunk, as it comes", async () => {
  for (const coding of ["gzip", "br", "deflate"]) {
    const encoder = new TextEncoder();
    let release!: () => void;
    const released = new Promise<void>((resolve) => release = resolve);
    const fetch = app(() =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode("<head>first</head>"));
            await released;
            controller.enqueue(encoder.encode("<body>second</body>"));
            controller.close();
          },
        }),
        { headers: { "Content-Type": "text/html" } },
      )
    );
    const response = await fetch({ "Accept-Encoding": coding });
    assert.equal(response.headers.get("Content-Encoding"), coding);
    // Decoded synchronously, so the test's own decoding never waits for
    // the thread pool (busy on a loaded machine).
    const raw: Uint8Array[] = [];
    const decoded = () => decodePartial(coding, Buffer.concat(raw));
    const reader = response.body!.getReader();
    // The first part decodes before the second is even produced (the
    // generous limit is for a loaded machine: the second part never comes
    // before release() whatever the wait).
    while (!decoded().includes("first")) {
      const step = await within(reader.read(), 10_000, `${coding}: first part`);
      assert.ok(!step.done, `${coding}: ended before the first part`);
      raw.push(step.value);
    }
    assert.equal(decoded(), "<head>first</head>", coding);
    release();
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      raw.push(step.value);
    }
    const text = decode(coding, Buffer.concat(raw));
    assert.equal(text, "<head>first</head><body>second</body>", coding);
  }
});

Deno.test("compress: cancelling the compressed body cancels the handler's stream", async () => {
  for (const coding of ["gzip", "br"]) {
    let cancelled: unknown;
    const fetch = app(() =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(new TextEncoder().encode("tick ".repeat(100)));
          },
          cancel(reason) {
            cancelled = reason ?? "cancelled";
          },
        }),
        { headers: { "Content-Type": "text/plain" } },
      )
    );
    const response = await fetch({ "Accept-Encoding": coding });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel("client left");
    assert.ok(cancelled !== undefined, `${coding}: source cancelled`);
  }
});

Deno.test("compress: a handler stream that fails is a 500 before the answer, an error after", async () => {
  for (const coding of ["gzip", "br"]) {
    // Failing while read ahead (before any byte is sent): the router's 500.
    const early = app(() =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("x".repeat(2000)));
            controller.error(new Error("database went away"));
          },
        }),
        { headers: { "Content-Type": "text/plain" } },
      )
    );
    const quiet = quietErrors();
    try {
      const response = await early({ "Accept-Encoding": coding });
      assert.equal(response.status, 500);
      assert.equal(await response.text(), "Internal Server Error");
      assert.match(String(quiet.errors.flat()), /database went away/);
    } finally {
      quiet[Symbol.dispose]();
    }
    // Failing once the answer is under way: the compressed body errors.
    const late = app(() =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode("x".repeat(2000)));
            await new Promise((resolve) => setTimeout(resolve, 20));
            controller.error(new Error("database went away"));
          },
        }),
        { headers: { "Content-Type": "text/plain" } },
      )
    );
    const response = await late({ "Accept-Encoding": coding });
    assert.equal(response.status, 200);
    await assert.rejects(response.arrayBuffer(), /database went away/);
  }
});

Deno.test("compress: hostile Accept-Encoding headers get an answer, never an error", async () => {
  const headers = [
    ",".repeat(100_000),
    "gzip;q=0.5;q=0.9;q=".repeat(5000),
    "x".repeat(100_000) + ", gzip",
    "br;q=0." + "9".repeat(10_000),
    "*;q=NaN, gzip;q=-1, br;q=1e3",
    "\u00ffgzip\u00fe, deflate",
  ];
  for (const header of headers) {
    const fetch = app(() => html());
    const response = await fetch({ "Accept-Encoding": header });
    assert.equal(response.status, 200);
    const coding = response.headers.get("Content-Encoding");
    assert.equal(
      decode(coding, await bytes(response)),
      HTML,
      header.slice(0, 40),
    );
  }
});

Deno.test("compress: with no coding on offer (encodings: [] or none the runtime has), no Vary: Accept-Encoding", async () => {
  const { availableCodings } = await import("./_encode.ts");
  const lacking = (["br", "zstd", "gzip", "deflate"] as const).filter((
    coding,
  ) => !availableCodings().includes(coding));
  const offers: CompressOptions["encodings"][] = [[]];
  if (lacking.length > 0) offers.push([...lacking]);
  for (const encodings of offers) {
    const router = createRouter({ middleware: [compress({ encodings })] });
    const big = "x".repeat(4096);
    router.get(
      "/",
      () => new Response(big, { headers: { "Content-Type": "text/plain" } }),
    );
    for (const accept of ["gzip, br, zstd, deflate", "identity", ""]) {
      const response = await router.fetch(
        new Request("http://localhost/", {
          headers: { "Accept-Encoding": accept },
        }),
      );
      assert.equal(
        response.headers.get("vary"),
        null,
        `${encodings} ${accept}`,
      );
      assert.equal(response.headers.get("content-encoding"), null);
      assert.equal(await response.text(), big);
    }
  }
});
