// The behaviour every pub/sub store shares, run against each of them
// (memory_test.ts, redis_test.ts, kv_test.ts). Portable: no Deno.* API.

import assert from "node:assert/strict";
import {
  type PubSub,
  type PubSubEvent,
  SlowSubscriberError,
  type Subscription,
} from "@fetchkit/toolkit/pubsub";

/** Makes a fresh pub/sub (and a second one on the same store). */
export interface SuiteTarget {
  name: string;
  open(options?: { maxQueued?: number; retainCount?: number }): Promise<{
    a: PubSub;
    b: PubSub;
    done(): Promise<void>;
  }>;
}

/** Takes `count` events from `subscription`, failing after `ms`. */
export async function take<T>(
  subscription: Subscription<T>,
  count: number,
  ms = 10_000,
): Promise<PubSubEvent<T>[]> {
  const events: PubSubEvent<T>[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`only ${events.length} of ${count} events within ${ms} ms`),
        ),
      ms,
    );
  });
  try {
    while (events.length < count) {
      const step = await Promise.race([subscription.next(), timeout]);
      if (step.done) break;
      events.push(step.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return events;
}

let counter = 0;
function topicName(): string {
  return `topic-${Date.now()}-${++counter}`;
}

/** Registers the shared tests for `target`. */
export function pubSubSuite(target: SuiteTarget): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({
      name: `${target.name}: ${name}`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn,
    });

  test("a subscriber gets events published after it is set up, in order", async () => {
    const { a, done } = await target.open();
    try {
      const topic = topicName();
      await a.publish(topic, "before");
      const subscription = a.subscribe<number>(topic);
      await subscription.ready;
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) ids.push(await a.publish(topic, i));
      const events = await take(subscription, 50);
      assert.deepEqual(events.map((e) => e.data), [...Array(50).keys()]);
      assert.deepEqual(events.map((e) => e.id), ids);
      assert.equal(subscription.lastId, ids.at(-1));
      subscription.close();
      assert.deepEqual(await subscription.next(), {
        done: true,
        value: undefined,
      });
    } finally {
      await done();
    }
  });

  test("publish right after subscribe in one process is not missed", async () => {
    const { a, done } = await target.open();
    try {
      const topic = topicName();
      const subscription = a.subscribe(topic);
      await a.publish(topic, { n: 1 });
      assert.deepEqual((await take(subscription, 1))[0].data, { n: 1 });
    } finally {
      await done();
    }
  });

  test("every subscriber of both instances gets every event, per topic", async () => {
    const { a, b, done } = await target.open();
    try {
      const t1 = topicName();
      const t2 = topicName();
      const subs = [
        a.subscribe(t1),
        b.subscribe(t1),
        b.subscribe(t1),
        b.subscribe(t2),
      ];
      await Promise.all(subs.map((s) => s.ready));
      for (let i = 0; i < 20; i++) {
        await a.publish(t1, i);
        await b.publish(t2, 100 + i);
      }
      const [x, y, z, w] = await Promise.all(subs.map((s) => take(s, 20)));
      const expected = [...Array(20).keys()];
      assert.deepEqual(x.map((e) => e.data), expected);
      assert.deepEqual(y.map((e) => e.data), expected);
      assert.deepEqual(z.map((e) => e.data), expected);
      assert.deepEqual(w.map((e) => e.data), expected.map((i) => 100 + i));
      for (const s of subs) s.close();
    } finally {
      await done();
    }
  });

  test("since resumes after an id with exactly the missed events", async () => {
    const { a, b, done } = await target.open();
    try {
      const topic = topicName();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await a.publish(topic, i));
      const subscription = b.subscribe<number>(topic, { since: ids[9] });
      await subscription.ready;
      for (let i = 30; i < 40; i++) ids.push(await a.publish(topic, i));
      const events = await take(subscription, 30);
      assert.deepEqual(
        events.map((e) => e.data),
        [...Array(30).keys()].map((
          i,
        ) => i + 10),
      );
      assert.deepEqual(events.map((e) => e.id), ids.slice(10));
      subscription.close();
    } finally {
      await done();
    }
  });

  test("retention keeps the last retainCount events for since", async () => {
    const { a, done } = await target.open({ retainCount: 100 });
    try {
      const topic = topicName();
      const ids: string[] = [];
      for (let i = 0; i < 400; i++) ids.push(await a.publish(topic, i));
      const subscription = a.subscribe<number>(topic, { since: ids[0] });
      await subscription.ready;
      const first = (await take(subscription, 1))[0].data;
      // At least the last 100 are kept (Redis trims in whole nodes).
      assert.ok(first >= 1 && first <= 300, `first retained ${first}`);
      const rest = await take(subscription, 399 - first);
      assert.equal(rest.at(-1)!.data, 399);
      subscription.close();
    } finally {
      await done();
    }
  });

  test("a since newer than the store starts at the newest event", async () => {
    const { a, done } = await target.open();
    try {
      const topic = topicName();
      const id = await a.publish(topic, "old");
      const future = /-/.test(id) ? "99999999999999-0" : "9000000000000000";
      const subscription = a.subscribe(topic, { since: future });
      await subscription.ready;
      await a.publish(topic, "new");
      assert.deepEqual((await take(subscription, 1)).map((e) => e.data), [
        "new",
      ]);
      subscription.close();
    } finally {
      await done();
    }
  });

  test("before its first event, lastId is where to resume from, even on an empty topic", async () => {
    const { a, b, done } = await target.open();
    try {
      for (const before of [false, true]) {
        const topic = topicName();
        if (before) await a.publish(topic, "old");
        const first = b.subscribe<string>(topic);
        await first.ready;
        assert.ok(first.lastId !== undefined, "a position once ready");
        first.close();
        // A client that left before any event resumes from there.
        await a.publish(topic, "missed");
        const again = b.subscribe<string>(topic, { since: first.lastId });
        assert.deepEqual((await take(again, 1)).map((e) => e.data), [
          "missed",
        ]);
        again.close();
      }
    } finally {
      await done();
    }
  });

  test("a slow subscriber is dropped with an error it can see", async () => {
    const { a, done } = await target.open({ maxQueued: 10 });
    try {
      const topic = topicName();
      const slow = a.subscribe<number>(topic);
      const fast = a.subscribe<number>(topic);
      await Promise.all([slow.ready, fast.ready]);
      for (let i = 0; i < 3; i++) await a.publish(topic, i);
      assert.equal((await take(slow, 1))[0].data, 0);
      // The fast one takes each event as it comes; the slow one none.
      assert.equal((await take(fast, 3)).length, 3);
      for (let i = 3; i < 30; i++) {
        await a.publish(topic, i);
        assert.equal((await take(fast, 1))[0].data, i);
      }
      await assert.rejects(
        () => take(slow, 30),
        (error: unknown) => {
          assert.ok(error instanceof SlowSubscriberError);
          assert.match(error.message, /fell 10 events behind/);
          assert.equal(error.lastId, slow.lastId);
          return true;
        },
      );
      assert.ok(slow.signal.aborted, "its signal tells who serves it");
      assert.ok(slow.signal.reason instanceof SlowSubscriberError);
      // Resuming with lastId gets the rest from the store.
      const resumed = a.subscribe<number>(topic, { since: slow.lastId });
      const rest = await take(resumed, 29);
      assert.deepEqual(
        rest.map((e) => e.data),
        [...Array(29).keys()].map((
          i,
        ) => i + 1),
      );
      resumed.close();
    } finally {
      await done();
    }
  });

  test("next() called again before the last one settled: each gets the next event", async () => {
    const { a, done } = await target.open();
    try {
      const topic = topicName();
      const subscription = a.subscribe<number>(topic);
      await subscription.ready;
      const pending = [subscription.next(), subscription.next()];
      await a.publish(topic, 1);
      await a.publish(topic, 2);
      const steps = await Promise.all(pending);
      assert.deepEqual(steps.map((step) => step.value?.data), [1, 2]);
      subscription.close();
    } finally {
      await done();
    }
  });

  test("bad input: topic, since, data and size are refused with a reason", async () => {
    const { a, done } = await target.open();
    try {
      assert.throws(
        () => a.subscribe(""),
        /topic must be a string of 1 to 256/,
      );
      assert.throws(
        () => a.subscribe("t", { since: "nope\n" }),
        /since must be an event id of this store/,
      );
      await assert.rejects(
        () => a.publish("x".repeat(300), 1),
        /topic must be a string of 1 to 256 characters, got 300/,
      );
      await assert.rejects(
        () => a.publish("t", undefined),
        /data must be JSON-serialisable/,
      );
      await assert.rejects(
        () => a.publish("t", "x".repeat(70_000)),
        /70002 bytes of JSON; the limit is 64000/,
      );
    } finally {
      await done();
    }
  });

  test("a signal ends the subscription; close ends them all", async () => {
    const { a, done } = await target.open();
    try {
      const topic = topicName();
      const controller = new AbortController();
      const one = a.subscribe(topic, { signal: controller.signal });
      const two = a.subscribe(topic);
      await Promise.all([one.ready, two.ready]);
      const pending = one.next();
      controller.abort();
      assert.deepEqual(await pending, { done: true, value: undefined });
      assert.ok(one.signal.aborted);
      assert.equal((one.signal.reason as Error).name, "AbortError");
      const waiting = two.next();
      await a.close();
      assert.deepEqual(await waiting, { done: true, value: undefined });
      await assert.rejects(() => a.publish(topic, 1), /is closed/);
    } finally {
      await done();
    }
  });
}
