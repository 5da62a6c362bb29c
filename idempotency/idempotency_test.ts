// idempotency() on the memory store: replay, 422, 409, 400, 413, scopes,
// and exactly-once under concurrency in one process. Portable.

import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { createMemoryCacheStore } from "@fetchkit/toolkit/cache-middleware";
import {
  idempotency,
  type IdempotencyOptions,
} from "@fetchkit/toolkit/idempotency-middleware";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";

const ADA = { hostname: "192.0.2.1", port: 1000, transport: "tcp" as const };
const BOB = { hostname: "192.0.2.2", port: 1000, transport: "tcp" as const };

interface Send {
  key?: string;
  body?: string;
  path?: string;
  method?: string;
  from?: typeof ADA;
  cookie?: string;
}

function app(
  handler: (request: Request) => Response | Promise<Response> = async (
    request,
  ) => Response.json({ created: await request.text() }, { status: 201 }),
  options: Partial<IdempotencyOptions> = {},
) {
  const runs = { count: 0 };
  const router = createRouter();
  const middleware = idempotency({
    store: createMemoryCacheStore(),
    ...options,
  });
  const run = ({ request }: { request: Request }) => {
    runs.count++;
    return handler(request);
  };
  router.post("/orders", middleware, run);
  router.post("/other", middleware, run);
  router.get("/orders", middleware, run);
  const send = (init: Send = {}) => {
    const headers: Record<string, string> = {};
    if (init.key !== undefined) headers["Idempotency-Key"] = init.key;
    if (init.cookie !== undefined) headers.cookie = init.cookie;
    const method = init.method ?? "POST";
    return router.fetch(
      new Request(`http://localhost${init.path ?? "/orders"}`, {
        method,
        headers,
        body: method === "GET" ? undefined : init.body ?? "{}",
      }),
      { remoteAddr: init.from ?? ADA },
    );
  };
  return { runs, send };
}

async function problemOf(response: Response): Promise<string> {
  assert.equal(
    response.headers.get("content-type"),
    "application/problem+json",
  );
  const body = await response.json();
  assert.equal(body.status, response.status);
  return body.detail;
}

Deno.test("idempotency: a repeat gets the first answer replayed; the handler runs once", async () => {
  const { runs, send } = app(async (request) =>
    new Response(`order for ${await request.text()}`, {
      status: 201,
      headers: { Location: "/orders/1", "Set-Cookie": "a=b" },
    })
  );
  const first = await send({ key: '"k-1"', body: "tea" });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get("Idempotent-Replayed"), null);
  assert.equal(await first.text(), "order for tea");
  const again = await send({ key: '"k-1"', body: "tea" });
  assert.equal(again.status, 201);
  assert.equal(again.headers.get("Location"), "/orders/1");
  assert.equal(again.headers.get("Idempotent-Replayed"), "true");
  assert.equal(
    again.headers.get("Set-Cookie"),
    null,
    "cookies are not replayed",
  );
  assert.equal(await again.text(), "order for tea");
  assert.equal(runs.count, 1);
});

Deno.test("idempotency: a quoted and a bare key name the same key", async () => {
  const { runs, send } = app();
  await send({ key: '"abc-123"' });
  const bare = await send({ key: "abc-123" });
  assert.equal(bare.headers.get("Idempotent-Replayed"), "true");
  assert.equal(runs.count, 1);
});

Deno.test("idempotency: the same key with another body, path or method is 422", async () => {
  const { runs, send } = app();
  await send({ key: "k", body: "tea" });
  const otherBody = await send({ key: "k", body: "coffee" });
  assert.equal(otherBody.status, 422);
  assert.match(await problemOf(otherBody), /different request/);
  const otherPath = await send({ key: "k", body: "tea", path: "/other" });
  assert.equal(otherPath.status, 422);
  assert.equal(runs.count, 1);
});

