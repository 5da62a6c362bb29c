// Portable: runs on Deno, Node and Bun.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
import {
  streamLimit,
  type StreamLimitOptions,
} from "@fetchkit/toolkit/stream-limit-middleware";

function from(hostname: string) {
  return { remoteAddr: { hostname, port: 1, transport: "tcp" } };
}

/** A router whose /events stream sends "tick" every 10 ms until it ends. */
function app(options: StreamLimitOptions) {
  const limit = streamLimit(options);
  let sources = 0;
  const router = createRouter();
  router.get("/events", limit, () => {
    sources++;
    return createEventStreamResponse(async function* () {
      try {
        for (let n = 1;; n++) {
          yield { id: n, data: "tick" };
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        sources--;
      }
    }());
  });
  router.get("/plain", limit, () => new Response("ok"));
  return { router, limit, sources: () => sources };
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(check());
}

Deno.test("streamLimit: per address, then 503 with Retry-After and the limit named", async () => {
  const { router, limit } = app({ perAddress: 2, total: 10 });
  const a1 = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.1"),
  );
  const a2 = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.1"),
  );
  const a3 = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.1"),
  );
  const b1 = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.2"),
  );
  assert.deepEqual([a1.status, a2.status, a3.status, b1.status], [
    200,
    200,
    503,
    200,
  ]);
  assert.equal(a3.headers.get("Retry-After"), "5");
  assert.match(await a3.text(), /from your address \(limit 2\)/);
  assert.equal(limit.open(), 3);
  assert.equal(limit.openFor("192.0.2.1"), 2);
  // A client that leaves frees its place.
  await a1.body!.cancel();
  assert.equal(limit.openFor("192.0.2.1"), 1);
  const a4 = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.1"),
  );
  assert.equal(a4.status, 200);
  for (const r of [a2, a4, b1]) await r.body!.cancel();
  assert.equal(limit.open(), 0);
});

Deno.test("streamLimit: the total, across addresses", async () => {
  const { router, limit } = app({ perAddress: 5, total: 3 });
  const responses = [];
  for (let i = 1; i <= 4; i++) {
    responses.push(
      await router.fetch(new Request("http://x/events"), from(`192.0.2.${i}`)),
    );
  }
  assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 503]);
  assert.match(await responses[3].text(), /on this server \(limit 3\)/);
  for (const r of responses.slice(0, 3)) await r.body!.cancel();
  assert.equal(limit.open(), 0);
});

Deno.test("streamLimit: a stream ends after its lifetime, and its source stops", async () => {
  const { router, limit, sources } = app({ maxLifetimeMs: 100 });
  const response = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.1"),
  );
  const text = await response.text(); // ends on its own
  assert.match(text, /^id: 1\ndata: tick\n\n/);
  assert.equal(limit.open(), 0);
  await waitFor(() => sources() === 0);
});

Deno.test("streamLimit: another event stream gets retry: before it ends", async () => {
  const limit = streamLimit({ maxLifetimeMs: 100, retryMs: 1234 });
  let cancelled = false;
  const router = createRouter();
  router.get("/raw", limit, () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: hi\n\n"));
        },
        cancel() {
          cancelled = true;
        },
      }),
      { headers: { "Content-Type": "text/event-stream" } },
    ));
  const response = await router.fetch(
    new Request("http://x/raw"),
    from("192.0.2.1"),
  );
  assert.equal(limit.open(), 1);
  const text = await response.text();
  assert.equal(text, "data: hi\n\n\n\nretry: 1234\n\n");
  assert.equal(limit.open(), 0);
  assert.ok(cancelled, "the inner stream was cancelled");
});

Deno.test("streamLimit: an IPv6 client counts by its /64; other responses are not held", async () => {
  const { router, limit } = app({ perAddress: 1 });
  const one = await router.fetch(
    new Request("http://x/events"),
    from("2001:db8:1:2::1"),
  );
  const two = await router.fetch(
    new Request("http://x/events"),
    from("2001:db8:1:2:ffff::9"),
  );
  assert.equal(one.status, 200);
  assert.equal(two.status, 503);
  assert.equal(limit.openFor("2001:db8:1:2::/64"), 1);
  const plain = await router.fetch(
    new Request("http://x/plain"),
    from("192.0.2.9"),
  );
  assert.equal(await plain.text(), "ok");
  assert.equal(limit.open(), 1);
  await one.body!.cancel();
});

Deno.test("streamLimit: malformed options are refused by name", () => {
  assert.throws(
    () => streamLimit({ total: 0 }),
    /total must be a whole number >= 1, got 0/,
  );
  assert.throws(
    () => streamLimit({ maxLifetimeMs: -1 }),
    /maxLifetimeMs must be a whole number >= 0/,
  );
});

Deno.test("streamLimit: hold() counts other connections under the same bounds", async () => {
  const { router, limit } = app({ perAddress: 2, total: 3 });
  const context = { remoteAddr: from("192.0.2.1").remoteAddr } as Parameters<
    typeof limit.hold
  >[0];
  const release = limit.hold(context);
  const stream = await router.fetch(
    new Request("http://x/events"),
    from("192.0.2.1"),
  );
  assert.equal(stream.status, 200);
  assert.throws(
    () => limit.hold(context),
    (error: Error & { status?: number }) =>
      error.status === 503 &&
      /from your address \(limit 2\)/.test(error.message),
  );
  release();
  release(); // once only
  assert.equal(limit.openFor("192.0.2.1"), 1);
  await stream.body!.cancel();
  assert.equal(limit.open(), 0);
});
