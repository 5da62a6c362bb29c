/**
 * Pub/sub inside one process: a log per topic in memory.
 *
 * @module
 */

import { countStoreCall } from "../store/observe.ts";
import {
  type Backend,
  Hub,
  type PubSub,
  type PubSubOptions,
  settingsOf,
  type StoredEvent,
} from "./_hub.ts";

interface Log {
  events: (StoredEvent & { at: number })[];
  /** The sequence number of the newest event. */
  seq: number;
}

/** Every this many appends, topics whose events all expired are removed. */
const SWEEP_EVERY = 1024;

// Store calls as metrics count them (`store_operations_total`). The wait
// for new events (`read`) is no call and is not counted.
const APPEND = { store: "memory", what: "append" };
const HEAD = { store: "memory", what: "head" };
const RANGE = { store: "memory", what: "range" };
const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/**
 * Creates a pub/sub that lives in this process: for one server, tests, and
 * development. Each topic keeps its last `retainCount` events (and none
 * older than `retainMs`), so a subscriber resuming with `since` catches
 * up. Ids are decimal sequence numbers per topic (`"1"`, `"2"`, ...).
 *
 * @example Publish and receive
 * ```ts
 * import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
 *
 * const pubsub = createMemoryPubSub();
 * const subscription = pubsub.subscribe<string>("chat");
 * await subscription.ready;
 * await pubsub.publish("chat", "hello");
 * for await (const event of subscription) {
 *   console.log(event.id, event.data); // "1" "hello"
 *   break;
 * }
 * await pubsub.close();
 * ```
 *
 * @param options Retention, queue bound, event size limit.
 * @returns The pub/sub.
 * @throws {TypeError} When an option is malformed.
 */
export function createMemoryPubSub(options: PubSubOptions = {}): PubSub {
  const settings = settingsOf(options, "createMemoryPubSub()");
  const logs = new Map<string, Log>();
  let appended: (() => void) | undefined;
  let appends = 0;
  // A topic created again continues above every id handed out before, so
  // a `since` from its earlier life never skips its new events.
  let floor = 0;

  function live(log: Log, now: number): Log["events"] {
    const oldest = now - settings.retainMs;
    let drop = 0;
    while (drop < log.events.length && log.events[drop].at < oldest) drop++;
    if (drop > 0) log.events.splice(0, drop);
    return log.events;
  }

  function after(
    topic: string,
    cursor: string | undefined,
    count: number,
  ): StoredEvent[] {
    const log = logs.get(topic);
    if (log === undefined) return [];
    const events = live(log, Date.now());
    const from = cursor === undefined ? 0 : Number(cursor);
    // Sequence numbers are contiguous: the first event after `from` sits
    // at a known offset.
    const first = events.length === 0 ? 0 : Number(events[0].id);
    const start = Math.max(0, from + 1 - first);
    return events.slice(start, start + count).map(({ id, json }) => ({
      id,
      json,
    }));
  }

  function append(topic: string, json: string): string {
    let log = logs.get(topic);
    if (log === undefined) {
      logs.set(topic, log = { events: [], seq: floor });
    }
    const id = String(++log.seq);
    log.events.push({ id, json, at: Date.now() });
    if (log.events.length > settings.retainCount) {
      log.events.splice(0, log.events.length - settings.retainCount);
    }
    if (++appends % SWEEP_EVERY === 0) {
      const now = Date.now();
      for (const [name, other] of logs) {
        if (live(other, now).length === 0) {
          floor = Math.max(floor, other.seq);
          logs.delete(name);
        }
      }
    }
    appended?.();
    return id;
  }

  const backend: Backend = {
    store: "memory",
    start: "0",
    validId: (id) => DECIMAL.test(id),
    compare: (a, b) => Number(a) - Number(b),
    append: (topic, json) =>
      Promise.resolve(countStoreCall(APPEND, () => append(topic, json))),
    head: (topic) =>
      Promise.resolve(countStoreCall(HEAD, () => {
        const log = logs.get(topic);
        return log === undefined ? undefined : String(log.seq);
      })),
    range: (topic, cursor, count) =>
      Promise.resolve(
        countStoreCall(RANGE, () => after(topic, cursor, count)),
      ),
    async read(cursors, signal) {
      while (!signal.aborted) {
        const batches: [string, StoredEvent[]][] = [];
        for (const [topic, cursor] of cursors) {
          const events = after(topic, cursor, 1000);
          if (events.length > 0) batches.push([topic, events]);
        }
        if (batches.length > 0) return batches;
        await new Promise<void>((resolve) => {
          appended = resolve;
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
        appended = undefined;
      }
      return [];
    },
    close() {
      appended?.();
      return Promise.resolve();
    },
  };
  return new Hub(backend, settings, "createMemoryPubSub()");
}
