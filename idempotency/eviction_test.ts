// Exactly once on the memory store: a key in flight or answered is never
// dropped to make room, neither for other keys nor for cache() entries in
// the same store; a new key that finds the store full gets 503 with
// Retry-After, never a second run of an old one. Portable (Node and Bun).

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
import { quietErrors } from "../_tools/console.ts";

const victim = { hostname: "192.0.2.1", port: 1, transport: "tcp" as const };
const attacker = {
  hostname: "198.51.100.7",
  port: 1,
  transport: "tcp" as const,
};

function post(key: string, body = '{"amount":100}'): Request {
  return new Request("http://localhost/orders", {
    method: "POST",
    headers: { "Idempotency-Key": key, "Content-Type": "application/json" },
    body,
  });
}

Deno.test("idempotency: 2,000 keys from another client into a 256 KiB store evict no answered key; the new ones get 503", async () => {
  const store = createMemoryCacheStore({ maxBytes: 256 * 1024 });
  const router = createRouter();
  let orders = 0;
  router.post("/orders", idempotency({ store }), () => {
    orders++;
    return Response.json({ order: orders }, { status: 201 });
  });
  const first = await router.fetch(post("victim-order-1"), {
    remoteAddr: victim,
  });
  assert.deepEqual(await first.json(), { order: 1 });

  const statuses = new Map<number, number>();
  let retryAfter: string | null = null;
  // No `using`: Node 20 runs this file too.
  const quiet = quietErrors();
  for (let i = 0; i < 2000; i++) {
    const response = await router.fetch(post(`flood-${i}`), {
      remoteAddr: attacker,
    });
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status === 503) {
      retryAfter = response.headers.get("Retry-After");
      assert.match(await response.text(), /Idempotency-Key/);
    } else {
      await response.body?.cancel();
    }
  }
  quiet[Symbol.dispose]();
  assert.ok(
    (statuses.get(503) ?? 0) > 0,
    "the store fills: new keys are refused",
  );
  assert.ok(Number(retryAfter) >= 1, "with Retry-After");
  const runsBefore = orders;

  const retry = await router.fetch(post("victim-order-1"), {
    remoteAddr: victim,
  });
  assert.equal(retry.headers.get("Idempotent-Replayed"), "true");
  assert.deepEqual(await retry.json(), { order: 1 });
  assert.equal(orders, runsBefore, "the victim's order did not run again");
  // Every admitted flood key still replays too.
  const admitted = statuses.get(201)!;
  const again = await router.fetch(post("flood-0"), { remoteAddr: attacker });
  assert.equal(again.headers.get("Idempotent-Replayed"), "true");
  await again.body?.cancel();
  assert.ok(admitted > 100, `${admitted} keys fit`);
});

Deno.test("idempotency: cache() entries in the same 4 MiB store never evict a payment's key", async () => {
  const store = createMemoryCacheStore({ maxBytes: 4 * 1024 * 1024 });
  const router = createRouter();
  let charges = 0;
  router.post("/orders", idempotency({ store }), () => {
    charges++;
    return Response.json({ charge: charges }, { status: 201 });
  });
  const page = new Uint8Array(400 * 1024).fill(97);
  router.get(
    "/pages/:n",
    cache({ store, ttl: 600 }),
    () => new Response(page.slice()),
  );
  const pay = await router.fetch(post("payment-1"), { remoteAddr: victim });
  assert.equal(pay.status, 201);
  await pay.body?.cancel();
  for (let n = 0; n < 40; n++) {
    const response = await router.fetch(
      new Request(`http://localhost/pages/${n}`),
    );
    assert.equal(response.status, 200);
    await response.body?.cancel();
  }
  // The cache still works: the latest pages are kept.
  const hit = await router.fetch(new Request("http://localhost/pages/39"));
  assert.equal(hit.headers.get("X-Cache"), "HIT");
  await hit.body?.cancel();
  const retry = await router.fetch(post("payment-1"), { remoteAddr: victim });
  assert.equal(retry.headers.get("Idempotent-Replayed"), "true");
  assert.deepEqual(await retry.json(), { charge: 1 });
  assert.equal(charges, 1, "charged once");
});

Deno.test("idempotency: a key in flight is not evicted by a flood; its retry gets 409, not a second run", async () => {
  const store = createMemoryCacheStore({ maxBytes: 64 * 1024 });
  const router = createRouter();
  let runs = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  router.post("/orders", idempotency({ store }), async ({ request }) => {
    runs++;
    const body = await request.text();
    if (body.includes("slow")) await held;
    return new Response(`done ${runs}`, { status: 201 });
  });
  const slow = router.fetch(post("slow-key", '{"slow":true}'), {
    remoteAddr: victim,
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const quiet = quietErrors();
  for (let i = 0; i < 1000; i++) {
    const response = await router.fetch(post(`flood-${i}`), {
      remoteAddr: attacker,
    });
    await response.body?.cancel();
  }
  quiet[Symbol.dispose]();
  const runsAfterFlood = runs;
  const retry = await router.fetch(post("slow-key", '{"slow":true}'), {
    remoteAddr: victim,
  });
  assert.equal(retry.status, 409);
  await retry.body?.cancel();
  release();
  assert.equal((await slow).status, 201);
  const replay = await router.fetch(post("slow-key", '{"slow":true}'), {
    remoteAddr: victim,
  });
  assert.equal(replay.headers.get("Idempotent-Replayed"), "true");
  await replay.body?.cancel();
  assert.equal(runs, runsAfterFlood, "the slow order ran once");
});

Deno.test("idempotency: the full store's answer can be the application's (onFull)", async () => {
  const store = createMemoryCacheStore({ maxBytes: 16 * 1024 });
  const router = createRouter();
  router.post(
    "/orders",
    idempotency({
      store,
      onFull: () =>
        new Response("busy, come back later", {
          status: 429,
          headers: { "Retry-After": "30" },
        }),
    }),
    () => new Response("ok", { status: 201 }),
  );
  let refused: Response | undefined;
  for (let i = 0; i < 500 && refused === undefined; i++) {
    const response = await router.fetch(post(`k-${i}`), {
      remoteAddr: attacker,
    });
    if (response.status === 429) refused = response;
    else await response.body?.cancel();
  }
  assert.ok(refused !== undefined, "the store filled up");
  assert.equal(await refused.text(), "busy, come back later");
});
