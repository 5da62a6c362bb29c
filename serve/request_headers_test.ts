// context.headers under serve() must read as request.headers does, for
// repeated, joined and unusual headers alike (on Node it reads node:http's
// own record of them). Portable: the _tools/runtimes bundle runs it on Node
// and Bun.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";
import { rawExchange } from "./_test_raw.ts";

const NAMES = [
  "accept",
  "Accept",
  "ACCEPT-LANGUAGE",
  "user-agent",
  "User-Agent",
  "authorization",
  "content-type",
  "cookie",
  "Cookie",
  "set-cookie",
  "x-empty",
  "x-twice",
  "x-spaced",
  "host",
  "range",
  "upgrade",
  "x-missing",
  "__proto__",
  "constructor",
  "toString",
];

/** Sends `head` (request line and headers) raw; the response body. */
async function send(port: number, head: string): Promise<string> {
  return (await rawExchange(port, head)).body;
}

Deno.test("serve(): context.headers reads as request.headers, for repeated and unusual headers", async () => {
  const router = createRouter();
  router.get("/", (context) => {
    const ours = context.headers;
    const theirs = context.request.headers;
    const reads = NAMES.map((name) => ({
      name,
      get: [ours.get(name), theirs.get(name)],
      has: [ours.has(name), theirs.has(name)],
    }));
    return Response.json({
      reads,
      isHeaders: ours instanceof Headers,
      entries: [[...ours], [...theirs]],
      cookies: [ours.getSetCookie(), theirs.getSetCookie()],
    });
  });
  router.get("/bad", (context) => {
    let thrown = "";
    try {
      context.headers.get("bad name");
    } catch (error) {
      thrown = (error as Error).name;
    }
    return new Response(thrown);
  });
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    onListen() {},
  });
  try {
    const body = await send(
      server.addr.port,
      "GET / HTTP/1.1\r\nHost: localhost\r\n" +
        "Accept: text/html\r\nAccept: */*\r\n" +
        "User-Agent: one\r\nuser-agent: two\r\n" +
        "Authorization: Basic a\r\nAUTHORIZATION: Basic b\r\n" +
        "Cookie: a=1\r\nCookie: b=2\r\n" +
        "Content-Type: text/plain\r\n" +
        "Accept-Language: en\r\n" +
        "X-Empty:\r\nX-Twice: 1\r\nx-twice: 2\r\nX-Spaced:   v w  \r\n",
    );
    const answer = JSON.parse(body);
    assert.equal(answer.isHeaders, true);
    for (const read of answer.reads) {
      assert.equal(read.get[0], read.get[1], `get ${read.name}`);
      assert.equal(read.has[0], read.has[1], `has ${read.name}`);
    }
    assert.deepEqual(answer.entries[0], answer.entries[1]);
    assert.deepEqual(answer.cookies[0], answer.cookies[1]);
    // And the values are Fetch's: repeated headers joined.
    const got = Object.fromEntries(
      answer.reads.map((read: { name: string; get: string[] }) => [
        read.name,
        read.get[0],
      ]),
    );
    assert.equal(got["user-agent"], "one, two");
    assert.equal(got["accept"], "text/html, */*");
    assert.equal(got["x-twice"], "1, 2");
    assert.equal(got["x-empty"], "");
    assert.equal(got["x-missing"], null);
    // A name that is not a token throws as request.headers does.
    assert.equal(
      await send(server.addr.port, "GET /bad HTTP/1.1\r\nHost: localhost\r\n"),
      "TypeError",
    );
  } finally {
    await server.shutdown();
  }
});
