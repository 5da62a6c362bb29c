// Portable tests of bodyLimit(): every content type, every way of lying
// about the length.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { bodyLimit } from "@fetchkit/toolkit/body-limit-middleware";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { parseJson, readBody } from "@fetchkit/toolkit/validation";
import { HttpError } from "@fetchkit/toolkit/http-error";
import * as z from "zod";
import { repeatedStream, streamRequest } from "../validation/_test_utils.ts";

/** An app whose routes read the body in each way, behind a 1000-byte limit. */
function app(onError?: Parameters<typeof bodyLimit>[0]["onError"]) {
  const seen: number[] = [];
  const router = createRouter({
    middleware: [bodyLimit({ maxBytes: 1000, onError })],
  });
  router.post("/text", async ({ request }) => {
    const text = await request.text();
    seen.push(text.length);
    return new Response(`${text.length}`);
  });
  router.post("/bytes", async ({ request }) => {
    try {
      const bytes = await request.arrayBuffer();
      seen.push(bytes.byteLength);
      return new Response(`${bytes.byteLength}`);
    } catch {
      // A handler that swallows the failed read still answers 413.
      return new Response("swallowed", { status: 400 });
    }
  });
  router.post("/json", async ({ request }) => {
    const result = await parseJson(request, z.unknown(), { maxBytes: 10_000 });
    return Response.json(result.success);
  });
  router.post("/read", async ({ request }) => {
    const bytes = await readBody(request, { maxBytes: 10_000 });
    seen.push(bytes.length);
    return new Response(`${bytes.length}`);
  });
  router.post(
    "/form",
    formData(),
    ({ get }) =>
      new Response(String((get(FormData).get("a") as string).length)),
  );
  return { router, seen };
}

const post = (path: string, body: BodyInit, headers?: HeadersInit) =>
  new Request(`http://localhost${path}`, { method: "POST", body, headers });

Deno.test("bodyLimit: bodies within the limit pass, in every content type", async () => {
  const { router } = app();
  assert.equal(
    await (await router.fetch(post("/text", "x".repeat(1000)))).text(),
    "1000",
  );
  assert.equal(
    await (await router.fetch(post("/bytes", new Uint8Array(999)))).text(),
    "999",
  );
  assert.equal(
    await (await router.fetch(
      post("/json", "[1]", { "content-type": "application/json" }),
    )).text(),
    "true",
  );
  assert.equal(await (await router.fetch(post("/read", "abc"))).text(), "3");
  assert.equal(
    await (await router.fetch(post("/form", new URLSearchParams({ a: "xyz" }))))
      .text(),
    "3",
  );
  const get = await router.fetch(new Request("http://localhost/text"));
  assert.equal(get.status, 405);
});

Deno.test("bodyLimit: 413 past the limit for every content type and reader", async () => {
  const { router, seen } = app();
  const big = "x".repeat(5000);
  const form = new URLSearchParams({ a: big });
  const cases: [string, () => Request][] = [
    ["text", () => post("/text", big)],
    ["bytes, swallowed", () => post("/bytes", new TextEncoder().encode(big))],
    [
      "json",
      () =>
        post("/json", JSON.stringify([big]), {
          "content-type": "application/json",
        }),
    ],
    ["readBody", () => post("/read", big)],
    ["form", () => post("/form", form)],
    ["multipart", () => {
      const data = new FormData();
      data.set("a", big);
      return post("/form", data);
    }],
  ];
  for (const [name, request] of cases) {
    const response = await router.fetch(request());
    assert.equal(response.status, 413, name);
    assert.match(
      await response.text(),
      /Request body is larger than maxBytes \(1000 bytes\)/,
      name,
    );
  }
  assert.deepEqual(seen, [], "no handler saw a whole body");
});

Deno.test("bodyLimit: a declared length past the limit is refused before the handler", async () => {
  const { router, seen } = app();
  const body = repeatedStream("x", 5000);
  const response = await router.fetch(
    streamRequest(body.stream, { "content-length": "5000" }),
  );
  // No route was chosen: the request did not reach one (404 would mean it
  // did); the default `/` path has none, so assert the 413 came first.
  assert.equal(response.status, 413);
  assert.match(await response.text(), /Content-Length declares 5000 bytes/);
  assert.ok(body.cancelled());
  assert.deepEqual(seen, []);
});

Deno.test("bodyLimit: chunked, lying and non-numeric lengths are counted while read", async () => {
  const { router, seen } = app();
  for (
    const headers of [
      {} as Record<string, string>,
      { "content-length": "10" },
      { "content-length": "abc" },
      { "content-length": "-5" },
    ]
  ) {
    const body = repeatedStream("x", 1 << 30);
    const request = new Request("http://localhost/text", {
      method: "POST",
      headers,
      body: body.stream,
      // @ts-ignore: Node needs duplex for a stream body.
      duplex: "half",
    });
    const response = await router.fetch(request);
    assert.equal(response.status, 413, JSON.stringify(headers));
    await response.body?.cancel();
    // The handler saw none of it past the limit, and the client's stream
    // was stopped after at most a chunk or two.
    assert.ok(body.pulled() <= 3 * 65536, `${body.pulled()}`);
    assert.ok(body.cancelled());
  }
  assert.deepEqual(seen, []);
});

Deno.test("bodyLimit: onError answers instead, and gets the HttpError", async () => {
  let got: unknown;
  const { router } = app((error) => {
    got = error;
    return Response.json({ tooBig: error.message }, { status: 413 });
  });
  const response = await router.fetch(post("/text", "x".repeat(1001)));
  assert.equal(response.status, 413);
  assert.deepEqual(await response.json(), {
    tooBig: "Request body is larger than maxBytes (1000 bytes)",
  });
  assert.ok(got instanceof HttpError);
  assert.equal((got as HttpError).status, 413);
});

Deno.test("bodyLimit: bad maxBytes is a RangeError", () => {
  for (const maxBytes of [-1, NaN, 1.5, "10" as unknown as number]) {
    assert.throws(() => bodyLimit({ maxBytes }), RangeError);
  }
  bodyLimit({ maxBytes: 0 });
  bodyLimit({ maxBytes: Infinity });
});
