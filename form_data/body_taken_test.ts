// formData() after something else read the body: a TypeError that names
// the cause, whatever the body type and however it was taken. Portable.
import assert from "node:assert/strict";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import {
  formData,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";

const TAKERS: Record<string, (request: Request) => Promise<unknown> | unknown> =
  {
    "text()": (request) => request.text(),
    "formData()": (request) => request.formData(),
    "getReader()": (request) => request.body!.getReader(),
    "one read()": (request) => request.body!.getReader().read(),
  };

function bodies(): Record<string, () => RequestInit> {
  const urlencoded = "email=a%40example.com&name=Ada";
  return {
    "urlencoded with Content-Length": () => ({
      body: urlencoded,
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Content-Length": String(urlencoded.length),
      },
    }),
    "urlencoded streamed": () => ({ body: new URLSearchParams(urlencoded) }),
    multipart: () => {
      const form = new FormData();
      form.set("email", "a@example.com");
      return { body: form };
    },
  };
}

const MESSAGE =
  /^The request body was already (read|taken by a reader) before the form parser ran \(request\.text\(\), \.json\(\), \.formData\(\), \.arrayBuffer\(\) or body\.getReader\(\) in an earlier middleware or handler\): put formData\(\) before what reads the body/;

Deno.test("parseFormData: a body read or locked before it is a TypeError naming the cause", async () => {
  for (const [bodyName, init] of Object.entries(bodies())) {
    for (const [takerName, take] of Object.entries(TAKERS)) {
      const request = new Request("http://localhost/", {
        method: "POST",
        ...init(),
      });
      // Bun derives Content-Type from a body object lazily, and loses it
      // once the body is read unless looked at first; a request from the
      // network has it as a header.
      request.headers.get("content-type");
      await take(request);
      await assert.rejects(
        () => parseFormData(request),
        (error: unknown) => {
          assert.ok(error instanceof TypeError, `${bodyName}, ${takerName}`);
          assert.match(error.message, MESSAGE, `${bodyName}, ${takerName}`);
          return true;
        },
      );
    }
  }
});

Deno.test("formData() after a middleware that read the body: 500 for the client, the named TypeError for onError", async () => {
  const errors: unknown[] = [];
  const reads: Middleware = async (context, next) => {
    await context.request.text();
    return next();
  };
  const router = createRouter({
    onError: (error) => {
      errors.push(error);
      return new Response("Internal Server Error", { status: 500 });
    },
  });
  router.post("/", reads, formData(), () => new Response("ok"));
  router.post(
    "/ok",
    formData(),
    ({ get }) => new Response(String(get(FormData).get("a"))),
  );
  const [name, init] = Object.entries(bodies())[0];
  const response = await router.fetch(
    new Request("http://localhost/", { method: "POST", ...init() }),
  );
  assert.equal(response.status, 500, name);
  assert.equal(await response.text(), "Internal Server Error");
  assert.equal(errors.length, 1);
  assert.match((errors[0] as Error).message, MESSAGE);
  // The router keeps serving.
  const fine = await router.fetch(
    new Request("http://localhost/ok", {
      method: "POST",
      body: new URLSearchParams("a=1"),
    }),
  );
  assert.equal(await fine.text(), "1");
});