Deno.test("idempotency: a repeat while the first runs is 409 with Retry-After", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const { runs, send } = app(async () => {
    await gate;
    return new Response("done", { status: 201 });
  });
  const first = send({ key: "slow" });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await send({ key: "slow" });
  assert.equal(second.status, 409);
  assert.equal(second.headers.get("Retry-After"), "1");
  assert.match(await problemOf(second), /still being processed/);
  release();
  assert.equal((await first).status, 201);
  const third = await send({ key: "slow" });
  assert.equal(third.headers.get("Idempotent-Replayed"), "true");
  assert.equal(runs.count, 1);
});

Deno.test("idempotency: 20 concurrent requests with one key run the handler once", async () => {
  const { runs, send } = app(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return new Response("made", { status: 201 });
  });
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => send({ key: "burst" })),
  );
  assert.equal(runs.count, 1);
  const statuses = responses.map((response) => response.status).sort();
  assert.deepEqual(statuses, [201, ...Array(19).fill(409)]);
});

Deno.test("idempotency: required and missing is 400; not required passes by", async () => {
  const strict = app(undefined, { required: true });
  const missing = await strict.send();
  assert.equal(missing.status, 400);
  assert.match(
    await problemOf(missing),
    /POST \/orders needs an Idempotency-Key/,
  );
  assert.equal(strict.runs.count, 0);
  const loose = app();
  assert.equal((await loose.send()).status, 201);
  assert.equal((await loose.send()).status, 201);
  assert.equal(loose.runs.count, 2);
});

Deno.test("idempotency: malformed keys are 400 naming the problem", async () => {
  const { runs, send } = app();
  for (
    const [key, message] of [
      ['""', /empty/],
      ["k".repeat(256), /256 characters; the limit is 255/],
      ['"a" "b"', /one string/],
      ["has space", /without spaces/],
      ['"bad\\n"', /escaped/],
    ] as const
  ) {
    const response = await send({ key });
    assert.equal(response.status, 400, key);
    assert.match(await problemOf(response), message);
  }
  assert.equal(runs.count, 0);
});

Deno.test("idempotency: a request body over maxRequestBytes is 413", async () => {
  const { runs, send } = app(undefined, { maxRequestBytes: 10 });
  const response = await send({ key: "big", body: "x".repeat(11) });
  assert.equal(response.status, 413);
  assert.match(await problemOf(response), /10-byte limit/);
  assert.equal(runs.count, 0);
});

Deno.test("idempotency: GET passes by, keys or not", async () => {
  const { runs, send } = app(() => new Response("list"));
  await send({ method: "GET", key: "g" });
  await send({ method: "GET", key: "g" });
  assert.equal(runs.count, 2);
});

Deno.test("idempotency: keys are scoped to the client address; another client cannot replay", async () => {
  const { runs, send } = app(async (request) =>
    new Response(`secret for ${await request.text()}`, { status: 201 })
  );
  await send({ key: "shared", body: "ada", from: ADA });
  const bob = await send({ key: "shared", body: "ada", from: BOB });
  assert.equal(bob.headers.get("Idempotent-Replayed"), null);
  assert.equal(runs.count, 2, "Bob's request ran as his own");
});

Deno.test("idempotency: a 5xx or a throw releases the key, so the retry runs", async () => {
  let fail: "status" | "throw" | undefined = "status";
  const { runs, send } = app(() => {
    if (fail === "status") return new Response("down", { status: 503 });
    if (fail === "throw") throw new Error("boom");
    return new Response("ok", { status: 201 });
  });
  assert.equal((await send({ key: "r" })).status, 503);
  fail = "throw";
  const original = console.error;
  console.error = () => {};
  try {
    assert.equal((await send({ key: "r" })).status, 500);
  } finally {
    console.error = original;
  }
  fail = undefined;
  assert.equal((await send({ key: "r" })).status, 201);
  assert.equal(
    (await send({ key: "r" })).headers.get("Idempotent-Replayed"),
    "true",
  );
  assert.equal(runs.count, 3);
});

