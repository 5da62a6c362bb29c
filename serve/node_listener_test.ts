// serve()'s own listener on Node (_node_listener.ts) must answer as
// @hono/node-server did: the same request.url, the same heads and bodies,
// the same errors, and a signal that aborts when the client goes away.
// Portable: the _tools/runtimes bundle runs it on Node (the HTTP tests are
// Node's alone; Deno and Bun serve through their own servers).
import assert from "node:assert/strict";
import { connect } from "node:net";
import { serve } from "@fetchkit/toolkit/serve";
import { plainHost, plainTarget } from "./_node_listener.ts";
import { rawExchange } from "./_test_raw.ts";

// The adapter's own tests (@hono/node-server 2.1.9, src/url.ts): a target
// it keeps as sent, and a host it takes as it is.
const ADAPTER_TARGET = /^\/[!#$&-;=?-\[\]_a-z~]*$/;
const ADAPTER_DOT = /\/\.\.?(?:[/?#]|$)/;
const ADAPTER_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** A seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(next: () => number, alphabet: string, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) {
    text += alphabet[Math.floor(next() * alphabet.length)];
  }
  return text;
}

Deno.test("plainHost: takes exactly the hosts the adapter's test takes", () => {
  const next = random(51);
  const alphabet = "ab.z09_-:A1596%@ []x";
  const hosts = [
    "127.0.0.1:8000",
    "localhost",
    "example.com:443",
    "example.com:80",
    "a:1000",
    "a:59999",
    "a:60000",
    "a:6000",
    "a:0999",
    "a:",
    ":8000",
    "",
    "Example.com",
    "[::1]:8000",
  ];
  for (let i = 0; i < 5000; i++) {
    hosts.push(pick(next, alphabet, 1 + Math.floor(next() * 12)));
  }
  for (const host of hosts) {
    assert.equal(plainHost(host), ADAPTER_HOST.test(host), host);
  }
});

Deno.test("plainTarget: only targets the adapter keeps as sent, and the usual ones", () => {
  const next = random(77);
  const alphabet = "/a.?=&%#Z~:@!'()*+,;$\\ \"<>^`{|}é-_09";
  for (let i = 0; i < 20000; i++) {
    const target = "/" + pick(next, alphabet, Math.floor(next() * 14));
    if (!plainTarget(target)) continue;
    assert.ok(
      ADAPTER_TARGET.test(target) && !ADAPTER_DOT.test(target),
      target,
    );
  }
  for (
    const target of [
      "/",
      "/users/42",
      "/a/b?x=1&y=two",
      "/search?q=a+b&page=2",
      "/static/app.js",
      "/a?x=/y",
    ]
  ) assert.ok(plainTarget(target), target);
  for (
    const target of [
      "*",
      "http://h/a",
      "/a/../b",
      "/.well-known/x",
      "/a%20b",
      "/a#b",
      "/a?b#c",
      "/a\\b",
      "/a?x=/./y",
      "/é",
    ]
  ) assert.ok(!plainTarget(target), target);
});

const onNode = typeof (globalThis as { Deno?: unknown }).Deno === "undefined" &&
  !("Bun" in globalThis);

/** Sends `head` raw; the whole answer as text (head and body). */
function rawAnswer(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => text += chunk);
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(head + "Connection: close\r\n\r\n");
  });
}

