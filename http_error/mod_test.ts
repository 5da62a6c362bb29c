import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  HttpError,
  prefersJson,
  statusText,
} from "@fetchkit/toolkit/http-error";
import { quietErrors } from "../_tools/console.ts";

Deno.test("HttpError: status, message, expose defaults", () => {
  const notFound = new HttpError(404);
  assert.equal(notFound.status, 404);
  assert.equal(notFound.message, "Not Found");
  assert.equal(notFound.expose, true);
  assert.equal(notFound.name, "HttpError");
  assert.ok(notFound instanceof Error);
  const down = new HttpError(503, "Redis is down", { cause: "x" });
  assert.equal(down.expose, false);
  assert.equal(down.cause, "x");
  assert.equal(new HttpError(500, "shown", { expose: true }).expose, true);
  assert.equal(new HttpError(400, "hidden", { expose: false }).expose, false);
});

Deno.test("HttpError: a status outside 400-599 is a RangeError naming it", () => {
  for (const status of [200, 399, 600, 404.5, NaN]) {
    assert.throws(() => new HttpError(status), {
      name: "RangeError",
      message: new RegExp(`got ${status}`),
    });
  }
});

Deno.test("statusText: registered phrases, else Error", () => {
  assert.equal(statusText(413), "Content Too Large");
  assert.equal(statusText(499), "Error");
});

Deno.test("prefersJson: by q-value, then by order", () => {
  assert.equal(prefersJson(null), false);
  assert.equal(prefersJson("application/json"), true);
  assert.equal(prefersJson("application/problem+json"), true);
  assert.equal(prefersJson("text/html"), false);
  assert.equal(prefersJson("*/*"), false);
  assert.equal(prefersJson("text/html,application/json"), false);
  assert.equal(prefersJson("application/json,text/html"), true);
  assert.equal(prefersJson("text/html;q=0.5,application/json"), true);
  assert.equal(prefersJson("text/html,application/json;q=0.9"), false);
  assert.equal(prefersJson("application/json;q=0"), false);
  // A browser's navigation Accept: HTML.
  assert.equal(
    prefersJson(
      "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    ),
    false,
  );
});

Deno.test("router: a thrown HttpError is answered with its status, headers and message", async () => {
  const router = createRouter();
  router.get("/limited", () => {
    throw new HttpError(429, "Too many attempts", {
      headers: { "Retry-After": "60" },
    });
  });
  const text = await router.fetch(new Request("http://localhost/limited"));
  assert.equal(text.status, 429);
  assert.equal(text.headers.get("retry-after"), "60");
  assert.equal(text.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await text.text(), "Too many attempts");

  const json = await router.fetch(
    new Request("http://localhost/limited", {
      headers: { Accept: "application/json" },
    }),
  );
  assert.equal(json.status, 429);
  assert.deepEqual(await json.json(), { error: "Too many attempts" });
});

Deno.test("router: a 5xx HttpError hides its message from the client and logs it", async () => {
  // No `using`: this file also runs on Node 20, which cannot parse it.
  const logs = quietErrors();
  const router = createRouter();
  router.get("/down", async () => {
    await Promise.resolve();
    throw new HttpError(503, "Redis at 10.0.0.5:6379 refused", {
      headers: { "Retry-After": "5" },
    });
  });
  const response = await router.fetch(new Request("http://localhost/down"));
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "5");
  assert.equal(await response.text(), "Service Unavailable");
  logs[Symbol.dispose]();
  assert.match(String(logs.errors.flat()[0]), /10\.0\.0\.5/);
});

Deno.test("router: HttpError from middleware; HEAD gets no body", async () => {
  const router = createRouter({
    middleware: [() => {
      throw new HttpError(401, "Sign in first", {
        headers: { "WWW-Authenticate": 'Bearer realm="api"' },
      });
    }],
  });
  router.get("/", () => new Response("secret"));
  const response = await router.fetch(
    new Request("http://localhost/", { method: "HEAD" }),
  );
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="api"');
  assert.equal(await response.text(), "");
});

Deno.test("router: onError receives HttpErrors first", async () => {
  const seen: unknown[] = [];
  const router = createRouter({
    onError(error, context) {
      seen.push(error);
      return error instanceof HttpError
        ? error.toResponse(context.request)
        : new Response("custom", { status: 500 });
    },
  });
  router.get("/", () => {
    throw new HttpError(409, "Conflict here");
  });
  const response = await router.fetch(new Request("http://localhost/"));
  assert.equal(response.status, 409);
  assert.equal(await response.text(), "Conflict here");
  assert.ok(seen[0] instanceof HttpError);
});