Deno.test("idempotency: an answer over maxBodyBytes replays status and headers without the body", async () => {
  const { runs, send } = app(
    () =>
      new Response("x".repeat(100), { status: 201, headers: { "X-Id": "7" } }),
    { maxBodyBytes: 10 },
  );
  assert.equal(await (await send({ key: "big" })).text(), "x".repeat(100));
  const again = await send({ key: "big" });
  assert.equal(again.status, 201);
  assert.equal(again.headers.get("X-Id"), "7");
  assert.equal(await again.text(), "");
  assert.equal(runs.count, 1);
});

Deno.test("idempotency: with the session option, keys are scoped to the session", async () => {
  const Session = createContextKey<Session>();
  const storage = createMemorySessionStorage({
    cookie: { secrets: ["0123456789abcdef0123456789abcdef-test"] },
  });
  const router = createRouter({ middleware: [session(Session, storage)] });
  let runs = 0;
  router.get("/login", ({ get }) => {
    get(Session)!.set("user", "someone");
    return new Response("in");
  });
  router.post(
    "/orders",
    idempotency({ store: createMemoryCacheStore(), session: Session }),
    () => new Response(`order ${++runs}`, { status: 201 }),
  );
  const login = async () =>
    (await router.fetch(new Request("http://localhost/login"), {
      remoteAddr: ADA,
    })).headers.get("set-cookie")!.split(";")[0];
  const ada = await login();
  const bob = await login();
  const order = (cookie: string, from: typeof ADA) =>
    router.fetch(
      new Request("http://localhost/orders", {
        method: "POST",
        headers: { cookie, "Idempotency-Key": "same" },
        body: "{}",
      }),
      { remoteAddr: from },
    );
  assert.equal(await (await order(ada, ADA)).text(), "order 1");
  // Same session from another address: still the same client.
  const replay = await order(ada, BOB);
  assert.equal(replay.headers.get("Idempotent-Replayed"), "true");
  assert.equal(await replay.text(), "order 1");
  // Another session from the same address: its own key.
  assert.equal(await (await order(bob, ADA)).text(), "order 2");
});

Deno.test("idempotency: bad options are refused with what was wrong", () => {
  assert.throws(
    () => idempotency({} as IdempotencyOptions),
    /idempotency\(\) needs `store`/,
  );
  assert.throws(
    () => idempotency({ store: createMemoryCacheStore(), ttl: 0 }),
    /ttl must be a finite number >= 1, got 0/,
  );
});

Deno.test("idempotency: the body limit holds with and without Content-Length", async () => {
  const router = createRouter();
  let runs = 0;
  router.post(
    "/",
    idempotency({ store: createMemoryCacheStore(), maxRequestBytes: 8 }),
    () => new Response(String(++runs), { status: 201 }),
  );
  const send = (body: BodyInit, headers: Record<string, string> = {}) =>
    router.fetch(
      new Request("http://localhost/", {
        method: "POST",
        headers: { "Idempotency-Key": crypto.randomUUID(), ...headers },
        body,
      }),
      { remoteAddr: ADA },
    );
  const chunked = (text: string) =>
    new ReadableStream({
      start(controller) {
        for (const char of text) {
          controller.enqueue(new TextEncoder().encode(char));
        }
        controller.close();
      },
    });
  assert.equal((await send("12345678", { "Content-Length": "8" })).status, 201);
  assert.equal(
    (await send("123456789", { "Content-Length": "9" })).status,
    413,
  );
  assert.equal((await send(chunked("12345678"))).status, 201);
  assert.equal((await send(chunked("123456789"))).status, 413);
  assert.equal(runs, 2);
});

