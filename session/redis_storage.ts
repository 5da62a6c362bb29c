/**
 * Session storage on Redis, for applications that run on several machines
 * and already run Redis.
 *
 * @module
 */

import { createIdSessionStorage, type SessionStore } from "./_id_storage.ts";
import { parseRecord } from "./session.ts";
import type { SessionCookieOptions, SessionStorage } from "./storage.ts";

export { Session } from "./session.ts";
export type { SessionData } from "./session.ts";
export type { SessionCookieOptions, SessionStorage } from "./storage.ts";

/** Options of a Redis `SET`, as `npm:redis` (node-redis 5 and later) takes them. */
export interface RedisSetOptions {
  /** Absolute expiry time in milliseconds (`PXAT`). */
  expiration: { type: "PXAT"; value: number };
  /** `NX`: set only if the key does not exist. */
  condition?: "NX";
}

/**
 * The commands the storage uses: a connected `npm:redis` client fits, and so
 * does any client (or adapter) with the same `get`/`set`/`del` shape.
 */
export interface RedisSessionClient {
  /** `GET key`: the value, or `null`. */
  get(key: string): Promise<string | null>;
  /** `SET key value PXAT ms [NX]`: `null` when `NX` stopped it. */
  set(key: string, value: string, options: RedisSetOptions): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
}

/** Options of {@linkcode createRedisSessionStorage}. */
export interface RedisSessionStorageOptions {
  /** A connected client. */
  client: RedisSessionClient;
  /** The session cookie, which holds only the signed session id. */
  cookie: SessionCookieOptions;
  /** Prefix of every key: data lives under `<prefix><id>`. Default `"session:"`. */
  prefix?: string;
}

/**
 * Creates a storage that keeps sessions in Redis under `<prefix><id>`, as
 * JSON, with a TTL (`PXAT`) from the cookie's `maxAge`. The cookie holds only
 * a signed random id of 144 bits. The expiry time is also stored in the
 * value and checked on read, as in the other storages.
 *
 * Concurrent requests on one session: before writing, a save reads the
 * entry again and, when another request changed it, applies its own changes
 * on top. With only `GET`/`SET`/`DEL` that check is not atomic, so two
 * saves landing within one round trip of each other can still lose one
 * side's changes; a session deleted meanwhile is not brought back.
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
 *
 * const client = await createClient({ url: "redis://127.0.0.1:6379" }).connect();
 * const Session = createContextKey<Session>();
 * const storage = createRedisSessionStorage({
 *   client,
 *   cookie: { secrets: ["<SESSION_SECRET>"], maxAge: 604800 },
 * });
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * Deno.serve(router.fetch);
 * ```
 *
 * @param options The client, cookie options and key prefix.
 * @returns The storage, for `session(Key, storage)`.
 * @throws {TypeError} When the cookie options are invalid or lack secrets.
 */
export function createRedisSessionStorage(
  options: RedisSessionStorageOptions,
): SessionStorage {
  const { client, prefix = "session:" } = options ?? {};
  if (
    client === null || typeof client !== "object" ||
    typeof client.get !== "function" || typeof client.set !== "function" ||
    typeof client.del !== "function"
  ) {
    throw new TypeError(
      "createRedisSessionStorage needs `client` with get, set and del",
    );
  }

  const store: SessionStore = {
    async get(id) {
      const json = await client.get(prefix + id);
      if (typeof json !== "string") return null;
      const record = parseRecord(json);
      if (record === null || record.e <= Date.now()) return null;
      // The text itself is the version: compared again before a write.
      return { record, version: json };
    },

    async write({ id, record, loaded, deleteId }) {
      if (loaded !== undefined) {
        const current = await client.get(prefix + loaded.id);
        if (current !== loaded.version) return false;
      }
      const fresh = loaded === undefined || loaded.id !== id;
      const result = await client.set(prefix + id, JSON.stringify(record), {
        expiration: { type: "PXAT", value: Math.min(record.e, 8.64e15) },
        ...(fresh ? { condition: "NX" as const } : {}),
      });
      if (result === null) return false;
      if (deleteId !== undefined) await client.del(prefix + deleteId);
      return true;
    },

    async delete(id) {
      await client.del(prefix + id);
    },
  };

  return createIdSessionStorage(options.cookie, store);
}
