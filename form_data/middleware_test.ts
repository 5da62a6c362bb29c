import assert from "node:assert/strict";
import { createRouter, type Handler } from "@fetchkit/toolkit/fetch-router";
import {
  formData,
  FormDataLimitError,
  FormDataParseError,
} from "@fetchkit/toolkit/form-data-middleware";
import { BOUNDARY, multipartBody } from "./_test_utils.ts";

/** A router whose `/form` route echoes the parsed form as JSON. */
function echoRouter(middlewareOptions?: Parameters<typeof formData>[0]) {
  const router = createRouter();
  router.post("/form", formData(middlewareOptions), (context) => {
    const form = context.get(FormData);
    assert.ok(form instanceof FormData);
    const entries: [string, string][] = [];
    for (const [name, value] of form) {
      entries.push([
        name,
        typeof value === "string" ? value : `file:${value.name}:${value.size}`,
      ]);
    }
    return Response.json(entries);
  });
  return router;
}

function post(body: BodyInit, contentType: string): Request {
  return new Request("http://localhost/form", {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
}

const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

Deno.test("formData() stores the parsed form under FormData", async () => {
  const router = echoRouter();
  const response = await router.fetch(
    post(
      multipartBody([
        { name: "email", value: "a@example.com" },
        {
          name: "avatar",
          filename: "me.png",
          type: "image/png",
          content: "PNG",
        },
      ]),
      MULTIPART,
    ),
  );
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), [
    ["email", "a@example.com"],
    ["avatar", "file:me.png:3"],
  ]);
  const urlencoded = await router.fetch(
    post(
      "email=b%40example.com&password=x",
      "application/x-www-form-urlencoded",
    ),
  );
  assert.deepEqual(await urlencoded.json(), [["email", "b@example.com"], [
    "password",
    "x",
  ]]);
});

Deno.test("GET, HEAD and other content types get an empty FormData", async () => {
  const seen: [string, number, string][] = [];
  const router = createRouter({ middleware: [formData()] });
  const handler: Handler = async (context) => {
    const form = context.get(FormData);
    assert.ok(form instanceof FormData);
    const rest = context.request.body === null
      ? ""
      : await context.request.text();
    seen.push([context.request.method, [...form].length, rest]);
    return new Response("ok");
  };
  router.get("/", handler);
  router.post("/", handler);
  await router.fetch(new Request("http://localhost/"));
  await router.fetch(new Request("http://localhost/", { method: "HEAD" }));
  await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    }),
  );
  // The JSON body was left unread for the handler.
  assert.deepEqual(seen, [["GET", 0, ""], ["HEAD", 0, ""], [
    "POST",
    0,
    '{"a":1}',
  ]]);
});

Deno.test("running formData() twice parses the body once", async () => {
  let first: FormData | undefined;
  const router = createRouter({
    middleware: [formData(), (context) => {
      first = context.get(FormData);
    }],
  });
  router.post("/", formData({ maxFields: 0 }), (context) => {
    // The route's own formData() (which would reject any field) kept the
    // router's result instead of reading the consumed body again.
    assert.equal(context.get(FormData), first);
    return new Response(String(context.get(FormData)?.get("a")));
  });
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      body: new URLSearchParams({ a: "1" }),
    }),
  );
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "1");
});

Deno.test("a malformed body answers 400 with a plain-text message", async () => {
  const router = echoRouter();
  const response = await router.fetch(post("no boundary here", MULTIPART));
  assert.equal(response.status, 400);
  assert.equal(
    response.headers.get("content-type"),
    "text/plain; charset=utf-8",
  );
  assert.equal(
    await response.text(),
    "The multipart body has no boundary line",
  );
});

Deno.test("a limit answers 413 naming the field and the limit", async () => {
  const router = echoRouter({ maxFieldSize: 4 });
  const response = await router.fetch(
    post(multipartBody([{ name: "comment", value: "too long" }]), MULTIPART),
  );
  assert.equal(response.status, 413);
  assert.equal(
    await response.text(),
    'Field "comment" is larger than maxFieldSize (4 bytes)',
  );
});

Deno.test("onError renders the app's own response", async () => {
  const calls: [string, string][] = [];
  const router = echoRouter({
    maxFiles: 1,
    onError: (error, context) => {
      assert.ok(error instanceof FormDataLimitError);
      calls.push([error.constructor.name, context.url.pathname]);
      return new Response(`<p>${error.fileName} is one too many</p>`, {
        status: error.status,
        headers: { "content-type": "text/html" },
      });
    },
  });
  const response = await router.fetch(
    post(
      multipartBody([
        { name: "f", filename: "1.txt", content: "1" },
        { name: "f", filename: "2.txt", content: "2" },
      ]),
      MULTIPART,
    ),
  );
  assert.equal(response.status, 413);
  assert.equal(await response.text(), "<p>2.txt is one too many</p>");
  assert.deepEqual(calls, [["MaxFilesExceededError", "/form"]]);
});

Deno.test("errors other than parse errors go to the router's onError", async () => {
  const errors: unknown[] = [];
  const router = createRouter({
    onError: (error) => {
      errors.push(error);
      return new Response("router error", { status: 500 });
    },
  });
  router.post(
    "/",
    formData({
      uploadHandler: () => {
        throw new Error("disk full");
      },
    }),
    () => new Response("unreachable"),
  );
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": MULTIPART },
      body: multipartBody([{ name: "f", filename: "a.txt", content: "a" }]),
    }),
  );
  assert.equal(response.status, 500);
  assert.equal(errors.length, 1);
  assert.ok(!(errors[0] instanceof FormDataParseError));
  assert.equal((errors[0] as Error).message, "disk full");
});

Deno.test("invalid options throw when the middleware is created", () => {
  assert.throws(() => formData({ maxFileSize: Number.NaN }), RangeError);
});
