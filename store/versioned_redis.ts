/**
 * The versioned store on Redis: each value is stored as its version (16
 * characters) followed by its bytes, with Redis' own expiry (`PX`); a
 * conditional write or delete is one Lua script.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { checkTimeout, withTimeout } from "./timeout.ts";
import { replicaWaiter, scriptRunner } from "./redis_client.ts";
import {
  checkSet,
  randomVersion,
  type VersionedStore,
  type VersionedValue,
} from "./versioned.ts";

/** Keys and arguments of `EVAL`/`EVALSHA`, as `npm:redis` takes them. */
export interface VersionedRedisEvalOptions {
  /** `KEYS` of the script. */
  keys: string[];
  /** `ARGV` of the script. */
  arguments: (string | Buffer)[];
}

/**
 * The commands the store uses. A connected `npm:redis` client or cluster
 * client (`createCluster()`) fits: the store asks it for binary replies
 * with `withTypeMapping`. Another client
 * must answer `get` with the bytes (a `Uint8Array`), or `null`.
 */
export interface VersionedRedisClient {
  /** `GET key`: the bytes, or `null`. */
  get(key: string): Promise<unknown>;
  /** `SET key value PX ms`. */
  set(
    key: string,
    value: string | Buffer,
    options: { expiration: { type: "PX"; value: number } },
  ): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  /** `EVAL script numkeys keys... args...`. */
  eval(script: string, options: VersionedRedisEvalOptions): Promise<unknown>;
  /** `EVALSHA`: optional; with it a script's text is sent once. */
  evalSha?(sha1: string, options: VersionedRedisEvalOptions): Promise<unknown>;
  /** node-redis: a view of the client with other reply types. */
  withTypeMapping?(mapping: Record<number, unknown>): VersionedRedisClient;
}

/** Options of {@linkcode createRedisVersionedStore}. */
export interface RedisVersionedStoreOptions {
  /** A connected client. */
  client: VersionedRedisClient;
  /** Prefix of every key: entries live under `<prefix><key>`. */
  prefix: string;
  /**
   * The largest value, in bytes (Redis itself takes up to 512 MiB).
   *
   * @default {8388608} (8 MiB)
   */
  maxValueBytes?: number;
  /**
   * How a `durable` write (an idempotency claim or answer) is confirmed:
   * `"replica"` (default for a cluster client) once a replica has it
   * (`WAIT 1 <replicaTimeout>` to the master that owns the key), else a
   * `StoreUnavailableError`; `"none"` (default for one node) once the
   * master has it; `"replica-aof"` as `"replica"`, with `WAITAOF 0 1`
   * (the replica's append-only file has it too; Redis 7.2 and later).
   * Other writes are never waited for.
   */
  durability?: "replica" | "replica-aof" | "none";
  /** Milliseconds a replica has to confirm. Default 1000. */
  replicaTimeout?: number;
  /**
   * Milliseconds one call may take before it fails with a
   * `StoreUnavailableError` (a `503`): node-redis queues commands while
   * disconnected, which would otherwise hold requests. `Infinity` waits.
   *
   * @default {5000}
   */
  timeout?: number;
}

const VERSION_LENGTH = 16;

// Write only when the entry's version (its first 16 characters) is
// ARGV[1], or, when ARGV[1] is "", when there is no entry (GETRANGE of a
// missing key is ""). ARGV: expected version, value, ttl in ms.
const SET_SCRIPT = `
if redis.call("GETRANGE", KEYS[1], 0, 15) ~= ARGV[1] then return 0 end
redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[3])
return 1
`;

// Delete only when the entry's version is ARGV[1].
const DELETE_SCRIPT = `
if redis.call("GETRANGE", KEYS[1], 0, 15) ~= ARGV[1] then return 0 end
redis.call("DEL", KEYS[1])
return 1
`;

/** RESP3's blob string type, for node-redis' `withTypeMapping`. */
const BLOB_STRING = 36;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A versioned store on Redis under `<prefix><key>`: one `GET` per read,
 * one `SET` or one script per write. Versions are random, made by the
 * writer. Every call is limited to `timeout` ms; an outage (refused or
 * closed connection, no answer in time) is a `StoreUnavailableError`.
 * Every command and script touches one key, so on Redis Cluster entries
 * spread over the masters with the same compare-and-set.
 */
export function createRedisVersionedStore(
  options: RedisVersionedStoreOptions,
): VersionedStore {
  const { prefix, maxValueBytes = 8 * 1024 * 1024 } = options;
  let client = options.client;
  const timeout = checkTimeout(options.timeout, "createRedisCacheStore()");
  if (
    client === null || typeof client !== "object" ||
    typeof client.eval !== "function" || typeof client.get !== "function"
  ) {
    throw new TypeError(
      "a Redis store needs `client`: a connected Redis client with get, set, del and eval (npm:redis)",
    );
  }
  const replica = replicaWaiter(client, options, "createRedisCacheStore()");
  if (typeof client.withTypeMapping === "function") {
    client = client.withTypeMapping({ [BLOB_STRING]: Buffer });
  }
  const run = scriptRunner(client);

  /** One call: limited in time, outages mapped. */
  function call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withTimeout(operation, timeout, { store: "Redis", what });
  }

  const store: VersionedStore = {
    name: "Redis",
    maxValueBytes,
    async get(key): Promise<VersionedValue | undefined> {
      const reply = await call("GET", () => client.get(prefix + key));
      if (reply === null || reply === undefined) return undefined;
      const bytes = reply instanceof Uint8Array
        ? reply
        : typeof reply === "string"
        ? encoder.encode(reply)
        : undefined;
      if (bytes === undefined || bytes.byteLength < VERSION_LENGTH) {
        return undefined;
      }
      return {
        version: decoder.decode(bytes.subarray(0, VERSION_LENGTH)),
        value: bytes.subarray(VERSION_LENGTH),
      };
    },
    async set(key, value, options) {
      const ttl = checkSet(store, value, options);
      const version = randomVersion();
      const stored = new Uint8Array(VERSION_LENGTH + value.byteLength);
      stored.set(encoder.encode(version));
      stored.set(value, VERSION_LENGTH);
      const expected = options.ifVersion;
      if (expected === undefined) {
        await call("SET", () =>
          client.set(prefix + key, asBuffer(stored), {
            expiration: { type: "PX", value: ttl },
          }));
        return version;
      }
      const reply = await call("compare-and-set", () =>
        run(SET_SCRIPT, {
          keys: [prefix + key],
          arguments: [expected ?? "", asBuffer(stored), String(ttl)],
        }));
      if (Number(reply) !== 1) return undefined;
      if (options.durable && replica !== undefined) {
        try {
          await call("confirm write", () => replica(prefix + key, "write"));
        } catch (error) {
          // A new entry no replica has: taken back, so that a retry finds
          // the key free rather than held by a claim that was refused.
          if (expected === null) {
            await call("take back", () =>
              run(DELETE_SCRIPT, {
                keys: [prefix + key],
                arguments: [version],
              })).catch(() => {});
          }
          throw error;
        }
      }
      return version;
    },
    async delete(key, options) {
      if (options?.ifVersion === undefined) {
        await call("DEL", () => client.del(prefix + key));
        return true;
      }
      const ifVersion = options.ifVersion;
      const reply = await call(
        "compare-and-delete",
        () =>
          run(DELETE_SCRIPT, { keys: [prefix + key], arguments: [ifVersion] }),
      );
      return Number(reply) === 1;
    },
  };
  return store;
}
