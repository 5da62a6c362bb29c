/**
 * Pub/sub on Redis Streams: a stream per topic, XADD with trimming, and
 * one blocking XREAD per process on a connection of its own.
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
import { withTimeout } from "../store/mod.ts";
import {
  commandSender,
  duplicateForBlocking,
  hashSlot,
  isRedisCluster,
  nodeFor,
  spreadTags,
} from "../store/redis_client.ts";

/** Options of one command: node-redis' own timeout for it, in ms. */
export interface RedisPubSubCommandOptions {
  /** Overrides the client's command timeout (5 s by default). */
  timeout?: number;
}

/**
 * A connection as the pub/sub uses it: `npm:redis` (node-redis 5 and
 * later) `createClient()` fits.
 */
export interface RedisPubSubConnection {
  /** Sends one command, such as `["XADD", key, "*", "d", "..."]`. */
  sendCommand(
    args: string[],
    options?: RedisPubSubCommandOptions,
  ): Promise<unknown>;
}

/** A cluster client (`createCluster()`): commands routed by their first key. */
export interface RedisPubSubClusterConnection {
  /** Sends one command to the node serving `firstKey`'s slot. */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: RedisPubSubCommandOptions,
  ): Promise<unknown>;
  /** The master of a slot: what tells a cluster client from a single one. */
  getSlotMaster(slot: number): unknown;
}

/**
 * The client: a connected node-redis client or cluster client that can
 * open another like itself for blocking reads.
 */
export type RedisPubSubClient =
  & (RedisPubSubConnection | RedisPubSubClusterConnection)
  & {
    /**
     * A new, not yet connected client with the same options (and, for a
     * cluster client, `overrides`).
     */
    duplicate(overrides?: Record<string, unknown>): RedisPubSubReader;
  };

/** The connection blocking reads run on. */
export interface RedisPubSubReader {
  /** Connects. */
  connect(): Promise<unknown>;
  /** Closes at once. */
  destroy(): void;
  /**
   * Adds an event listener: node-redis emits `"error"` when the
   * connection drops, which ends the process when nobody listens.
   */
  on?(event: "error", listener: (error: unknown) => void): unknown;
}

/** Options of {@linkcode createRedisPubSub}. */
export interface RedisPubSubOptions extends PubSubOptions {
  /** A connected client; it also opens one connection for reading. */
  client: RedisPubSubClient;
  /** Prefix of every stream key: `<prefix><topic>`. Default `"pubsub:"`. */
  prefix?: string;
  /**
   * How long one blocking read waits before it is sent again, in ms.
   * Default 10,000.
   */
  blockMs?: number;
  /**
   * On Redis Cluster: into how many groups of one hash slot topics are
   * spread (each topic's stream is `<prefix>{<tag>}<topic>`, the tag
   * chosen by the topic's name among `shards` tags spread evenly over the
   * slots). Each process reads each group it follows with one blocking
   * read on a connection of its own, so this bounds its connections.
   * Ignored on a single node. Default 16.
   */
  shards?: number;
}

// Appends and trims in one round trip: MAXLEN keeps at least retainCount
// entries (whole radix-tree nodes go, so a few more stay), MINID drops
// what is older than retainMs by the server's clock (ids are its ms), and
// the key expires when nothing was published for retainMs.
// KEYS: stream. ARGV: json, retainCount, retainMs.
const APPEND = `
local id = redis.call("XADD", KEYS[1], "MAXLEN", "~", ARGV[2], "*", "d", ARGV[1])
local ms = tonumber(string.match(id, "^(%d+)"))
redis.call("XTRIM", KEYS[1], "MINID", "~", tostring(ms - tonumber(ARGV[3])))
redis.call("PEXPIRE", KEYS[1], ARGV[3])
return id
`;

const STREAM_ID = /^(0|[1-9][0-9]{0,15})-(0|[1-9][0-9]{0,15})$/;

