/**
 * Session storage on Redis, for applications that run on several machines
 * and already run Redis.
 *
 * @module
 */

import { checkTimeout, withTimeout } from "../store/timeout.ts";
import {
  isRedisCluster,
  replicaWaiter,
  sameSlot,
  type ScriptClient,
  scriptRunner,
} from "../store/redis_client.ts";
import {
  createIdSessionStorage,
  type SessionStore,
  type UserIndex,
  type UserIndexEntry,
  userIndexOptions,
} from "./_id_storage.ts";
import type { SessionCookieOptions, UserSessionStorage } from "./storage.ts";

export type { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type {
  DestroyUserSessionsOptions,
  SessionCookieOptions,
  SessionStorage,
  SetUserOptions,
  UserSession,
  UserSessionStorage,
} from "./storage.ts";

/** Options of a Redis `SET`, as `npm:redis` (node-redis 5 and later) takes them. */
export interface RedisSetOptions {
  /** Absolute expiry time in milliseconds (`PXAT`). */
  expiration: { type: "PXAT"; value: number };
  /** `NX`: set only if the key does not exist. */
  condition?: "NX";
}

/**
 * The commands the storage uses: a connected `npm:redis` client or cluster
 * client (`createCluster()`) fits, and so does any client (or adapter)
 * with the same `get`/`set`/`del` shape.
 */
export interface RedisSessionClient {
  /** `GET key`: the value, or `null`. */
  get(key: string): Promise<string | null>;
  /** `SET key value PXAT ms [NX]`: `null` when `NX` stopped it. */
  set(key: string, value: string, options: RedisSetOptions): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  /**
   * `EVAL script numkeys keys... args...`. Optional: with it, saves are
   * atomic compare-and-set; without it, see the note on concurrency.
   */
  eval?(
    script: string,
    options: { keys: string[]; arguments: string[] },
  ): Promise<unknown>;
}

// Compare-and-set in one step: write only when the loaded entry still holds
// the text this request read (or, for a new id, when the key is free).
// Only real keys are declared (an empty placeholder would be a key too, of
// slot 0: CROSSSLOT on a cluster). KEYS[1]: the key to write; then the
// loaded key when it is another one (a new id, ARGV[4] = "1"); then a key
// to delete, if any. ARGV: the text read ("" for a new session), the new
// text, the expiry (PXAT), "1" when KEYS[2] is the loaded key.
const WRITE_SCRIPT = `
local moved = ARGV[4] == "1"
if ARGV[1] == "" or moved then
  if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
end
if ARGV[1] ~= "" and redis.call("GET", moved and KEYS[2] or KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call("SET", KEYS[1], ARGV[2], "PXAT", ARGV[3])
local drop = KEYS[moved and 3 or 2]
if drop then redis.call("DEL", drop) end
return 1
`;

// Delete only when the entry still holds the text read. KEYS[1]: the key.
// ARGV[1]: the text read.
const DELETE_IF_SCRIPT = `
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("DEL", KEYS[1])
return 1
`;

// A user's index: a hash of session id to its entry (JSON), expiring with
// its last session. KEYS[1]: the index. ARGV: id, entry, the id it
// replaces ("" for none), the most entries, now (ms), the entry's expiry.
// A new field that takes the hash over the bound drops expired entries,
// then the oldest (by "c") still over it; their ids are returned for the
// caller to end. (Expired entries below the bound go with the key's TTL,
// and listing skips them.)
const INDEX_PUT_SCRIPT = `
if ARGV[3] ~= "" then redis.call("HDEL", KEYS[1], ARGV[3]) end
local added = redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
local e = tonumber(ARGV[6])
local ttl = redis.call("PTTL", KEYS[1])
local now = tonumber(ARGV[5])
if ttl < 0 or now + ttl < e then redis.call("PEXPIREAT", KEYS[1], math.ceil(e)) end
local max = tonumber(ARGV[4])
if added == 0 or redis.call("HLEN", KEYS[1]) <= max then return {} end
local all = redis.call("HGETALL", KEYS[1])
local live = {}
for i = 1, #all, 2 do
  local ok, entry = pcall(cjson.decode, all[i + 1])
  if not ok or type(entry) ~= "table" or tonumber(entry.e) == nil or entry.e <= now then
    redis.call("HDEL", KEYS[1], all[i])
  else
    live[#live + 1] = { all[i], tonumber(entry.c) or 0 }
  end
end
local evicted = {}
if #live > max then
  table.sort(live, function(a, b) return a[2] < b[2] end)
  for i = 1, #live - max do
    redis.call("HDEL", KEYS[1], live[i][1])
    evicted[#evicted + 1] = live[i][1]
  end
end
return evicted
`;

// KEYS[1]: the index; ARGV: the ids to remove.
const INDEX_REMOVE_SCRIPT = `
return redis.call("HDEL", KEYS[1], unpack(ARGV))
`;

// KEYS[1]: the index; its fields and values.
const INDEX_LIST_SCRIPT = `
return redis.call("HGETALL", KEYS[1])
`;

/** Options of {@linkcode createRedisSessionStorage}. */
export interface RedisSessionStorageOptions {
  /** A connected client. */
  client: RedisSessionClient;
  /** The session cookie, which holds only the signed session id. */
  cookie: SessionCookieOptions;
  /**
   * Prefix of every key: data lives under `<prefix><id>`, the index of a
   * user's sessions (a hash) under `<prefix>user:<userId>`. Default
   * `"session:"`.
   */
  prefix?: string;
  /**
   * Most sessions one user keeps (`session.setUser()`); signing in once
   * more ends the one signed in longest ago.
   *
   * @default {100}
   */
  maxSessionsPerUser?: number;
  /**
   * A session bound to a user that is read this long (ms) after its last
   * save is saved again, so `listUserSessions()` shows when it was last
   * seen.
   *
   * @default {300000} (5 minutes)
   */
  lastSeenIntervalMs?: number;
  /**
   * How a sign-out (`destroy()`, `destroyUserSession(s)`) and a new id
   * (`regenerateId()`, as at sign-in) are confirmed:
   *
   * - `"replica"` (default for a cluster client, `createCluster()`): only
   *   once a replica has the write (`WAIT 1 <replicaTimeout>` to the
   *   master that owns the key); when none confirms within
   *   `replicaTimeout`, the save fails and the request gets 503 with
   *   `Retry-After` (a sign-out may then have happened on the master
   *   only: signing out again confirms it).
   * - `"replica-aof"`: as `"replica"`, and the replica has also written
   *   it to its append-only file (`WAITAOF 0 1 <replicaTimeout>`; Redis or
   *   Valkey 7.2 and later, replicas with `appendonly yes`), so it also
   *   survives that replica's restart.
   * - `"none"` (default for a one-node client): once the master has it.
   *   A master that fails over before replicating loses it: the
   *   signed-out cookie works again on the promoted replica.
   *
   * Other saves (values, flash) are never waited for. Needs a client with
   * `sendCommand` (node-redis) for `"replica"` and `"replica-aof"`.
   */
  durability?: "replica" | "replica-aof" | "none";
  /**
   * Milliseconds a replica has to confirm (`durability: "replica"`).
   *
   * @default {1000}
   */
  replicaTimeout?: number;
  /**
   * Milliseconds to wait for Redis before a read or save fails (the
   * `session()` middleware then answers 503). A client that queues
   * commands while disconnected (node-redis' default offline queue) would
   * otherwise hold every request until Redis is back. `Infinity` waits.
   *
   * @default {5000}
   */
  timeout?: number;
}

/**
 * Creates a storage that keeps sessions in Redis under `<prefix><id>`, as
 * JSON, with a TTL (`PXAT`) from the cookie's `maxAge`. The cookie holds only
 * a signed random id of 144 bits. The expiry time is also stored in the
 * value and checked on read, as in the other storages.
 *
 * Concurrent requests on one session are all answered and keep each
 * other's changes to different names; for the same name the last save
 * wins. Within one process, saves of one session run one after another,
 * each on top of the one before. Across servers, a save writes only if the
 * entry still holds what the request read (a Lua compare-and-set through
 * `EVAL`); otherwise it applies its own changes on top of the newer entry
 * and tries again, with jittered exponential backoff, for up to 2 seconds
 * (then the request gets a 503 and the error says how many attempts were
 * made). A session destroyed meanwhile is not brought back. A client
 * without `eval` gets the same logic with `GET` then `SET`, which is not
 * atomic: two servers saving within one round trip can still lose one
 * side's changes.
 *
 * On Redis Cluster (a node-redis `createCluster()` client as `client`)
 * every script touches keys of one hash slot only. A save, a new session
 * and a destroy touch one key each, so sessions spread over the masters.
 * `regenerateId()` moves the data to a new id, whose key is in another
 * slot: the new key is written first (only if free), then the old one is
 * checked (or, with `regenerateId(true)`, deleted) only if it still holds
 * what the request read; if another request changed it meanwhile, the
 * new key is taken back and the save retries on top of that change, as
 * on one node. A process that dies between the two steps leaves the new
 * key unused until its TTL (no cookie ever named it). A prefix with a
 * hash tag (`prefix: "{session}:"`) puts every session in one slot and
 * makes a regeneration one script again, at the price of one master
 * holding them all. On failover the promoted replica may lack the last
 * saves its master acknowledged but had not replicated yet (Redis
 * replicates asynchronously): those sessions read as they were before.
 * Sign-outs and new ids are confirmed only once a replica has them on a
 * cluster by default (`durability: "replica"`), so a logged-out cookie
 * does not come back; see the option.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
 *
 * const client = createClient({
 *   url: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
 * });
 * const Session = createContextKey<Session>();
 * const storage = createRedisSessionStorage({
 *   client,
 *   cookie: { secrets: [crypto.randomUUID() + crypto.randomUUID()], maxAge: 604800 },
 * });
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * // With a redis-server running (the storage needs a connected client):
 * // await client.connect();
 * // Deno.serve(router.fetch);
 * ```
 *
 * @param options The client, cookie options and key prefix.
 * @returns The storage, for `session(Key, storage)`.
 * @throws {TypeError} When the cookie options are invalid or lack secrets.
 */
export function createRedisSessionStorage(
  options: RedisSessionStorageOptions,
): UserSessionStorage {
  const { client, prefix = "session:", timeout = 5000 } = options ?? {};
  if (
    client === null || typeof client !== "object" ||
    typeof client.get !== "function" || typeof client.set !== "function" ||
    typeof client.del !== "function"
  ) {
    throw new TypeError(
      "createRedisSessionStorage needs `client` with get, set and del",
    );
  }

  checkTimeout(timeout, "createRedisSessionStorage");
  const cluster = isRedisCluster(client);
  const replica = replicaWaiter(client, options, "createRedisSessionStorage");
  /** `operation`, or a 503 error once Redis has not answered in time. */
  const bounded = <T>(what: string, operation: () => Promise<T>) =>
    withTimeout(operation, timeout, { store: "Redis", what });

  const indexOptions = userIndexOptions("createRedisSessionStorage", options);
  const runScript = typeof client.eval === "function"
    ? scriptRunner(client as ScriptClient)
    : undefined;
  /** A script on a user's index (one key: one slot on a cluster). */
  function indexScript(
    what: string,
    script: string,
    userId: string,
    args: string[],
  ): Promise<unknown> {
    if (runScript === undefined) {
      throw new TypeError(
        "createRedisSessionStorage: sessions by user need a client with eval()",
      );
    }
    return bounded(
      what,
      () =>
        runScript(script, {
          keys: [`${prefix}user:${userId}`],
          arguments: args,
        }),
    );
  }

  const users: UserIndex = {
    async put(userId, id, entry, { replaces, max }) {
      const evicted = await indexScript(
        "index session",
        INDEX_PUT_SCRIPT,
        userId,
        [
          id,
          JSON.stringify(entry),
          replaces ?? "",
          String(max),
          String(Date.now()),
          String(Math.min(entry.e, 8.64e15)),
        ],
      );
      return Array.isArray(evicted) ? evicted.map(String) : [];
    },
    async remove(userId, ids) {
      if (ids.length === 0) return;
      await indexScript("unindex session", INDEX_REMOVE_SCRIPT, userId, [
        ...ids,
      ]);
    },
    async list(userId) {
      const reply = await indexScript(
        "list user sessions",
        INDEX_LIST_SCRIPT,
        userId,
        [],
      );
      const entries = new Map<string, UserIndexEntry>();
      if (!Array.isArray(reply)) return entries;
      for (let i = 0; i + 1 < reply.length; i += 2) {
        try {
          entries.set(String(reply[i]), JSON.parse(String(reply[i + 1])));
        } catch {
          // not an entry
        }
      }
      return entries;
    },
  };

  const store: SessionStore & { users: UserIndex } = {
    users,
    async get(id) {
      const json = await bounded("read session", () => client.get(prefix + id));
      if (typeof json !== "string") return null;
      // The text itself is the version: compared again before a write.
      return { json, version: json };
    },

    write(change) {
      return bounded("save session", async () => {
        const written = await write(change);
        const { id, loaded, deleteId } = change;
        // A new id (sign-in) or a deleted one: confirmed by a replica.
        if (
          written !== null && replica !== undefined &&
          ((loaded !== undefined && loaded.id !== id) || deleteId !== undefined)
        ) {
          const keys = new Set([prefix + id]);
          if (deleteId !== undefined && cluster) keys.add(prefix + deleteId);
          await Promise.all(
            [...keys].map((key) => replica(key, "new session id")),
          );
        }
        return written;
      });
    },

    async delete(id, _budget, durable) {
      await bounded("delete session", async () => {
        await client.del(prefix + id);
        if (durable && replica !== undefined) {
          await replica(prefix + id, "sign-out");
        }
      });
    },
  };

  async function write(
    { id, record, loaded, deleteId }: Parameters<SessionStore["write"]>[0],
  ): Promise<{ version: string } | null> {
    const json = JSON.stringify(record);
    const expiresAt = Math.min(record.e, 8.64e15);
    if (typeof client.eval === "function") {
      const run = client.eval.bind(client);
      const target = prefix + id;
      const from = loaded === undefined || loaded.id === id
        ? undefined
        : prefix + loaded.id;
      const drop = deleteId === undefined ? undefined : prefix + deleteId;
      const text = loaded === undefined ? "" : String(loaded.version);
      const pxat = String(Math.ceil(expiresAt));
      const keys = [target];
      if (from !== undefined) keys.push(from);
      if (drop !== undefined) keys.push(drop);
      if (!cluster || sameSlot(keys)) {
        const result = await run(WRITE_SCRIPT, {
          keys,
          arguments: [text, json, pxat, from === undefined ? "0" : "1"],
        });
        // The text itself is the version.
        return result === 1 ? { version: json } : null;
      }
      // A new id on a cluster: the old and the new key are in two slots,
      // which no script spans. Write the new key (only if free), then
      // check (or, for regenerateId(true), delete) the old one only if it
      // still holds what was read; if it does not, take the new key back
      // and let the save retry on what the other request wrote. The new
      // key is unknown to anyone until its cookie is sent.
      if (
        await run(WRITE_SCRIPT, {
          keys: [target],
          arguments: ["", json, pxat],
        }) !== 1
      ) {
        return null;
      }
      let kept: boolean;
      if (from === undefined) kept = true;
      else if (drop === from) {
        kept =
          await run(DELETE_IF_SCRIPT, { keys: [from], arguments: [text] }) ===
            1;
      } else kept = await client.get(from) === text;
      if (!kept) {
        await client.del(target);
        return null;
      }
      if (drop !== undefined && drop !== from) await client.del(drop);
      return { version: json };
    }
    if (loaded !== undefined) {
      const current = await client.get(prefix + loaded.id);
      if (current !== loaded.version) return null;
    }
    const fresh = loaded === undefined || loaded.id !== id;
    const result = await client.set(prefix + id, json, {
      expiration: { type: "PXAT", value: Math.ceil(expiresAt) },
      ...(fresh ? { condition: "NX" as const } : {}),
    });
    if (result === null) return null;
    if (deleteId !== undefined) await client.del(prefix + deleteId);
    return { version: json };
  }

  return createIdSessionStorage(options.cookie, store, indexOptions);
}
