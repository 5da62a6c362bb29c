// context.responseHeaders keeps what it is given in JavaScript until read:
// it must read and apply exactly as a real Headers would, for any sequence
// of writes, unusual names and values included. Portable (Node and Bun too).
import assert from "node:assert/strict";
import { createRouter, RequestContext } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";

function staged(): Headers {
  return new RequestContext(new Request("http://localhost/")).responseHeaders;
}

type Op = ["set" | "append" | "delete", string, string];

const NAMES = [
  "X-A",
  "x-a",
  "x-b",
  "Set-Cookie",
  "set-cookie",
  "Vary",
  "bad name",
  "x-é",
  "X-B",
  "x-",
  "",
];
const VALUES = [
  "1",
  "two words",
  " padded ",
  "a\tb",
  "",
  "é",
  "x\ny",
  "v=1; Path=/",
  "a\t",
  "\tb",
  "a\x7Fb",
  "a \t b",
  "~",
];

/** A small seeded generator, so a failure names a sequence that repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

function run(headers: Headers, op: Op): string {
  try {
    if (op[0] === "delete") headers.delete(op[1]);
    else headers[op[0]](op[1], op[2]);
    return "ok";
  } catch (error) {
    return (error as Error).name;
  }
}

/** What the router did before staging moved to JavaScript: forEach. */
function applyByForEach(to: Headers, from: Headers): void {
  let cookies = false;
  from.forEach((value, name) => {
    if (name === "set-cookie") cookies = true;
    else to.set(name, value);
  });
  if (cookies) {
    for (const cookie of from.getSetCookie()) to.append("set-cookie", cookie);
  }
}

function entries(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  headers.forEach((value, name) => out.push([name, value]));
  return out.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
}

Deno.test("responseHeaders: any sequence of writes reads as a real Headers does", () => {
  for (let seed = 1; seed <= 300; seed++) {
    const next = random(seed);
    const pick = <T>(list: readonly T[]): T =>
      list[Math.floor(next() * list.length)]!;
    const ops: Op[] = [];
    const count = 1 + Math.floor(next() * 6);
    for (let i = 0; i < count; i++) {
      ops.push([
        pick(["set", "append", "delete"] as const),
        pick(NAMES),
        pick(VALUES),
      ]);
    }
    const ours = staged();
    const real = new Headers();
    for (const op of ops) {
      assert.equal(
        run(ours, op),
        run(real, op),
        `seed ${seed}: ${JSON.stringify(op)}`,
      );
    }
    const what = `seed ${seed}: ${JSON.stringify(ops)}`;
    assert.deepEqual(entries(ours), entries(real), what);
    assert.deepEqual(ours.getSetCookie(), real.getSetCookie(), what);
    for (const name of NAMES.slice(0, 6)) {
      assert.equal(ours.get(name), real.get(name), what);
      assert.equal(ours.has(name), real.has(name), what);
    }
  }
});

Deno.test("responseHeaders: each context starts empty, whatever others staged, deleted or read", () => {
  const first = staged();
  first.delete("x-a");
  first.set("x-a", "1");
  first.append("x-b", "2");
  first.delete("x-a");
  const second = staged();
  second.set("x-c", "3");
  assert.equal(first.get("x-b"), "2");
  second.set("x-d", "4");
  const third = staged();
  assert.deepEqual([...third], []);
  third.set("x-e", "5");
  assert.deepEqual([...third], [["x-e", "5"]]);
  assert.deepEqual([...second], [["x-c", "3"], ["x-d", "4"]]);
  assert.deepEqual([...first], [["x-b", "2"]]);
});

Deno.test("responseHeaders: applied as a real staged Headers was, before and after a read", async () => {
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const pick = <T>(list: readonly T[]): T =>
      list[Math.floor(next() * list.length)]!;
    const ops: Op[] = [];
    const count = 1 + Math.floor(next() * 6);
    for (let i = 0; i < count; i++) {
      ops.push([
        pick(["set", "append", "delete"] as const),
        pick(NAMES.slice(0, 6)),
        pick(VALUES.slice(0, 5)),
      ]);
    }
    // Half the runs read the staged headers midway (they become a real
    // Headers then); the answer must not depend on it.
    const readMidway = seed % 2 === 0;
    const router = createRouter({
      middleware: [(context, next) => {
        ops.forEach((op, index) => {
          if (readMidway && index === 1) context.responseHeaders.get("x-a");
          run(context.responseHeaders, op);
        });
        return next();
      }],
    });
    router.get("/", () =>
      new Response("ok", {
        headers: [["X-A", "own"], ["Vary", "Accept"], ["Set-Cookie", "own=1"]],
      }));
    const response = await router.fetch(new Request("http://localhost/"));
    const reference = new Headers();
    for (const op of ops) run(reference, op);
    const expected = new Headers([
      ["X-A", "own"],
      ["Vary", "Accept"],
      ["Set-Cookie", "own=1"],
    ]);
    applyByForEach(expected, reference);
    const what = `seed ${seed}: ${JSON.stringify(ops)}`;
    const without = (headers: Headers) =>
      entries(headers).filter(([name]) => name !== "content-type");
    assert.deepEqual(without(response.headers), without(expected), what);
    assert.deepEqual(
      response.headers.getSetCookie(),
      expected.getSetCookie(),
      what,
    );
  }
});

