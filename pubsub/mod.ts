/**
 * Pub/sub across servers: `publish(topic, data)` on one process reaches
 * every `subscribe(topic)` on every process sharing the store, in publish
 * order per topic, and a subscriber that resumes with `since` (an SSE
 * `Last-Event-ID`) gets the events it missed that the store retains.
 *
 * Three stores, one API: {@linkcode createMemoryPubSub} (one process),
 * {@linkcode createRedisPubSub} (Redis Streams) and
 * {@linkcode createKvPubSub} (a log per topic in Deno KV).
 *
 * How delivery works, and what it guarantees:
 * - Each topic is an ordered log in the store. Publishing appends to it
 *   and returns the event's id; one reader per process reads the logs of
 *   the topics its subscribers follow and hands each event to all of
 *   them (1,000 subscribers cost one read per batch, not 1,000).
 * - A subscription gets every event published after it is set up
 *   (`await subscription.ready`; in the same process, `publish()` waits
 *   for subscriptions of its topic that are still being set up).
 * - `subscription.lastId`, once it is ready, is where it stands (before
 *   any event: the topic's newest id, or the store's start). Send it to a
 *   client first: a client that reconnects before its first event then
 *   resumes from it instead of missing what was published in between.
 * - `since` resumes after an id: first the retained events after it, then
 *   the live ones, with none twice and none skipped. Events older than
 *   the retention (`retainCount`, at least 1,000 per topic; `retainMs`,
 *   1 hour) are gone: a subscriber resuming after them gets the oldest
 *   retained onwards. A `since` newer than anything in the store (the
 *   store lost its data, or the id was made up) starts at the newest.
 * - A subscription holds at most `maxQueued` events (1,000) that its
 *   consumer has not taken; past that it is dropped with
 *   {@linkcode SlowSubscriberError} (with `lastId` to resume from), so a
 *   slow client cannot grow the server's memory. Its `signal` aborts
 *   then: pass it to `createEventStreamResponse()` so the stream of a
 *   client that stopped reading ends too.
 * - While the store is down the reader retries with backoff and
 *   subscribers wait, then continue where they were (nothing is lost that
 *   the store kept). `publish()` and setting up a subscription fail with
 *   a `StoreUnavailableError` (503 with `Retry-After` from the router).
 *   Every store call times out after `timeout` (5 s).
 *
 * @example Server-sent events that resume after `Last-Event-ID`
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
 * import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
 *
 * const pubsub = createMemoryPubSub();
 * const router = createRouter();
 * router.post("/messages", async ({ request }) => {
 *   const id = await pubsub.publish("messages", await request.text());
 *   return Response.json({ id });
 * });
 * router.get("/events", async ({ request }) => {
 *   const subscription = pubsub.subscribe("messages", {
 *     since: request.headers.get("Last-Event-ID") ?? undefined,
 *   });
 *   await subscription.ready; // a store outage answers 503 here
 *   return createEventStreamResponse(async function* () {
 *     // Where it starts, so a client that reconnects before its first
 *     // message resumes from there (an event the page need not handle).
 *     const start = subscription.lastId!;
 *     yield { id: start, event: "position", data: start };
 *     for await (const { id, data } of subscription) yield { id, data };
 *   }(), { signal: subscription.signal }); // ends it when it is dropped
 * });
 * const response = await router.fetch(
 *   new Request("http://localhost/messages", { method: "POST", body: "hi" }),
 * );
 * console.log(await response.json()); // { id: "1" }
 * await pubsub.close();
 * ```
 *
 * @module
 */

export {
  type PubSub,
  type PubSubEvent,
  type PubSubOptions,
  SlowSubscriberError,
  type SubscribeOptions,
  type Subscription,
} from "./_hub.ts";
export { createMemoryPubSub } from "./memory.ts";
export {
  createRedisPubSub,
  type RedisPubSubClient,
  type RedisPubSubClusterConnection,
  type RedisPubSubCommandOptions,
  type RedisPubSubConnection,
  type RedisPubSubOptions,
  type RedisPubSubReader,
} from "./redis.ts";
export {
  createKvPubSub,
  type KvPubSubAtomic,
  type KvPubSubClient,
  type KvPubSubKey,
  type KvPubSubOptions,
} from "./kv.ts";
