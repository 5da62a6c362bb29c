import assert from "node:assert/strict";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import {
  bearerAuth,
  BearerToken,
  bearerTokenOf,
} from "@fetchkit/toolkit/bearer-auth-middleware";

const TOKEN = "s3cr3t-token_0123456789abcdef";

function app(auth: Middleware) {
  const router = createRouter();
  router.get("/", auth, ({ get }) => new Response(`ok ${get(BearerToken)}`));
  return (authorization?: string, url = "http://x/") =>
    router.fetch(
      new Request(url, {
        headers: authorization === undefined
          ? {}
          : { Authorization: authorization },
      }),
    );
}

Deno.test("bearerAuth accepts the token, in any scheme case", async () => {
  const send = app(bearerAuth({ token: TOKEN }));
  for (const scheme of ["Bearer", "bearer", "BEARER"]) {
    const response = await send(`${scheme} ${TOKEN}`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), `ok ${TOKEN}`);
  }
});

Deno.test("bearerAuth: no header gets the challenge without an error code", async () => {
  const response = await app(bearerAuth({ token: TOKEN }))();
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
});

Deno.test("bearerAuth: wrong, malformed or foreign credentials get invalid_token", async () => {
  const send = app(bearerAuth({ token: TOKEN, realm: 'my "realm"' }));
  for (
    const header of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      "Bearer",
      "Bearer ",
      "Bearer a b",
      "Bearer <script>",
      `Basic ${btoa("a:b")}`,
      `Token ${TOKEN}`,
      `Bearer ${"a".repeat(5000)}`,
    ]
  ) {
    const response = await send(header);
    assert.equal(response.status, 401, header);
    assert.equal(
      response.headers.get("WWW-Authenticate"),
      'Bearer realm="my \\"realm\\"", error="invalid_token"',
      header,
    );
  }
});

Deno.test("bearerAuth: a token in the query string is not accepted", async () => {
  const send = app(bearerAuth({ token: TOKEN }));
  const response = await send(undefined, `http://x/?access_token=${TOKEN}`);
  assert.equal(response.status, 401);
});

Deno.test("bearerAuth accepts any of several tokens", async () => {
  const send = app(bearerAuth({ token: ["old-token-1", "new-token-2"] }));
  assert.equal((await send("Bearer old-token-1")).status, 200);
  assert.equal((await send("Bearer new-token-2")).status, 200);
  assert.equal((await send("Bearer other-token")).status, 401);
});

Deno.test("bearerAuth with an async verify", async () => {
  const seen: string[] = [];
  const send = app(bearerAuth({
    verify: async (token, context) => {
      seen.push(context.url.pathname);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return token === "from-db";
    },
  }));
  assert.equal((await send("Bearer from-db")).status, 200);
  assert.equal((await send("Bearer nope")).status, 401);
  assert.deepEqual(seen, ["/", "/"]);
});

Deno.test("bearerAuth refuses bad options", () => {
  assert.throws(() => bearerAuth({}), /exactly one of `token`/);
  assert.throws(
    () => bearerAuth({ token: "a", verify: () => true }),
    /exactly one of `token`/,
  );
  assert.throws(() => bearerAuth({ token: [] }), /lists no token/);
  assert.throws(() => bearerAuth({ token: "has space" }), /b64token/);
  assert.throws(() => bearerAuth({ token: "" }), /b64token/);
  assert.throws(
    () => bearerAuth({ token: "a", realm: "x\r\ny" }),
    /control characters/,
  );
});

Deno.test("bearerTokenOf", () => {
  assert.equal(bearerTokenOf("Bearer abc.DEF-_~+/==", 100), "abc.DEF-_~+/==");
  assert.equal(bearerTokenOf("Bearer  spaced ", 100), "spaced");
  assert.equal(bearerTokenOf("Bearer a=b", 100), "");
  assert.equal(bearerTokenOf("Bearer abcdef", 3), "");
  assert.equal(bearerTokenOf("", 100), undefined);
  assert.equal(bearerTokenOf(null, 100), undefined);
});

Deno.test("bearerAuth: JSON clients get { error }", async () => {
  const send = app(bearerAuth({ token: TOKEN }));
  const response = await send("Bearer wrong");
  assert.equal(response.status, 401);
  assert.equal(await response.text(), "The bearer token is not valid");
  const router = createRouter();
  router.get("/", bearerAuth({ token: TOKEN }), () => new Response("ok"));
  const json = await router.fetch(
    new Request("http://x/", { headers: { Accept: "application/json" } }),
  );
  assert.deepEqual(await json.json(), {
    error: "Authentication required: send Authorization: Bearer <token>",
  });
  assert.equal(json.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
});
