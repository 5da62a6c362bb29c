/**
 * Pub/sub on Deno KV: a log per topic under gapless sequence numbers,
 * appended by compare-and-set on the topic's head, read by polling the
 * heads (kv.watch does not see other processes' writes to a local file).
 *
 * @module
 */

import {
  type Backend,
  Hub,
  type PubSub,
  type PubSubOptions,
  settingsOf,
  type StoredEvent,
} from "./_hub.ts";
import { StoreUnavailableError, withTimeout } from "../store/mod.ts";
import { backoff, budgetOf, elapsed, whileLocked } from "../store/retry.ts";

/** A key as the pub/sub writes it: strings and numbers. */
export type KvPubSubKey = readonly (string | number)[];

/**
 * The part of a Deno KV database the pub/sub uses: Deno's `Deno.Kv`
 * (`await Deno.openKv()`), or on Node and Bun the `Kv` of the npm package
 * `@deno/kv`, which has the same API.
 */
export interface KvPubSubClient {
  /** Reads one key. */
  get<T = unknown>(
    key: KvPubSubKey,
  ): Promise<{ value: T | null; versionstamp: string | null }>;
  /** Reads up to 10 keys. */
  getMany<T extends readonly unknown[]>(
    keys: readonly KvPubSubKey[],
  ): Promise<{ value: unknown; versionstamp: string | null }[]>;
  /** Lists keys under a prefix, from `start`. */
  list<T = unknown>(
    selector: { prefix: KvPubSubKey; start?: KvPubSubKey },
    options?: { limit?: number },
  ): AsyncIterable<{ key: readonly unknown[]; value: T }>;
  /** Starts an atomic operation. */
  atomic(): KvPubSubAtomic;
}

/** The atomic operation of a {@linkcode KvPubSubClient}. */
export interface KvPubSubAtomic {
  /** Fails the commit unless `key` is at `versionstamp` (`null`: absent). */
  check(
    check: { key: KvPubSubKey; versionstamp: string | null },
  ): KvPubSubAtomic;
  /** Writes `key`, to expire after `expireIn` milliseconds. */
  set(
    key: KvPubSubKey,
    value: unknown,
    options?: { expireIn?: number },
  ): KvPubSubAtomic;
  /** Deletes `key`. */
  delete(key: KvPubSubKey): KvPubSubAtomic;
  /** Applies the operation if every check holds. */
  commit(): Promise<{ ok: true } | { ok: false }>;
}

/** Options of {@linkcode createKvPubSub}. */
export interface KvPubSubOptions extends PubSubOptions {
  /** An open database, shared by the processes that exchange events. */
  client: KvPubSubClient;
  /** First part of every key. Default `"pubsub"`. */
  prefix?: string;
  /**
   * How often the heads of followed topics are read for events published
   * by other processes, in ms. Default 50. (A publish in this process is
   * seen at once.)
   */
  pollMs?: number;
}

interface Stored {
  /** Publish time, ms. */
  t: number;
  /** The JSON. */
  d: string;
}

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
/** Deno KV's getMany() takes at most 10 keys. */
const GET_MANY = 10;

/**
 * Creates a pub/sub on Deno KV, shared by every process that opens the same
 * database (a local file, or a KV Connect URL).
 *
 * - Each topic is a log: events under `[prefix, topic, "e", n]` with a
 *   gapless sequence number `n`, and the newest `n` under
 *   `[prefix, topic, "h"]`. `publish()` is one atomic operation that
 *   checks the head, writes head and event, and deletes the event
 *   `retainCount` back, so ids are ordered and none is ever skipped;
 *   concurrent publishers retry with jittered backoff for up to 2 s. Ids
 *   are decimal numbers; a topic starts at the time in µs, so a topic
 *   that expired and starts again continues above its old ids.
 * - Entries expire after `retainMs` (`expireIn`, checked on read too).
 * - Each process polls the heads of the topics its subscribers follow
 *   every `pollMs` (50 ms) in one `getMany` per 10 topics; a publish in
 *   this process wakes its reader at once. (`kv.watch()` does not see
 *   other processes' writes to a local file.) On a remote database each
 *   poll is a read, 20 a second per process while anyone subscribes:
 *   raise `pollMs` where reads cost.
 * - An event's JSON is at most 64,000 bytes (Deno KV holds 64 KiB per
 *   value).
 *
 * On Node and Bun pass a database from the npm package `@deno/kv`.
 *
 * @example
 * ```ts
 * import { createKvPubSub } from "@fetchkit/toolkit/pubsub";
 *
 * const kv = await Deno.openKv(":memory:");
 * const pubsub = createKvPubSub({ client: kv });
 * const subscription = pubsub.subscribe<{ text: string }>("chat");
 * await subscription.ready;
 * await pubsub.publish("chat", { text: "hello" });
 * for await (const { data } of subscription) {
 *   console.log(data.text); // "hello"
 *   break;
 * }
 * await pubsub.close();
 * kv.close();
 * ```
 *
 * @param options The database, key prefix, poll interval, retention and
 * limits.
 * @returns The pub/sub; `close()` leaves the database open.
 * @throws {TypeError} When an option is malformed.
 */
