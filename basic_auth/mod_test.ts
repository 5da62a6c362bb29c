import assert from "node:assert/strict";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import {
  basicAuth,
  BasicAuthUser,
} from "@fetchkit/toolkit/basic-auth-middleware";

const CHALLENGE = 'Basic realm="Admin area", charset="UTF-8"';

function app(auth: Middleware) {
  const router = createRouter();
  router.get(
    "/",
    auth,
    ({ get }) => new Response(`hello ${get(BasicAuthUser)}`),
  );
  return (authorization?: string) =>
    router.fetch(
      new Request("http://x/", {
        headers: authorization === undefined
          ? {}
          : { Authorization: authorization },
      }),
    );
}

function basic(credentials: string): string {
  const bytes = new TextEncoder().encode(credentials);
  return "Basic " + btoa(String.fromCharCode(...bytes));
}

const users = { ada: "correct horse", "grace hopper": "pässwörd:with:colons" };

Deno.test("basicAuth lets known users in", async () => {
  const send = app(basicAuth({ users, realm: "Admin area" }));
  let response = await send(basic("ada:correct horse"));
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "hello ada");
  // UTF-8 passwords, colons after the first belong to the password.
  response = await send(basic("grace hopper:pässwörd:with:colons"));
  assert.equal(await response.text(), "hello grace hopper");
  // The scheme is case-insensitive.
  response = await send("basic " + btoa("ada:correct horse"));
  assert.equal(response.status, 200);
});

Deno.test("basicAuth: missing, wrong or malformed credentials get 401 with the challenge", async () => {
  const send = app(basicAuth({ users, realm: "Admin area" }));
  for (
    const header of [
      undefined,
      basic("ada:wrong"),
      basic("ada:correct horse "),
      basic("nobody:correct horse"),
      basic("ada"), // no colon
      basic(":correct horse"),
      "Basic",
      "Basic ",
      "Basic !!!!",
      "Basic YWRh", // "ada", no colon
      "Basic YWRhOmNvcnJlY3QgaG9yc2U", // unpadded
      "Basic " + btoa("ada:\xff\xfe"), // not UTF-8
      basic("ada:correct\nhorse"),
      "Bearer abc",
      "Basic " + "A".repeat(8000),
    ]
  ) {
    const response = await send(header);
    assert.equal(response.status, 401, String(header));
    assert.equal(
      response.headers.get("WWW-Authenticate"),
      CHALLENGE,
      String(header),
    );
    assert.equal(await response.text(), "Authentication required");
  }
});

Deno.test("basicAuth with an async verify", async () => {
  const send = app(basicAuth({
    realm: "Admin area",
    verify: async (username, password) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return username === "svc" && password === "from-db";
    },
  }));
  assert.equal((await send(basic("svc:from-db"))).status, 200);
  const refused = await send(basic("svc:nope"));
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("WWW-Authenticate"), CHALLENGE);
});

Deno.test("basicAuth refuses bad options", () => {
  assert.throws(
    () => basicAuth({ realm: "x" }),
    /exactly one of `users`/,
  );
  assert.throws(
    () => basicAuth({ users: {}, realm: "x" }),
    /lists no user/,
  );
  assert.throws(
    () => basicAuth({ users: { "a:b": "c" }, realm: "x" }),
    /has a colon/,
  );
  assert.throws(
    () => basicAuth({ users: { a: "b" }, realm: "" }),
    /needs a `realm`/,
  );
  assert.throws(
    () => basicAuth({ users: { a: "b" }, realm: "a\nb" }),
    /control characters/,
  );
});

Deno.test("basicAuth: JSON clients get { error }", async () => {
  const router = createRouter();
  router.get(
    "/",
    basicAuth({ users, realm: "Admin area" }),
    () => new Response("ok"),
  );
  const response = await router.fetch(
    new Request("http://x/", { headers: { Accept: "application/json" } }),
  );
  assert.equal(response.status, 401);
  assert.deepEqual(await response.json(), { error: "Authentication required" });
  assert.equal(response.headers.get("WWW-Authenticate"), CHALLENGE);
});