Deno.test({
  name:
    "serve() on Node: heads, bodies and errors of every kind of answer, as through the adapter",
  ignore: !onNode,
  fn: async () => {
    const logged = console.error;
    console.error = () => {};
    const server = serve(async (request: Request) => {
      const path = new URL(request.url).pathname;
      switch (path) {
        case "/text":
          return new Response("héllo");
        case "/bytes":
          return new Response(new Uint8Array([1, 2, 3]), {
            headers: { "x-kind": "bytes" },
          });
        case "/declared":
          return new Response("abc", {
            headers: { "Content-Length": "3", "x-a": "1" },
          });
        case "/empty":
          return new Response(null, { status: 204 });
        case "/stream":
          return new Response(
            new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode("one,"));
                controller.enqueue(new TextEncoder().encode("two"));
                controller.close();
              },
            }),
          );
        case "/headers":
          return new Response("h", {
            headers: new Headers([["x-b", "2"], ["set-cookie", "a=1"], [
              "set-cookie",
              "b=2",
            ]]),
          });
        case "/headers-set": {
          // Reading `headers` turns the record into a Headers.
          const response = new Response("abcd", { headers: { "x-c": "3" } });
          response.headers.set("content-length", "4");
          response.headers.append("set-cookie", "c=3");
          return response;
        }
        case "/throws":
          throw new Error("boom");
        case "/echo":
          return Response.json({
            method: request.method,
            url: request.url,
            text: await request.clone().text(),
            again: await request.text(),
            isRequest: request instanceof Request,
          });
        case "/copy":
          return new Response(new Request(request).url);
        default:
          return Response.json({ url: request.url });
      }
    }, { hostname: "127.0.0.1", port: 0, handleSignals: false });
    const port = server.addr.port;
    const origin = `http://127.0.0.1:${port}`;
    try {
      const text = await fetch(`${origin}/text`);
      assert.equal(text.headers.get("content-length"), "6");
      assert.equal(
        text.headers.get("content-type"),
        "text/plain; charset=UTF-8",
      );
      assert.equal(await text.text(), "héllo");

      const head = await rawAnswer(port, "HEAD /text HTTP/1.1\r\nHost: h\r\n");
      assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(head, /\r\ncontent-length: 6\r\n/i);
      assert.ok(head.endsWith("\r\n\r\n"), head);

      const bytes = await fetch(`${origin}/bytes`);
      assert.equal(bytes.headers.get("x-kind"), "bytes");
      assert.equal(bytes.headers.get("content-length"), "3");
      assert.deepEqual([...new Uint8Array(await bytes.arrayBuffer())], [
        1,
        2,
        3,
      ]);

      const declared = await rawAnswer(
        port,
        "GET /declared HTTP/1.1\r\nHost: h\r\n",
      );
      assert.equal(declared.match(/content-length: 3/gi)?.length, 1);
      assert.match(declared, /\r\nx-a: 1\r\n/i);
      assert.ok(declared.endsWith("\r\n\r\nabc"), declared);

      const empty = await fetch(`${origin}/empty`);
      assert.equal(empty.status, 204);
      assert.equal(await empty.text(), "");

      const stream = await fetch(`${origin}/stream`);
      assert.equal(await stream.text(), "one,two");

      const headers = await fetch(`${origin}/headers`);
      assert.equal(headers.headers.get("x-b"), "2");
      assert.deepEqual(headers.headers.getSetCookie(), ["a=1", "b=2"]);
      assert.equal(await headers.text(), "h");

      const set = await rawAnswer(
        port,
        "GET /headers-set HTTP/1.1\r\nHost: h\r\n",
      );
      assert.equal(set.match(/content-length: 4\r\n/gi)?.length, 1, set);
      assert.match(set, /\r\nx-c: 3\r\n/i);
      assert.match(set, /\r\nset-cookie: c=3\r\n/i);
      assert.match(set, /\r\ncontent-type: text\/plain; charset=UTF-8\r\n/i);
      assert.ok(set.endsWith("\r\n\r\nabcd"), set);
      const setHead = await rawAnswer(
        port,
        "HEAD /headers-set HTTP/1.1\r\nHost: h\r\n",
      );
      assert.match(setHead, /\r\ncontent-length: 4\r\n/i);
      assert.ok(setHead.endsWith("\r\n\r\n"), setHead);

      const thrown = await fetch(`${origin}/throws`);
      assert.equal(thrown.status, 500);
      await thrown.body?.cancel();

      const echo = await fetch(`${origin}/echo?x=1`, {
        method: "POST",
        body: "a=1&b=2",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      assert.deepEqual(await echo.json(), {
        method: "POST",
        url: `${origin}/echo?x=1`,
        text: "a=1&b=2",
        again: "a=1&b=2",
        isRequest: true,
      });

      const copy = await fetch(`${origin}/copy?a=1`);
      assert.equal(await copy.text(), `${origin}/copy?a=1`);

      // Targets the adapter rewrites are rewritten as before.
      for (
        const [target, url] of [
          ["/a/../b", "http://h:8000/b"],
          ["/a%7e?q=1", "http://h:8000/a%7e?q=1"],
          ["/x?a=/./y", "http://h:8000/x?a=/./y"],
          ["/plain?a=b", "http://h:8000/plain?a=b"],
        ]
      ) {
        const answer = await rawExchange(
          port,
          `GET ${target} HTTP/1.1\r\nHost: h:8000\r\n`,
        );
        assert.deepEqual(JSON.parse(answer.body), { url }, target);
      }
      const upper = await rawExchange(
        port,
        "GET /p HTTP/1.1\r\nHost: H:80\r\n",
      );
      assert.deepEqual(JSON.parse(upper.body), { url: "http://h/p" });
    } finally {
      console.error = logged;
      await server.shutdown();
    }
  },
});

Deno.test({
  name:
    "serve() on Node: request.signal aborts when the client goes away before the answer",
  ignore: !onNode,
  fn: async () => {
    let aborted!: (reason: unknown) => void;
    const abort = new Promise((resolve) => aborted = resolve);
    let reached!: () => void;
    const waiting = new Promise<void>((resolve) => reached = resolve);
    const server = serve((request: Request) => {
      const signal = request.signal;
      signal.addEventListener("abort", () => aborted(signal.reason));
      reached();
      return new Promise<Response>((resolve) =>
        setTimeout(() => resolve(new Response("late")), 3000)
      );
    }, { hostname: "127.0.0.1", port: 0, handleSignals: false });
    try {
      const socket = connect(server.addr.port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
      await waiting;
      socket.destroy();
      const reason = await Promise.race([
        abort,
        new Promise((resolve) => setTimeout(() => resolve("no abort"), 2000)),
      ]);
      assert.notEqual(reason, "no abort");
    } finally {
      await server.shutdown();
    }
  },
});

Deno.test({
  name:
    "serve() on Node: a signal first read after the client went away is aborted",
  ignore: !onNode,
  fn: async () => {
    let gone!: () => void;
    const closed = new Promise<void>((resolve) => gone = resolve);
    let read!: (aborted: boolean) => void;
    const result = new Promise<boolean>((resolve) => read = resolve);
    const server = serve(async (request: Request) => {
      await closed;
      await new Promise((resolve) => setTimeout(resolve, 100));
      read(request.signal.aborted);
      return new Response("late");
    }, { hostname: "127.0.0.1", port: 0, handleSignals: false });
    try {
      const socket = connect(server.addr.port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n");
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
      gone();
      assert.equal(await result, true);
    } finally {
      await server.shutdown();
    }
  },
});
