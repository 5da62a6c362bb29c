// etag(): tags, If-None-Match (RFC 9110 §13.1.2 weak comparison, lists,
// `*`), the 304's headers (§15.4.5), HEAD, and the bodies left untagged.
// Portable: runs on Deno, Node and Bun.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { etag, type EtagOptions } from "@fetchkit/toolkit/etag-middleware";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";

const BODY = "<h1>Hello</h1>".repeat(50);

function sha1Tag(text: string | Uint8Array): string {
  return `"${createHash("sha1").update(text).digest("base64url")}"`;
}

function app(
  handler: () => Response | Promise<Response>,
  options?: EtagOptions,
  before: Middleware[] = [],
) {
  const router = createRouter({ middleware: [...before, etag(options)] });
  router.get("/", handler);
  router.post("/", handler);
  return (headers: Record<string, string> = {}, method = "GET") =>
    router.fetch(new Request("http://localhost/", { method, headers }));
}

const page = () =>
  new Response(BODY, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-cache",
      "Content-Location": "/index.html",
      Expires: "Thu, 01 Jan 2037 00:00:00 GMT",
      Vary: "Cookie",
      "Last-Modified": "Tue, 01 Jan 2030 00:00:00 GMT",
      "Content-Language": "en",
      "X-Custom": "kept off the 304",
      "Set-Cookie": "seen=1; Path=/; HttpOnly; SameSite=Lax",
    },
  });

Deno.test("etag: a strong tag from the body's SHA-1, for every body kind", async () => {
  const bytes = new TextEncoder().encode(BODY);
  const makers: Array<[string, () => Response]> = [
    ["string", () => new Response(BODY)],
    ["bytes", () => new Response(bytes)],
    ["helper", () => createHtmlResponse(BODY)],
    [
      "stream",
      () =>
        new Response(
          ReadableStream.from([bytes.subarray(0, 100), bytes.subarray(100)]),
        ),
    ],
  ];
  for (const [name, make] of makers) {
    const response = await app(make)();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("ETag"), sha1Tag(BODY), name);
    assert.equal(await response.text(), BODY, name);
  }
  const empty = await app(() => new Response(null))();
  assert.equal(empty.headers.get("ETag"), sha1Tag(""));
  // A different body, a different tag.
  const other = await app(() => new Response(BODY + "!"))();
  assert.notEqual(other.headers.get("ETag"), sha1Tag(BODY));
  await other.body?.cancel();
});

Deno.test("etag: weak: true makes W/ tags; a tag the handler set is kept", async () => {
  const weak = await app(() => new Response(BODY), { weak: true })();
  assert.equal(weak.headers.get("ETag"), `W/${sha1Tag(BODY)}`);
  await weak.text();

  const own = app(() => new Response(BODY, { headers: { ETag: '"v42"' } }));
  const response = await own();
  assert.equal(response.headers.get("ETag"), '"v42"');
  assert.equal(await response.text(), BODY);
  const cached = await own({ "If-None-Match": '"v42"' });
  assert.equal(cached.status, 304);
});

Deno.test("etag: If-None-Match uses the weak comparison, lists and *", async () => {
  const tag = sha1Tag(BODY);
  const fetch = app(page);
  const cases: Array<[string, number]> = [
    [tag, 304],
    [`W/${tag}`, 304],
    [`"other", ${tag}`, 304],
    [`"a,b", W/"x" ,${tag}`, 304],
    ["*", 304],
    [" * ", 304],
    ['"other"', 200],
    [tag.slice(1, -1), 200], // unquoted: not an entity tag
    ['W/"other", "more"', 200],
    ["", 200],
  ];
  for (const [header, status] of cases) {
    const response = await fetch({ "If-None-Match": header });
    assert.equal(response.status, status, `If-None-Match: ${header}`);
    if (status === 200) assert.equal(await response.text(), BODY);
  }
  // A weak tag of our own matches its strong form in the request.
  const weak = app(page, { weak: true });
  assert.equal((await weak({ "If-None-Match": tag })).status, 304);
});

