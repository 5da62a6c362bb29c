import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { RequestId, requestId } from "@fetchkit/toolkit/request-id-middleware";

const UUID =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function app(options?: Parameters<typeof requestId>[0]) {
  const router = createRouter({ middleware: [requestId(options)] });
  router.get("/", ({ get }) => new Response(get(RequestId)));
  router.get("/away", () => Response.redirect("http://localhost/", 302));
  return async (headers: HeadersInit = {}, path = "/") => {
    const response = await router.fetch(
      new Request("http://localhost" + path, { headers }),
    );
    return { response, body: await response.text() };
  };
}

Deno.test("requestId: generates a UUID, sets it on the response and the context", async () => {
  const request = app();
  const { response, body } = await request();
  assert.match(body, UUID);
  assert.equal(response.headers.get("X-Request-Id"), body);
  const second = await request();
  assert.notEqual(second.body, body);
});

Deno.test("requestId: reuses a short, safe incoming id, replaces others", async () => {
  const request = app();
  for (const safe of ["abc-123", "a.b_c:d-e", "x".repeat(255)]) {
    const { response, body } = await request({ "X-Request-Id": safe });
    assert.equal(body, safe);
    assert.equal(response.headers.get("X-Request-Id"), safe);
  }
  for (
    const unsafe of [
      "x".repeat(256),
      "has space",
      'quote"',
      "a\u00e9",
      "<script>",
      "a,b",
    ]
  ) {
    const { body } = await request({ "X-Request-Id": unsafe });
    assert.match(body, UUID, unsafe);
  }
});

Deno.test("requestId: options for the header, generator, trust and length", async () => {
  let n = 0;
  const request = app({
    header: "X-Correlation-Id",
    generator: () => `id-${++n}`,
    maxLength: 8,
  });
  assert.equal((await request()).body, "id-1");
  assert.equal(
    (await request({ "X-Correlation-Id": "12345678" })).body,
    "12345678",
  );
  assert.equal(
    (await request({ "X-Correlation-Id": "123456789" })).body,
    "id-2",
  );
  const own = app({ trustIncoming: false });
  assert.match((await own({ "X-Request-Id": "from-client" })).body, UUID);
  // Immutable headers (Response.redirect) are copied, not a TypeError.
  const { response } = await app()({ "X-Request-Id": "r1" }, "/away");
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("X-Request-Id"), "r1");
  assert.throws(() => requestId({ header: "bad header" }), {
    name: "TypeError",
    message: /header must be a header name, got "bad header"/,
  });
  assert.throws(() => requestId({ maxLength: 0 }), /maxLength must be/);
});

Deno.test("requestId: without the middleware the key reads undefined", async () => {
  const router = createRouter();
  router.get("/", ({ get }) => new Response(String(get(RequestId))));
  const response = await router.fetch(new Request("http://localhost/"));
  assert.equal(await response.text(), "undefined");
});
