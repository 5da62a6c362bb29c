import assert from "node:assert/strict";
import { createRouter, RequestContext } from "@fetchkit/toolkit/fetch-router";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";

/** A router whose routes answer with their method and the form they read. */
function app(options?: Parameters<typeof methodOverride>[0]) {
  const router = createRouter({ middleware: [methodOverride(options)] });
  const answer = (method: string) => async (context: RequestContext) => {
    const form = context.request.body === null
      ? null
      : await context.request.formData();
    const fields = form === null ? "" : [...form.entries()]
      .map(([name, value]) =>
        `${name}=${typeof value === "string" ? value : `file:${value.size}`}`
      )
      .join("&");
    return new Response(`${method} ${fields}`);
  };
  for (const method of ["get", "post", "put", "patch", "delete"] as const) {
    router[method]("/items/:id", answer(method.toUpperCase()));
  }
  return router;
}

function post(body?: BodyInit, headers?: HeadersInit): Request {
  return new Request("http://localhost/items/1", {
    method: "POST",
    body,
    headers,
  });
}

async function answer(request: Request, options?: { fieldName?: string }) {
  const response = await app(options).fetch(request);
  assert.equal(response.status, 200);
  return await response.text();
}

Deno.test("an urlencoded _method field reaches PUT, PATCH and DELETE routes", async () => {
  for (const method of ["PUT", "PATCH", "DELETE"]) {
    const body = new URLSearchParams({ _method: method, title: "a b" });
    assert.equal(
      await answer(post(body)),
      `${method} _method=${method}&title=a b`,
    );
  }
});

Deno.test("the field value is case-insensitive and trimmed", async () => {
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  assert.equal(
    await answer(post("_method=%20delete%20", form)),
    "DELETE _method= delete ",
  );
  assert.equal(
    await answer(post("_method=Patch", form)),
    "PATCH _method=Patch",
  );
});

Deno.test("a multipart _method field overrides, and the handler still reads the files", async () => {
  const form = new FormData();
  form.set("_method", "put");
  form.set("avatar", new File(["x".repeat(1000)], "a.txt"));
  assert.equal(await answer(post(form)), "PUT _method=put&avatar=file:1000");
});

Deno.test("the X-HTTP-Method-Override header overrides without reading the body", async () => {
  assert.equal(
    await answer(post(undefined, { "X-HTTP-Method-Override": "patch" })),
    "PATCH ",
  );
  // The header wins over the field.
  assert.equal(
    await answer(post("_method=PUT", {
      "Content-Type": "application/x-www-form-urlencoded",
      "X-HTTP-Method-Override": "DELETE",
    })),
    "DELETE _method=PUT",
  );
});

Deno.test("only PUT, PATCH and DELETE are accepted", async () => {
  for (
    const value of [
      "GET",
      "HEAD",
      "OPTIONS",
      "CONNECT",
      "TRACE",
      "POST",
      "PUTT",
      "",
    ]
  ) {
    assert.equal(
      await answer(post(new URLSearchParams({ _method: value }))),
      `POST _method=${value}`,
      value,
    );
    assert.equal(
      await answer(post(undefined, { "X-HTTP-Method-Override": value || " " })),
      "POST ",
      value,
    );
  }
});

Deno.test("only a POST request is overridden", async () => {
  const router = app();
  const get = await router.fetch(
    new Request("http://localhost/items/1?_method=DELETE", {
      headers: { "X-HTTP-Method-Override": "DELETE" },
    }),
  );
  assert.equal(await get.text(), "GET ");
  const put = await router.fetch(
    new Request("http://localhost/items/1", {
      method: "PUT",
      body: new URLSearchParams({ _method: "DELETE" }),
    }),
  );
  assert.equal(await put.text(), "PUT _method=DELETE");
});

Deno.test("fieldName names another field", async () => {
  const body = new URLSearchParams({ _method: "PUT", verb: "DELETE" });
  assert.equal(
    await answer(post(body), { fieldName: "verb" }),
    "DELETE _method=PUT&verb=DELETE",
  );
});