Deno.test("etag: 304 keeps the headers RFC 9110 §15.4.5 lists, and Set-Cookie", async () => {
  const response = await app(page)({ "If-None-Match": sha1Tag(BODY) });
  assert.equal(response.status, 304);
  assert.equal(response.body, null);
  assert.equal(response.headers.get("ETag"), sha1Tag(BODY));
  assert.equal(response.headers.get("Cache-Control"), "no-cache");
  assert.equal(response.headers.get("Content-Location"), "/index.html");
  assert.equal(
    response.headers.get("Expires"),
    "Thu, 01 Jan 2037 00:00:00 GMT",
  );
  assert.equal(response.headers.get("Vary"), "Cookie");
  assert.deepEqual(response.headers.getSetCookie(), [
    "seen=1; Path=/; HttpOnly; SameSite=Lax",
  ]);
  for (
    const name of [
      "Content-Type",
      "Content-Length",
      "Content-Language",
      "Last-Modified",
      "X-Custom",
    ]
  ) {
    assert.equal(response.headers.get(name), null, name);
  }
});

Deno.test("etag: HEAD gets the same tag and the same 304", async () => {
  const fetch = app(page);
  const head = await fetch({}, "HEAD");
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("ETag"), sha1Tag(BODY));
  assert.equal(head.headers.get("Content-Length"), String(BODY.length));
  assert.equal(await head.text(), "");
  const cached = await fetch({ "If-None-Match": sha1Tag(BODY) }, "HEAD");
  assert.equal(cached.status, 304);
});

Deno.test("etag: other methods and statuses are left alone", async () => {
  const post = await app(page)({ "If-None-Match": "*" }, "POST");
  assert.equal(post.status, 200);
  assert.equal(post.headers.get("ETag"), null);
  await post.text();
  for (const status of [201, 404, 500]) {
    const response = await app(() => new Response(BODY, { status }))({
      "If-None-Match": "*",
    });
    assert.equal(response.status, status);
    assert.equal(response.headers.get("ETag"), null);
    assert.equal(await response.text(), BODY);
  }
});

Deno.test("etag: bodies over maxBytes pass through untagged and whole", async () => {
  const big = "x".repeat(5000);
  const bytes = new TextEncoder().encode(big);
  const chunks = () =>
    new Response(
      ReadableStream.from([1000, 2000, 3000, 4000, 5000].map((end) =>
        bytes.subarray(end - 1000, end)
      )),
    );
  for (
    const make of [
      () => new Response(big),
      chunks,
      () => createJsonResponse(big),
    ]
  ) {
    const response = await app(make, { maxBytes: 2500 })({
      "If-None-Match": "*",
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("ETag"), null);
    const text = await response.text();
    assert.ok(text === big || text === JSON.stringify(big));
  }
  // At the limit: tagged.
  const at = await app(chunks, { maxBytes: 5000 })();
  assert.equal(at.headers.get("ETag"), sha1Tag(big));
  assert.equal(await at.text(), big);
  // Multi-byte text measured in bytes: 1000 × "é" is 2000 bytes.
  const accents = await app(() => createHtmlResponse("é".repeat(1000)), {
    maxBytes: 1500,
  })();
  assert.equal(accents.headers.get("ETag"), null);
  await accents.text();
});

Deno.test("etag: a stream still being produced passes through untagged, first chunk at once", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const encoder = new TextEncoder();
  const answer = app(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode("<head>"));
          await released;
          controller.enqueue(encoder.encode("<body>"));
          controller.close();
        },
      }),
      { headers: { "Content-Type": "text/html" } },
    )
  )();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const response = await Promise.race([
    answer,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no answer in 2 s")), 2000);
    }),
  ]).finally(() => clearTimeout(timer));
  // The response came before the stream ended.
  assert.equal(response.headers.get("ETag"), null);
  const reader = response.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "<head>");
  release();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "<body>");
  assert.equal((await reader.read()).done, true);

  // Server-sent events are never read ahead.
  const events = await app(() =>
    new Response(new ReadableStream({ start() {} }), {
      headers: { "Content-Type": "text/event-stream" },
    })
  )();
  assert.equal(events.headers.get("ETag"), null);
  await events.body?.cancel();
});

