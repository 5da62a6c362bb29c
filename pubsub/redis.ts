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

/**
 * A connection as the pub/sub uses it: `npm:redis` (node-redis 5 and
 * later) fits.
 */
export interface RedisPubSubConnection {
  /** Sends one command, such as `["XADD", key, "*", "d", "..."]`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** The client: a connection that can open another one for blocking reads. */
export interface RedisPubSubClient extends RedisPubSubConnection {
  /** A new, not yet connected client with the same options. */
  duplicate(): RedisPubSubReader;
}

/** The connection blocking reads run on. */
export interface RedisPubSubReader extends RedisPubSubConnection {
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
 * - On Redis Cluster one `XREAD` may name keys of one slot only: give a
 *   prefix with a hash tag (`prefix: "{pubsub}:"`) so every topic lives
 *   in the same slot.
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
  const { client, prefix = "pubsub:", blockMs = 10_000 } = options;
  if (
    client === null || typeof client !== "object" ||
    typeof client.sendCommand !== "function" ||
    typeof client.duplicate !== "function"
  ) {
    throw new TypeError(
      `${label}: client must be a Redis client with sendCommand() and duplicate(), such as npm:redis's createClient()`,
    );
  }
  if (!Number.isSafeInteger(blockMs) || blockMs < 1) {
    throw new TypeError(`${label}: blockMs must be a whole number of ms >= 1`);
  }
  const settings = settingsOf(options, label);
  const { timeout } = settings;
  const store = "Redis";
  let reader:
    | Promise<{ connection: RedisPubSubReader; id: string }>
    | undefined;
  let closed = false;

  function call<T>(what: string, args: string[], ms = timeout): Promise<T> {
    return withTimeout(() => client.sendCommand(args) as Promise<T>, ms, {
      store,
      what,
    });
  }

  function openReader(): Promise<
    { connection: RedisPubSubReader; id: string }
  > {
    reader ??= (async () => {
      const connection = client.duplicate();
      // Reported like any failed read; the reader retries.
      connection.on?.("error", (error) => {
        if (!closed) settings.onError(error);
      });
      try {
        await withTimeout(() => connection.connect(), timeout, {
          store,
          what: "connect",
        });
        const id = await withTimeout(
          () => connection.sendCommand(["CLIENT", "ID"]),
          timeout,
          { store, what: "CLIENT ID" },
        );
        return { connection, id: String(id) };
      } catch (error) {
        reader = undefined;
        try {
          connection.destroy();
        } catch {
          // never connected
        }
        throw error;
      }
    })();
    return reader;
  }

  const backend: Backend = {
    store,
    start: "0-0",
    validId: (id) => STREAM_ID.test(id),
    compare,
    async append(topic, json) {
      const id = await call<string>("XADD", [
        "EVAL",
        APPEND,
        "1",
        prefix + topic,
        json,
        String(settings.retainCount),
        String(settings.retainMs),
      ]);
      return String(id);
    },
    async head(topic) {
      const reply = await call<unknown[]>("XREVRANGE", [
        "XREVRANGE",
        prefix + topic,
        "+",
        "-",
        "COUNT",
        "1",
      ]);
      return eventsOf(reply)[0]?.id;
    },
    range(topic, after, count) {
      return call<unknown>("XRANGE", [
        "XRANGE",
        prefix + topic,
        after === undefined ? "-" : `(${after}`,
        "+",
        "COUNT",
        String(count),
      ]).then(eventsOf);
    },
    async read(cursors, signal) {
      const { connection, id } = await openReader();
      if (signal.aborted) return [];
      const keys: string[] = [];
      const ids: string[] = [];
      for (const [topic, cursor] of cursors) {
        keys.push(prefix + topic);
        ids.push(cursor ?? "0-0");
      }
      // A new topic: end this read early so the next one includes it.
      // CLIENT UNBLOCK travels on another connection and can reach Redis
      // before the XREAD it is meant for (then it answers 0): try again
      // a few times while the read is still waiting.
      let settled = false;
      const unblock = async () => {
        for (let attempt = 0; attempt < 20 && !settled; attempt++) {
          const done = await call<number>("CLIENT UNBLOCK", [
            "CLIENT",
            "UNBLOCK",
            id,
          ]).catch(() => 1);
          if (Number(done) === 1) return;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      signal.addEventListener("abort", unblock, { once: true });
      let reply: unknown;
      try {
        reply = await withTimeout(
          () =>
            connection.sendCommand([
              "XREAD",
              "COUNT",
              "1000",
              "BLOCK",
              String(blockMs),
              "STREAMS",
              ...keys,
              ...ids,
            ]),
          blockMs + timeout,
          { store, what: "XREAD" },
        );
      } catch (error) {
        // A read that timed out may still be blocked: start afresh.
        if (!closed) {
          reader = undefined;
          try {
            connection.destroy();
          } catch {
            // already closed
          }
        }
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
        batches.push([String(key).slice(prefix.length), eventsOf(entries)]);
      }
      return batches;
    },
    async close() {
      closed = true;
      const opened = reader;
      reader = undefined;
      if (opened === undefined) return;
      try {
        (await opened).connection.destroy();
      } catch {
        // never connected
      }
    },
  };
  return new Hub(backend, settings, label);
}