function parts(id: string): [number, number] {
  const dash = id.indexOf("-");
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

function compare(a: string, b: string): number {
  const [am, as] = parts(a);
  const [bm, bs] = parts(b);
  return am - bm || as - bs;
}

/** `[[id, [field, value, ...]], ...]` as events. */
function eventsOf(entries: unknown): StoredEvent[] {
  const events: StoredEvent[] = [];
  if (!Array.isArray(entries)) return events;
  for (const entry of entries) {
    const [id, fields] = entry as [string, string[]];
    const at = fields.indexOf("d");
    if (at >= 0 && at % 2 === 0) events.push({ id, json: fields[at + 1] });
  }
  return events;
}

/**
 * Creates a pub/sub on Redis Streams: each topic is a stream
 * (`<prefix><topic>`), so every process sharing the Redis server receives
 * every event, in order, and a subscriber resuming with `since` (an SSE
 * `Last-Event-ID`) reads what it missed from the stream.
 *
 * - `publish()`: one `EVAL` that runs `XADD ... MAXLEN ~ retainCount`,
 *   `XTRIM MINID ~` (now - `retainMs`) and `PEXPIRE`. Ids are Redis
 *   stream ids (`"1700000000000-0"`).
 * - Each process opens one more connection (`client.duplicate()`) and
 *   runs one blocking `XREAD` over every topic its subscribers follow;
 *   a new topic interrupts it with `CLIENT UNBLOCK`. So 1,000 subscribers
 *   on one server cost one read per batch of events.
 * - Every command has a timeout (`timeout`, 5 s; a blocking read gets
 *   `blockMs` on top); an outage is a `StoreUnavailableError` (503).
 * - On Redis Cluster (a node-redis `createCluster()` client as `client`)
 *   one `XREAD` may only name keys of one hash slot, so each topic's
 *   stream is `<prefix>{<tag>}<topic>`, its tag one of `shards` (16) tags
 *   spread evenly over the slots, chosen by the topic's name: topics
 *   spread over the masters, and each process runs one blocking `XREAD`
 *   per tag it follows, on a connection of its own to the node serving
 *   that slot (`CLIENT UNBLOCK` goes to that node). Events of one topic
 *   stay in one stream: in order and gapless for every subscriber, and
 *   `since` resumes as on one node. After a failover the new master may
 *   lack the last events its old master acknowledged but had not yet
 *   replicated (Redis replicates asynchronously); a subscriber that
 *   already received them keeps its place after them.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { createRedisPubSub } from "@fetchkit/toolkit/pubsub";
 *
 * const client = createClient({
 *   url: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
 * });
 * const pubsub = createRedisPubSub({ client });
 * // With a redis-server running:
 * // await client.connect();
 * // const subscription = pubsub.subscribe("chat");
 * // await subscription.ready;
 * // await pubsub.publish("chat", { text: "hello" });
 * // for await (const { id, data } of subscription) console.log(id, data);
 * ```
 *
 * @param options The connected client, key prefix, retention and limits.
 * @returns The pub/sub; `close()` ends its reading connection, not the client.
 * @throws {TypeError} When an option is malformed.
 */
export function createRedisPubSub(options: RedisPubSubOptions): PubSub {
  const label = "createRedisPubSub()";
  const { client, prefix = "pubsub:", blockMs = 10_000, shards = 16 } = options;
  if (
    client === null || typeof client !== "object" ||
    typeof client.sendCommand !== "function" ||
    typeof client.duplicate !== "function"
  ) {
    throw new TypeError(
      `${label}: client must be a Redis client with sendCommand() and duplicate(), such as npm:redis's createClient() or createCluster()`,
    );
  }
  if (!Number.isSafeInteger(blockMs) || blockMs < 1) {
    throw new TypeError(`${label}: blockMs must be a whole number of ms >= 1`);
  }
  if (!Number.isSafeInteger(shards) || shards < 1 || shards > 1024) {
    throw new TypeError(
      `${label}: shards must be a whole number from 1 to 1024, got ${shards}`,
    );
  }
  const settings = settingsOf(options, label);
  const { timeout } = settings;
  const store = "Redis";
  const cluster = isRedisCluster(client);
  const send = commandSender(client);
  const nodeOf = nodeFor(client);
  // On a cluster every topic's stream carries one of `shards` hash tags,
  // so that one XREAD reads all the followed topics of a tag (one slot).
  const tags = cluster ? spreadTags(shards) : [];
  const keyOf = (topic: string) =>
    cluster
      ? `${prefix}{${tags[hashSlot(topic) % shards]}}${topic}`
      : prefix + topic;
  /** The topic of a stream key. */
  const topicOf = (key: string) =>
    cluster
      ? key.slice(key.indexOf("}", prefix.length) + 1)
      : key.slice(prefix.length);
  /** The group a topic is read in: its slot on a cluster, else one. */
  const groupOf = (key: string) => cluster ? hashSlot(key) : 0;

  /** One connection for blocking reads, per group. */
  interface Reader {
    connection: RedisPubSubReader;
    node: ReturnType<typeof duplicateForBlocking>["node"];
  }
  const readers = new Map<number, Promise<Reader>>();
  let closed = false;

  function call<T>(
    what: string,
    key: string | undefined,
    args: string[],
  ): Promise<T> {
    return withTimeout(() => send(key, args) as Promise<T>, timeout, {
      store,
      what,
    });
  }

  function openReader(group: number): Promise<Reader> {
    let reader = readers.get(group);
    if (reader !== undefined) return reader;
    reader = (async () => {
      const opened = duplicateForBlocking(
        client as Parameters<typeof duplicateForBlocking>[0],
      );
      const connection = opened.connection as RedisPubSubReader;
      // Reported like any failed read; the reader retries.
      connection.on?.("error", (error) => {
        if (!closed) settings.onError(error);
      });
      try {
        await withTimeout(() => connection.connect(), timeout, {
          store,
          what: "connect",
        });
        return { connection, node: opened.node };
      } catch (error) {
        readers.delete(group);
        try {
          connection.destroy();
        } catch {
          // never connected
        }
        throw error;
      }
    })();
    readers.set(group, reader);
    return reader;
  }

  function dropReader(group: number, reader: Reader): void {
    if (closed) return;
    readers.delete(group);
    try {
      reader.connection.destroy();
    } catch {
      // already closed
    }
  }

  /**
   * One blocking XREAD of `entries` (keys of one group) on that group's
   * connection; `[]` when `signal` ended it early.
   */
  async function readGroup(
    group: number,
    entries: [string, string][],
    signal: AbortSignal,
  ): Promise<[string, StoredEvent[]][]> {
    const reader = await openReader(group);
    if (signal.aborted) return [];
    const keys = entries.map(([key]) => key);
    let node: Awaited<ReturnType<Reader["node"]>>;
    try {
      node = await withTimeout(() => reader.node(keys[0]), timeout, {
        store,
        what: "connect",
      });
    } catch (error) {
      dropReader(group, reader);
      throw error;
    }
    if (signal.aborted) return [];
    const ids = entries.map(([, id]) => id);
    // The connection's id, asked on the same connection right before the
    // read (so on a cluster of the node that will block, even after a
    // failover): CLIENT UNBLOCK, sent on the shared client to the node of
    // the same key, ends the read early when a topic is added.
    const [idReply, read] = [
      node.sendCommand(["CLIENT", "ID"], { timeout }),
      node.sendCommand([
        "XREAD",
        "COUNT",
        "1000",
        "BLOCK",
        String(blockMs),
        "STREAMS",
        ...keys,
        ...ids,
      ], { timeout: blockMs + timeout }),
    ];
    idReply.catch(() => {});
    read.catch(() => {}); // awaited below, unless the time limit came first
    let settled = false;
    // CLIENT UNBLOCK can reach Redis before the XREAD it is meant for
    // (then it answers 0): try again a few times while the read waits.
    const unblock = async () => {
      const id = String(await idReply.catch(() => ""));
      if (id === "") return;
      for (let attempt = 0; attempt < 20 && !settled; attempt++) {
        const done = await withTimeout(
          async () =>
            await (await nodeOf(keys[0])).sendCommand([
              "CLIENT",
              "UNBLOCK",
              id,
            ]),
          timeout,
          { store, what: "CLIENT UNBLOCK" },
        ).catch(() => 1);
        if (Number(done) === 1) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    signal.addEventListener("abort", unblock, { once: true });
    let reply: unknown;
    try {
      reply = await withTimeout(() => read, blockMs + timeout, {
        store,
        what: "XREAD",
      });
    } catch (error) {
      // A read that timed out may still be blocked: start afresh.
      dropReader(group, reader);
      throw error;
    } finally {
      settled = true;
      signal.removeEventListener("abort", unblock);
    }
    // RESP2 gives [[key, entries], ...]; node-redis may give a map or an
    // object keyed by stream; null when the wait ended with nothing.
    const pairs: Iterable<[unknown, unknown]> = reply == null
      ? []
      : Array.isArray(reply) || reply instanceof Map
      ? reply as Iterable<[unknown, unknown]>
      : Object.entries(reply);
    const batches: [string, StoredEvent[]][] = [];
    for (const [key, entries] of pairs) {
      batches.push([topicOf(String(key)), eventsOf(entries)]);
    }
    return batches;
  }

  const backend: Backend = {
    store,
    start: "0-0",
    validId: (id) => STREAM_ID.test(id),
    compare,
    async append(topic, json) {
      const key = keyOf(topic);
      const id = await call<string>("XADD", key, [
        "EVAL",
        APPEND,
        "1",
        key,
        json,
        String(settings.retainCount),
        String(settings.retainMs),
      ]);
      return String(id);
    },
    async head(topic) {
      const key = keyOf(topic);
      const reply = await call<unknown[]>("XREVRANGE", key, [
        "XREVRANGE",
        key,
        "+",
        "-",
        "COUNT",
        "1",
      ]);
      return eventsOf(reply)[0]?.id;
    },
    range(topic, after, count) {
      const key = keyOf(topic);
      return call<unknown>("XRANGE", key, [
        "XRANGE",
        key,
        after === undefined ? "-" : `(${after}`,
        "+",
        "COUNT",
        String(count),
      ]).then(eventsOf);
    },
    async read(cursors, signal) {
      // One XREAD per group of one slot (one in all on a single node),
      // side by side; the first to return ends the others, and what they
      // returned meanwhile is kept.
      const groups = new Map<number, [string, string][]>();
      for (const [topic, cursor] of cursors) {
        const key = keyOf(topic);
        const group = groupOf(key);
        let entries = groups.get(group);
        if (entries === undefined) groups.set(group, entries = []);
        entries.push([key, cursor ?? "0-0"]);
      }
      if (groups.size === 1) {
        const [[group, entries]] = groups;
        return await readGroup(group, entries, signal);
      }
      const done = new AbortController();
      const end = () => done.abort();
      signal.addEventListener("abort", end, { once: true });
      try {
        const results = await Promise.allSettled(
          [...groups].map(([group, entries]) =>
            readGroup(group, entries, done.signal).then(
              (batches) => {
                if (batches.length > 0) done.abort();
                return batches;
              },
              (error) => {
                done.abort();
                throw error;
              },
            )
          ),
        );
        const batches: [string, StoredEvent[]][] = [];
        for (const result of results) {
          if (result.status === "fulfilled") batches.push(...result.value);
        }
        const failed = results.find((result) => result.status === "rejected");
        if (batches.length === 0 && failed !== undefined) {
          throw (failed as PromiseRejectedResult).reason;
        }
        return batches;
      } finally {
        signal.removeEventListener("abort", end);
      }
    },
    async close() {
      closed = true;
      const opened = [...readers.values()];
      readers.clear();
      for (const reader of opened) {
        try {
          (await reader).connection.destroy();
        } catch {
          // never connected
        }
      }
    },
  };
  return new Hub(backend, settings, label);
}