Deno.test("responseHeaders: is a Headers, usable wherever one is", () => {
  const headers = staged();
  headers.set("X-A", "1");
  headers.append("Set-Cookie", "a=1");
  headers.append("Set-Cookie", "b=2");
  assert.ok(headers instanceof Headers);
  assert.equal(Object.prototype.toString.call(headers), "[object Headers]");
  assert.deepEqual([...new Headers(headers)].sort(), [
    ["set-cookie", "a=1"],
    ["set-cookie", "b=2"],
    ["x-a", "1"],
  ]);
  const response = new Response(null, { headers });
  assert.equal(response.headers.get("x-a"), "1");
  assert.deepEqual(response.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.deepEqual([...headers.keys()].sort(), [
    "set-cookie",
    "set-cookie",
    "x-a",
  ]);
  // Written to after a read, it stays a Headers.
  headers.set("X-B", "2");
  assert.equal(headers.get("x-b"), "2");
});

Deno.test("responseHeaders: a bad name or value throws the runtime's TypeError, as Headers does", () => {
  assert.throws(() => staged().set("bad name", "1"), TypeError);
  assert.throws(() => staged().append("x-a", "a\r\nInjected: 1"), TypeError);
  assert.throws(() => staged().delete("bad name"), TypeError);
});

Deno.test("the router's own 404: an edit of one answer's headers is not seen on the next, served", async () => {
  // Through serve(): on Node its adapter's Response keeps a Headers given
  // in the init as its own, so one shared by every 404 would collect edits.
  const router = createRouter({
    middleware: [async (context, next) => {
      const response = await next();
      if (context.headers.has("x-mark")) response.headers.set("X-Mark", "1");
      return response;
    }],
  });
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/nowhere`;
    const marked = await fetch(url, { headers: { "X-Mark": "1" } });
    await marked.text();
    assert.equal(marked.headers.get("x-mark"), "1");
    for (const path of ["/nowhere", "/elsewhere"]) {
      const plain = await fetch(url.replace("/nowhere", path));
      assert.equal(await plain.text(), "Not Found");
      assert.equal(plain.status, 404);
      assert.equal(plain.headers.get("x-mark"), null);
      assert.equal(
        plain.headers.get("content-type"),
        "text/plain; charset=utf-8",
      );
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("responseHeaders given as the Response's own headers: a staged cookie is sent, served, and the answer ends", async () => {
  // On Node, serve()'s adapter keeps a Headers given in the init as the
  // Response's own, so the staged headers were applied onto themselves:
  // each appended cookie was appended again, without end.
  const router = createRouter();
  router.get("/cookie", (context) => {
    context.responseHeaders.append("Set-Cookie", "sid=1; HttpOnly");
    context.responseHeaders.set("X-Staged", "yes");
    return new Response("hi", { headers: context.responseHeaders });
  });
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/cookie`);
    assert.equal(await response.text(), "hi");
    assert.equal(response.headers.get("x-staged"), "yes");
    assert.ok(response.headers.getSetCookie().includes("sid=1; HttpOnly"));
  } finally {
    await server.shutdown();
  }
});

Deno.test("responseHeaders given as the Response's own headers: applied once, not onto themselves", async () => {
  // What @hono/node-server's Response does, in process: its headers are
  // the object it was given.
  class KeepsHeaders extends Response {
    #headers: Headers;
    constructor(body: string, init: { headers: Headers }) {
      super(body, init);
      this.#headers = init.headers;
    }
    override get headers(): Headers {
      return this.#headers;
    }
  }
  const router = createRouter();
  router.get("/cookie", (context) => {
    context.responseHeaders.append("Set-Cookie", "sid=1");
    return new KeepsHeaders("hi", { headers: context.responseHeaders });
  });
  const response = await router.fetch(new Request("http://localhost/cookie"));
  assert.equal(await response.text(), "hi");
  assert.deepEqual(response.headers.getSetCookie(), ["sid=1"]);
});