Deno.test("etag: behind compress() the tag is the uncompressed body's, made weak", async () => {
  const BIG = BODY.repeat(3);
  const fetch = app(() => createHtmlResponse(BIG), {}, [compress()]);
  const response = await fetch({ "Accept-Encoding": "gzip" });
  assert.equal(response.headers.get("Content-Encoding"), "gzip");
  assert.equal(response.headers.get("ETag"), `W/${sha1Tag(BIG)}`);
  await response.body?.cancel();
  // The browser sends the weak tag back: it matches.
  const again = await fetch({
    "Accept-Encoding": "gzip",
    "If-None-Match": `W/${sha1Tag(BIG)}`,
  });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("Content-Encoding"), null);
  // The 304 carries what the compressed 200 carried (RFC 9110 §15.4.5).
  assert.equal(again.headers.get("ETag"), `W/${sha1Tag(BIG)}`);
  assert.equal(again.headers.get("Vary"), "Accept-Encoding");
  // Without Accept-Encoding the 200 is sent as it is: strong tag, Vary.
  const plain = await fetch({ "If-None-Match": sha1Tag(BIG) });
  assert.equal(plain.status, 304);
  assert.equal(plain.headers.get("ETag"), sha1Tag(BIG));
  assert.equal(plain.headers.get("Vary"), "Accept-Encoding");
  // A body under compress()'s threshold never varies: neither does its 304.
  const small = app(() => createHtmlResponse(BODY), {}, [compress()]);
  const smallAgain = await small({
    "Accept-Encoding": "gzip",
    "If-None-Match": sha1Tag(BODY),
  });
  assert.equal(smallAgain.status, 304);
  assert.equal(smallAgain.headers.get("ETag"), sha1Tag(BODY));
  assert.equal(smallAgain.headers.get("Vary"), null);
});

Deno.test("etag: maxBytes must be a whole number >= 0", () => {
  assert.throws(() => etag({ maxBytes: -1 }), /maxBytes .*>= 0, got -1/);
  assert.throws(() => etag({ maxBytes: 1.5 }), /got 1.5/);
});

Deno.test("etag: a 304 for the handler's own tag cancels its unread stream", async () => {
  let cancelled = false;
  const fetch = app(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode("chunk"));
        },
        cancel() {
          cancelled = true;
        },
      }),
      { headers: { ETag: '"file-v1"' } },
    )
  );
  const response = await fetch({ "If-None-Match": '"file-v1"' });
  assert.equal(response.status, 304);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.ok(cancelled, "the handler's stream was cancelled");
});

Deno.test("etag: hostile If-None-Match headers are compared, never an error", async () => {
  const fetch = app(page);
  for (
    const header of [
      '"'.repeat(100_000),
      "W/".repeat(50_000),
      `${'"x", '.repeat(20_000)}${sha1Tag(BODY)}`,
      '"unterminated',
    ]
  ) {
    const response = await fetch({ "If-None-Match": header });
    assert.ok(response.status === 200 || response.status === 304);
    await response.body?.cancel();
  }
  const listed = await fetch({
    "If-None-Match": `${'"x", '.repeat(20_000)}${sha1Tag(BODY)}`,
  });
  assert.equal(listed.status, 304);
});