Deno.test("a POST without the field, or with another body type, stays POST", async () => {
  assert.equal(await answer(post(new URLSearchParams({ a: "1" }))), "POST a=1");
  assert.equal(await answer(post()), "POST ");
  const json = new Request("http://localhost/items/1", {
    method: "POST",
    body: JSON.stringify({ _method: "DELETE" }),
    headers: { "Content-Type": "application/json" },
  });
  const response = await createRouter({ middleware: [methodOverride()] });
  response.post(
    "/items/:id",
    async ({ request }) => new Response(`POST ${await request.text()}`),
  );
  assert.equal(
    await (await response.fetch(json)).text(),
    'POST {"_method":"DELETE"}',
  );
});

Deno.test("a FormData already in the context is used instead of the body", async () => {
  const parsed = new FormData();
  parsed.set("_method", "DELETE");
  const router = createRouter({
    middleware: [
      (context) => context.set(FormData, parsed),
      methodOverride(),
    ],
  });
  router.post("/x", () => new Response("POST"));
  router.delete(
    "/x",
    async ({ request }) => new Response(`DELETE ${await request.text()}`),
  );
  const response = await router.fetch(
    new Request("http://localhost/x", {
      method: "POST",
      body: "_method=PUT",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }),
  );
  assert.equal(await response.text(), "DELETE _method=PUT");
});

Deno.test("a large upload after the field keeps the whole body for the handler", async () => {
  const size = 3 * 1024 * 1024 + 17;
  const form = new FormData();
  form.set("_method", "DELETE");
  form.set("file", new File([new Uint8Array(size).fill(7)], "big.bin"));
  assert.equal(
    await answer(post(form)),
    `DELETE _method=DELETE&file=file:${size}`,
  );
});

Deno.test("a large urlencoded body is cut at a whole pair", async () => {
  const body = `_method=PATCH&big=${"x".repeat(200_000)}`;
  const router = app();
  const response = await router.fetch(
    post(body, { "Content-Type": "application/x-www-form-urlencoded" }),
  );
  assert.equal(
    await response.text(),
    `PATCH _method=PATCH&big=${"x".repeat(200_000)}`,
  );
});

Deno.test("a field after the first 64 KiB is not seen (put it first in the form)", async () => {
  const form = new FormData();
  form.set("file", new File([new Uint8Array(100_000)], "first.bin"));
  form.set("_method", "DELETE");
  assert.equal(
    await answer(post(form)),
    "POST file=file:100000&_method=DELETE",
  );
});

Deno.test("a streamed body arriving in chunks is read without being consumed", async () => {
  const bytes = new TextEncoder().encode("a=1&_method=put&b=2");
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 3) {
        controller.enqueue(bytes.slice(i, i + 3));
      }
      controller.close();
    },
  });
  assert.equal(
    await answer(
      post(stream, { "Content-Type": "application/x-www-form-urlencoded" }),
    ),
    "PUT a=1&_method=put&b=2",
  );
});

Deno.test("a malformed multipart body is left to the handler", async () => {
  const router = createRouter({ middleware: [methodOverride()] });
  router.post(
    "/x",
    async ({ request }) => new Response(`POST ${await request.text()}`),
  );
  const response = await router.fetch(
    new Request("http://localhost/x", {
      method: "POST",
      body: "not multipart",
      headers: { "Content-Type": "multipart/form-data; boundary=zzz" },
    }),
  );
  assert.equal(await response.text(), "POST not multipart");
});

Deno.test("methodOverride sets context.method and continues the chain", async () => {
  const context = new RequestContext(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "X-HTTP-Method-Override": "delete" },
    }),
  );
  const result = await methodOverride()(
    context,
    () => Promise.resolve(new Response()),
  );
  assert.equal(result, undefined);
  assert.equal(context.method, "DELETE");
  assert.equal(context.request.method, "POST");
});