export function createKvPubSub(options: KvPubSubOptions): PubSub {
  const label = "createKvPubSub()";
  const { client: kv, prefix = "pubsub", pollMs = 50 } = options;
  if (
    kv === null || typeof kv !== "object" || typeof kv.atomic !== "function" ||
    typeof kv.getMany !== "function"
  ) {
    throw new TypeError(
      `${label}: client must be a Deno KV database (await Deno.openKv(), or openKv() from npm:@deno/kv)`,
    );
  }
  if (!(pollMs >= 1) || !Number.isFinite(pollMs)) {
    throw new TypeError(`${label}: pollMs must be a number of ms >= 1`);
  }
  const settings = settingsOf(options, label);
  const store = "Deno KV";
  const { timeout, retainMs, retainCount } = settings;
  const headKey = (topic: string): KvPubSubKey => [prefix, topic, "h"];
  const eventKey = (
    topic: string,
    n: number,
  ): KvPubSubKey => [prefix, topic, "e", n];

  function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    return withTimeout(() => whileLocked(run), timeout, { store, what });
  }

  async function range(
    topic: string,
    after: string | undefined,
    count: number,
  ): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    const oldest = Date.now() - retainMs;
    const selector = after === undefined ? { prefix: [prefix, topic, "e"] } : {
      prefix: [prefix, topic, "e"],
      start: eventKey(topic, Number(after) + 1),
    };
    await call("list", async () => {
      events.length = 0;
      for await (
        const entry of kv.list<Stored>(selector, { limit: count })
      ) {
        // expireIn is lazy: an expired entry can still be listed.
        if (entry.value.t < oldest) continue;
        events.push({ id: String(entry.key[3]), json: entry.value.d });
      }
    });
    return events;
  }

  const backend: Backend = {
    store,
    polls: true,
    start: "0",
    validId: (id) => DECIMAL.test(id),
    compare: (a, b) => Number(a) - Number(b),
    async append(topic, json) {
      const budget = budgetOf();
      for (let attempt = 1;; attempt++) {
        const head = await call("get", () => kv.get<number>(headKey(topic)));
        const n = head.value === null ? Date.now() * 1000 : head.value + 1;
        const operation = kv.atomic()
          .check({ key: headKey(topic), versionstamp: head.versionstamp })
          .set(headKey(topic), n, { expireIn: retainMs })
          .set(eventKey(topic, n), { t: Date.now(), d: json } as Stored, {
            expireIn: retainMs,
          });
        if (head.value !== null) {
          operation.delete(eventKey(topic, n - retainCount));
        }
        const result = await call("commit", () => operation.commit());
        if (result.ok) return String(n);
        if (!await backoff(attempt, budget)) {
          throw new StoreUnavailableError(
            store,
            `publish to "${topic}" lost the race for the topic's head ${attempt} times in ${
              elapsed(budget)
            } ms (retry budget ${budget.ms} ms)`,
          );
        }
      }
    },
    async head(topic) {
      const head = await call("get", () => kv.get<number>(headKey(topic)));
      return head.value === null ? undefined : String(head.value);
    },
    range,
    async read(cursors, signal) {
      const topics = [...cursors.keys()];
      while (!signal.aborted) {
        const changed: string[] = [];
        for (let i = 0; i < topics.length; i += GET_MANY) {
          const chunk = topics.slice(i, i + GET_MANY);
          const heads = await call(
            "getMany",
            () => kv.getMany(chunk.map(headKey)),
          );
          heads.forEach((head, j) => {
            if (head.value === null) return;
            const cursor = cursors.get(chunk[j]);
            if (
              cursor === undefined || (head.value as number) > Number(cursor)
            ) {
              changed.push(chunk[j]);
            }
          });
        }
        if (changed.length > 0) {
          const batches: [string, StoredEvent[]][] = [];
          for (const topic of changed) {
            batches.push([topic, await range(topic, cursors.get(topic), 1000)]);
          }
          return batches;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pollMs);
          function done() {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            resolve();
          }
          signal.addEventListener("abort", done);
        });
      }
      return [];
    },
    close: () => Promise.resolve(),
  };
  return new Hub(backend, settings, label);
}
