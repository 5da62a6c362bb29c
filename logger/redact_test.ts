// logger({ redactPathParams }): the path parameters of chosen routes (a
// password reset token, an email verification token) never reach the log,
// in any token that shows the path or URL, nor in the Referer a page of
// such a route sends. Portable: runs on Deno, Node and Bun.
import assert from "node:assert/strict";
import {
  logger,
  type LoggerOptions,
} from "@fetchkit/toolkit/logger-middleware";
import { createRouter } from "@fetchkit/toolkit/fetch-router";

const TOKEN = "q8Zc0sYV3rTq1m9kXbN2wLpE4hJ7uGdA";
const ROUTES = ["/password/reset/:token", "/email/verify/:token"];

async function lines(
  options: LoggerOptions,
  requests: (string | Request)[],
): Promise<string[]> {
  const logged: string[] = [];
  const router = createRouter({
    middleware: [logger({ ...options, log: (line) => logged.push(line) })],
  });
  router.get("/password/reset/:token", () => new Response("form"));
  router.post("/password/reset/:token", () => new Response("done"));
  router.get("/email/verify/:token", () => new Response("verified"));
  router.get("/users/:id", () => new Response("user"));
  for (const request of requests) {
    const response = await router.fetch(
      typeof request === "string"
        ? new Request(`http://app.test${request}`)
        : request,
    );
    await response.body?.cancel();
  }
  return logged;
}

Deno.test("logger: redactPathParams replaces the chosen routes' parameters in %path, %pathname and %url", async () => {
  const logged = await lines(
    {
      format: "%method %path | %pathname | %url",
      redactPathParams: ROUTES,
    },
    [
      `/password/reset/${TOKEN}`,
      `/password/reset/${TOKEN}?step=2`,
      `/email/verify/${TOKEN}`,
      "/users/42",
    ],
  );
  assert.deepEqual(logged, [
    "GET /password/reset/:token | /password/reset/:token | http://app.test/password/reset/:token",
    "GET /password/reset/:token?step=2 | /password/reset/:token | http://app.test/password/reset/:token?step=2",
    "GET /email/verify/:token | /email/verify/:token | http://app.test/email/verify/:token",
    "GET /users/42 | /users/42 | http://app.test/users/42",
  ]);
});

Deno.test("logger: without redactPathParams the token is logged (the leak this option closes)", async () => {
  const [line] = await lines({ format: "%path" }, [`/password/reset/${TOKEN}`]);
  assert.equal(line, `/password/reset/${TOKEN}`);
});

Deno.test("logger: redaction holds for a trailing slash, letter case, percent-encoding, 404s and POSTs", async () => {
  const logged = await lines(
    { format: "%method %path %status", redactPathParams: ROUTES },
    [
      `/password/reset/${TOKEN}/`,
      `/Password/RESET/${TOKEN}`,
      `/password/%72eset/${TOKEN}`,
      `//password/reset/${TOKEN}`,
      new Request(`http://app.test/password/reset/${TOKEN}`, {
        method: "POST",
        body: new URLSearchParams({ password: "x" }),
      }),
    ],
  );
  for (const line of logged) {
    assert.ok(!line.includes(TOKEN), line);
    assert.ok(!line.includes(TOKEN.slice(0, 8)), line);
  }
  assert.equal(logged.length, 5);
});

Deno.test("logger: redaction holds in JSON lines and in the Referer of a page of a chosen route", async () => {
  const logged = await lines(
    { format: "json", redactPathParams: ROUTES },
    [
      new Request(`http://app.test/password/reset/${TOKEN}`, {
        method: "POST",
        headers: { Referer: `http://app.test/password/reset/${TOKEN}` },
      }),
      new Request("http://app.test/users/7", {
        headers: { Referer: `https://app.test/email/verify/${TOKEN}?x=1` },
      }),
    ],
  );
  for (const line of logged) assert.ok(!line.includes(TOKEN), line);
  const [first, second] = logged.map((line) => JSON.parse(line));
  assert.equal(first.path, "/password/reset/:token");
  assert.equal(first.referer, "http://app.test/password/reset/:token");
  assert.equal(second.referer, "https://app.test/email/verify/:token?x=1");
});

Deno.test("logger: redactPathParams is checked when the logger is made", () => {
  for (const bad of ["password/reset/:token", "/password/reset", "/a/:"]) {
    assert.throws(
      () => logger({ redactPathParams: [bad] }),
      /redactPathParams/,
      bad,
    );
  }
});
