import { createKvPubSub } from "@fetchkit/toolkit/pubsub";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import assert from "node:assert/strict";
import { pubSubSuite, take } from "./_test_suite.ts";

pubSubSuite({
  name: "kv pub/sub",
  async open(options) {
    // Two databases on one file, as two servers would open it.
    const dir = await Deno.makeTempDir({ prefix: "pubsub-kv-" });
    const one = await Deno.openKv(`${dir}/kv.sqlite`);
    const two = await Deno.openKv(`${dir}/kv.sqlite`);
    const a = createKvPubSub({ client: one, ...options });
    const b = createKvPubSub({ client: two, ...options });
    return {
      a,
      b,
      async done() {
        await a.close();
        await b.close();
        one.close();
        two.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
});

Deno.test("kv pub/sub: an event at the size limit (64,000 bytes of JSON) fits Deno KV", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pubsub-kv-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  const pubsub = createKvPubSub({ client: kv });
  try {
    const subscription = pubsub.subscribe<string>("big");
    await subscription.ready;
    // 63,998 characters and two quotes: ASCII takes as many bytes in KV's
    // V8 format as in UTF-8 (which the limit counts); other text fewer.
    const data = "x".repeat(63_998);
    await pubsub.publish("big", data);
    const [event] = await take(subscription, 1);
    assert.equal(event.data, data);
  } finally {
    await pubsub.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv pub/sub: a closed database is a 503 for publish and for setting up a subscription", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pubsub-kv-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  const pubsub = createKvPubSub({ client: kv, onError: () => {} });
  try {
    kv.close();
    const published = await pubsub.publish("t", 1).catch((error) => error);
    assert.ok(published instanceof StoreUnavailableError, String(published));
    assert.equal(published.status, 503);
    const subscription = pubsub.subscribe("t");
    const failed = await subscription.ready.catch((error) => error);
    assert.ok(failed instanceof StoreUnavailableError, String(failed));
    await assert.rejects(() => subscription.next(), StoreUnavailableError);
  } finally {
    await pubsub.close();
    await Deno.remove(dir, { recursive: true });
  }
});
