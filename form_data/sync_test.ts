// formData() without waiting: on Bun, a small urlencoded body that has
// already arrived is read with Bun.peek, so the chain answers with a
// Response, not a promise; the answers (and the errors) are the same on
// every runtime.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";

const onBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

function post(body: string): Request {
  return new Request("http://localhost/", {
    method: "POST",
    body,
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Content-Length": String(new TextEncoder().encode(body).length),
    },
  });
}

function app() {
  const router = createRouter();
  router.post(
    "/",
    formData({ maxFields: 2 }),
    ({ get }) => new Response(`text=${get(FormData).get("text")}`),
  );
  return router;
}

Deno.test("formData(): a small body that has arrived is parsed at once (a Response, not a promise, on Bun)", async () => {
  const result = app().fetch(post("text=hello+world&n=1"));
  if (onBun) assert.ok(result instanceof Response, "answered synchronously");
  const response = await result;
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "text=hello world");
});

Deno.test("formData(): errors of a body parsed at once are the same 400 and 413", async () => {
  const malformed = await app().fetch(post("text=%ZZ"));
  assert.equal(malformed.status, 400);
  assert.match(await malformed.text(), /Malformed percent-encoding/);
  const many = await app().fetch(post("a=1&b=2&c=3"));
  assert.equal(many.status, 413);
  assert.match(await many.text(), /2/);
});

Deno.test("formData(): a body already read is a TypeError naming the cause (a 500), parsed at once or not", async () => {
  const router = createRouter();
  router.post(
    "/",
    async ({ request }, next) => {
      await request.text();
      return next();
    },
    formData(),
    () => new Response("unreachable"),
  );
  const error = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(...args);
  try {
    const response = await router.fetch(post("text=x"));
    assert.equal(response.status, 500);
  } finally {
    console.error = error;
  }
  assert.ok(
    logged.some((item) =>
      item instanceof TypeError && /already read/.test(item.message)
    ),
  );
});