Deno.test("idempotency: a 204 answer is kept and replayed without a body", async () => {
  const { runs, send } = app(() => new Response(null, { status: 204 }));
  const first = await send({ key: "empty" });
  assert.equal(first.status, 204);
  const again = await send({ key: "empty" });
  assert.equal(again.status, 204);
  assert.equal(again.headers.get("Idempotent-Replayed"), "true");
  assert.equal(again.body, null);
  assert.equal(runs.count, 1);
});

for (const status of [401, 408, 425, 429]) {
  Deno.test(`idempotency: a ${status} (retry later, or with credentials) releases the key, so the retry with the same key runs`, async () => {
    let refuse = true;
    const { runs, send } = app(() =>
      refuse
        ? new Response("not now", {
          status,
          headers: { "Retry-After": "1" },
        })
        : new Response("ok", { status: 201 })
    );
    const first = await send({ key: "retry-me" });
    assert.equal(first.status, status);
    assert.equal(first.headers.get("Idempotent-Replayed"), null);
    await first.body?.cancel();
    refuse = false;
    // The client waited as told and sends the same request, same key.
    const retry = await send({ key: "retry-me" });
    assert.equal(retry.status, 201, `a ${status} must not be replayed`);
    assert.equal(retry.headers.get("Idempotent-Replayed"), null);
    await retry.body?.cancel();
    const repeat = await send({ key: "retry-me" });
    assert.equal(repeat.status, 201);
    assert.equal(repeat.headers.get("Idempotent-Replayed"), "true");
    await repeat.body?.cancel();
    assert.equal(runs.count, 2);
  });
}

Deno.test("idempotency: an answer whose body fails while streaming releases the key, as a throw does", async () => {
  let broken = true;
  const { runs, send } = app(() => {
    if (!broken) return new Response("ok", { status: 201 });
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("the database cursor died"));
      },
    });
    return new Response(body, { status: 201 });
  });
  const original = console.error;
  console.error = () => {};
  try {
    const first = await send({ key: "stream" });
    assert.equal(first.status, 500);
    await first.body?.cancel();
  } finally {
    console.error = original;
  }
  broken = false;
  const retry = await send({ key: "stream" });
  assert.equal(retry.status, 201, "the retry runs, not a 409 for lockTimeout");
  assert.equal(await retry.text(), "ok");
  assert.equal(runs.count, 2);
});

Deno.test("idempotency: with the session option but session() not run first, it refuses to fall back to the address (which one session's answer would reach another)", async () => {
  const Session = createContextKey<Session>();
  const storage = createMemorySessionStorage({
    cookie: { secrets: ["0123456789abcdef0123456789abcdef-test"] },
  });
  const router = createRouter();
  let runs = 0;
  router.get("/login", session(Session, storage), ({ get }) => {
    get(Session)!.set("user", `user ${++runs}`);
    return new Response("in");
  });
  // Misordered: idempotency() before session().
  router.post(
    "/orders",
    idempotency({ store: createMemoryCacheStore(), session: Session }),
    session(Session, storage),
    ({ get }) => new Response(`order for ${get(Session)!.get("user")}`),
  );
  const login = async () =>
    (await router.fetch(new Request("http://localhost/login"), {
      remoteAddr: ADA,
    })).headers.get("set-cookie")!.split(";")[0];
  const one = await login();
  const two = await login();
  const order = (cookie: string) =>
    router.fetch(
      new Request("http://localhost/orders", {
        method: "POST",
        headers: { cookie, "Idempotency-Key": "same" },
        body: "{}",
      }),
      { remoteAddr: ADA },
    );
  const original = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(...args);
  try {
    const first = await order(one);
    const second = await order(two);
    const replayed = second.headers.get("Idempotent-Replayed") === "true";
    const texts = [await first.text(), await second.text()];
    assert.ok(!replayed, `the second session got the first's answer: ${texts}`);
    assert.equal(first.status, 500);
    assert.equal(second.status, 500);
    assert.match(
      logged.map(String).join(" "),
      /run session\(\) before idempotency\(\)/,
    );
  } finally {
    console.error = original;
  }
});