Deno.test("etag: If-Match uses the strong comparison; a failure is 412", async () => {
  const tag = sha1Tag(BODY);
  const fetch = app(page);
  const cases: Array<[string, number]> = [
    [tag, 200],
    ["*", 200],
    [`"other", ${tag}`, 200],
    [`W/${tag}`, 412], // a weak tag never matches strongly
    ['"other"', 412],
    ["", 200], // an empty list is ignored
  ];
  for (const [header, status] of cases) {
    const response = await fetch({ "If-Match": header });
    assert.equal(response.status, status, `If-Match: ${header}`);
    if (status === 412) {
      assert.equal(await response.text(), "Precondition Failed");
      assert.equal(response.headers.get("ETag"), tag);
    } else {
      assert.equal(await response.text(), BODY);
    }
  }
  // Our weak tags never pass If-Match.
  const weak = await app(page, { weak: true })({ "If-Match": `W/${tag}` });
  assert.equal(weak.status, 412);
  await weak.body?.cancel();
  // If-Match is evaluated before If-None-Match.
  const both = await fetch({ "If-Match": '"other"', "If-None-Match": tag });
  assert.equal(both.status, 412);
  await both.body?.cancel();
});

Deno.test("etag: If-Modified-Since and If-Unmodified-Since use Last-Modified", async () => {
  const fetch = app(page); // Last-Modified: Tue, 01 Jan 2030 00:00:00 GMT
  const later = "Wed, 02 Jan 2030 00:00:00 GMT";
  const same = "Tue, 01 Jan 2030 00:00:00 GMT";
  const earlier = "Mon, 31 Dec 2029 00:00:00 GMT";
  const status = async (headers: Record<string, string>) => {
    const response = await fetch(headers);
    await response.body?.cancel();
    return response.status;
  };
  assert.equal(await status({ "If-Modified-Since": later }), 304);
  assert.equal(await status({ "If-Modified-Since": same }), 304);
  assert.equal(await status({ "If-Modified-Since": earlier }), 200);
  assert.equal(await status({ "If-Modified-Since": "not a date" }), 200);
  // If-None-Match wins over If-Modified-Since.
  assert.equal(
    await status({ "If-None-Match": '"other"', "If-Modified-Since": later }),
    200,
  );
  assert.equal(await status({ "If-Unmodified-Since": earlier }), 412);
  assert.equal(await status({ "If-Unmodified-Since": same }), 200);
  assert.equal(await status({ "If-Unmodified-Since": "garbage" }), 200);
  // If-Match present: If-Unmodified-Since is not looked at.
  assert.equal(
    await status({ "If-Match": "*", "If-Unmodified-Since": earlier }),
    200,
  );
  // No Last-Modified: the dates say nothing.
  const noDate = app(() => new Response(BODY));
  const response = await noDate({ "If-Modified-Since": later });
  assert.equal(response.status, 200);
  await response.body?.cancel();
});

/** A body whose chunks arrive after real waits, as a file's do. */
function slowStream(text: string, ms: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 1000));
      offset += 1000;
    },
  }, { highWaterMark: 0 });
}

Deno.test("etag: a stream that declares its Content-Length is always tagged, whatever its I/O timing", async () => {
  const body = "f".repeat(4500);
  for (const ms of [0, 1, 5]) {
    for (let i = 0; i < 5; i++) {
      const response = await app(() =>
        new Response(slowStream(body, ms), {
          headers: {
            "Content-Type": "text/plain",
            "Content-Length": String(body.length),
          },
        })
      )();
      assert.equal(response.headers.get("ETag"), sha1Tag(body), `${ms} ms`);
      assert.equal(await response.text(), body);
    }
  }
  // Declared past maxBytes: never tagged, never read ahead.
  const big = await app(
    () =>
      new Response(slowStream(body, 1), {
        headers: { "Content-Length": String(body.length) },
      }),
    { maxBytes: 1000 },
  )();
  assert.equal(big.headers.get("ETag"), null);
  assert.equal(await big.text(), body);
  // Longer than declared: passed through untagged, every byte kept.
  const liar = await app(
    () =>
      new Response(slowStream(body, 0), {
        headers: { "Content-Length": "10" },
      }),
    { maxBytes: 100 },
  )();
  assert.equal(liar.headers.get("ETag"), null);
  assert.equal(await liar.text(), body);
});
