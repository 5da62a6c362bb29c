/**
 * Session storage on Deno KV: persistent, and shared by every server that
 * opens the same database. Needs `--unstable-kv` (or `"unstable": ["kv"]`)
 * on Deno; on Node and Bun, pass a database opened with the npm package
 * `@deno/kv` (`import { openKv } from "@deno/kv"`), which runs the same
 * SQLite-backed KV in process. On Bun, `@deno/kv` needs V8's value format
 * spelled out: `openKv(path, { encodeV8: serialize, decodeV8: deserialize })`
 * with both from `node:v8` (Bun writes its own format then, so keep such a
 * file to Bun processes).
 *
 * @module
 */

import {
  createIdSessionStorage,
  type SessionStore,
  type UserIndex,
  type UserIndexEntry,
  userIndexOptions,
} from "./_id_storage.ts";
import { budgetOf, whileLocked } from "../store/retry.ts";
import { checkTimeout, withTimeout } from "../store/timeout.ts";
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

/** Deno KV's limit on one value. */
const MAX_VALUE_BYTES = 65536;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The part of a Deno KV database the storage uses: Deno's `Deno.Kv`
 * (`await Deno.openKv()`), or on Node and Bun the `Kv` of the npm package
 * `@deno/kv` (`await openKv("sessions.db")`), which has the same API.
 */
export interface KvSessionClient {
  /** Reads one key. */
  get<T = unknown>(
    key: readonly string[],
  ): Promise<{ value: T | null; versionstamp: string | null }>;
  /** Starts an atomic operation. */
  atomic(): KvSessionAtomic;
  /** Deletes one key. */
  delete(key: readonly string[]): Promise<void>;
  /**
   * Lists the keys under a prefix (`Deno.Kv` and `@deno/kv` have it):
   * needed to list a user's sessions and to keep at most
   * `maxSessionsPerUser` of them.
   */
  list?<T = unknown>(
    selector: { prefix: readonly string[] },
  ): AsyncIterable<{ key: readonly unknown[]; value: T }>;
}

/** The atomic operation of a {@linkcode KvSessionClient}. */
export interface KvSessionAtomic {
  /** Fails the commit unless `key` is at `versionstamp` (`null`: absent). */
  check(
    check: { key: readonly string[]; versionstamp: string | null },
  ): KvSessionAtomic;
  /** Writes `key`, to expire after `expireIn` milliseconds. */
  set(
    key: readonly string[],
    value: Uint8Array,
    options?: { expireIn?: number },
  ): KvSessionAtomic;
  /** Deletes `key`. */
  delete(key: readonly string[]): KvSessionAtomic;
  /** Applies the operation if every check holds. */
  commit(): Promise<{ ok: true; versionstamp: string } | { ok: false }>;
}

/** Options of {@linkcode createKvSessionStorage}. */
export interface KvSessionStorageOptions {
  /**
   * An open database: `await Deno.openKv()` (a local file, `":memory:"`)
   * or a KV Connect URL such as Deno Deploy's; on Node and Bun,
   * `await openKv(path)` from the npm package `@deno/kv`.
   */
  client: KvSessionClient;
  /** The session cookie, which holds only the signed session id. */
  cookie: SessionCookieOptions;
  /**
   * First part of every key: data lives under `[prefix, id]`, the index
   * of a user's sessions under `[prefix, "by_user", userId, id]`.
   * Default `"sessions"`.
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
   * Milliseconds one read, write or delete may take (retries of a locked
   * database included) before it fails as an outage: `session()` then
   * answers 503 with `Retry-After`. A remote KV Connect database that
   * stops answering would otherwise hold every request. `Infinity` waits.
   *
   * @default {5000}
   */
  timeout?: number;
}

/**
 * Creates a storage that keeps sessions in Deno KV under `[prefix, id]`.
 * The cookie holds only a signed random id of 144 bits.
 *
 * - Each entry gets `expireIn` from the cookie's `maxAge`; as KV deletes
 *   expired keys lazily, the expiry time is also stored in the value and
 *   checked on every read. An unknown or expired id gives a new, empty
 *   session with a new id.
 * - Concurrent requests on one session are all answered and keep each
 *   other's changes to different names; for the same name the last save
 *   wins. Within one process, saves of one session run one after another,
 *   each on top of the one before. Across servers sharing the database, a
 *   save is atomic and checked against the version it read; when another
 *   server wrote meanwhile, it applies its changes to the newer entry and
 *   tries again, with jittered exponential backoff, for up to 2 seconds
 *   (then the request gets a 503 and the error says how many attempts were
 *   made). Servers sharing one local KV file also wait out SQLite's
 *   "database is locked" within those 2 seconds. A session destroyed by one
 *   request is not brought back by another.
 * - The session is stored as UTF-8 JSON; over KV's 64 KiB value limit,
 *   `save` throws a `RangeError` naming the size.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
 *
 * // A file such as "./sessions.sqlite" in production; ":memory:" here.
 * const kv = await Deno.openKv(":memory:");
 * const Session = createContextKey<Session>();
 * const storage = createKvSessionStorage({
 *   client: kv,
 *   // In production: [Deno.env.get("SESSION_SECRET")!], 32+ characters.
 *   cookie: { secrets: [crypto.randomUUID() + crypto.randomUUID()], maxAge: 604800 },
 * });
 * const router = createRouter({ middleware: [session(Session, storage)] });
 * router.get("/", (context) => {
 *   context.get(Session)!.set("visited", true);
 *   return new Response("hello");
 * });
 * const response = await router.fetch(new Request("http://localhost/"));
 * response.headers.get("Set-Cookie"); // "__session=...; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax"
 * kv.close();
 * // Deno.serve(router.fetch);
 * ```
 *
 * @param options The database, cookie options and key prefix.
 * @returns The storage, for `session(Key, storage)`.
 * @throws {TypeError} When the cookie options are invalid or lack secrets.
 */
export function createKvSessionStorage(
  options: KvSessionStorageOptions,
): UserSessionStorage {
  const { client, prefix = "sessions" } = options ?? {};
  if (client === null || typeof client !== "object") {
    throw new TypeError(
      "createKvSessionStorage needs `client`: a Deno.Kv, or @deno/kv's Kv on Node and Bun",
    );
  }

  const timeout = checkTimeout(options.timeout, "createKvSessionStorage");
  const bounded = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    withTimeout(call, timeout, { store: "Deno KV", what });

  const indexOptions = userIndexOptions("createKvSessionStorage", options);
  const byUser = (userId: string) => [prefix, "by_user", userId];

  async function userEntries(
    userId: string,
  ): Promise<Map<string, UserIndexEntry>> {
    if (typeof client.list !== "function") {
      throw new TypeError(
        "createKvSessionStorage: listing a user's sessions needs a client with list() (Deno.Kv, @deno/kv)",
      );
    }
    const entries = new Map<string, UserIndexEntry>();
    await bounded("list user sessions", async () => {
      for await (
        const { key, value } of client.list!({ prefix: byUser(userId) })
      ) {
        if (!(value instanceof Uint8Array)) continue;
        try {
          entries.set(String(key[3]), JSON.parse(decoder.decode(value)));
        } catch {
          // not an entry
        }
      }
    });
    return entries;
  }

  const users: UserIndex = {
    async put(userId, id, entry, { replaces, max, fresh }) {
      const operation = client.atomic();
      if (replaces !== undefined) {
        operation.delete([...byUser(userId), replaces]);
      }
      const expireIn = Math.max(1, Math.ceil(entry.e - Date.now()));
      operation.set(
        [...byUser(userId), id],
        encoder.encode(JSON.stringify(entry)),
        Number.isFinite(expireIn) ? { expireIn } : undefined,
      );
      await bounded(
        "index session",
        () => whileLocked(() => operation.commit(), budgetOf()),
      );
      // Only a new entry can take the index over its bound.
      if (!fresh || typeof client.list !== "function") return [];
      const now = Date.now();
      const live = [...await userEntries(userId)].filter(([, { e }]) =>
        e > now
      );
      if (live.length <= max) return [];
      const evicted = live.sort(([, a], [, b]) => a.c - b.c)
        .slice(0, live.length - max).map(([old]) => old);
      await users.remove(userId, evicted);
      return evicted;
    },
    async remove(userId, ids) {
      const operation = client.atomic();
      for (const id of ids) operation.delete([...byUser(userId), id]);
      await bounded(
        "unindex session",
        () => whileLocked(() => operation.commit(), budgetOf()),
      );
    },
    list: userEntries,
  };

  const store: SessionStore & { users: UserIndex } = {
    users,
    async get(id, budget) {
      const entry = await bounded(
        "read session",
        () => whileLocked(() => client.get<Uint8Array>([prefix, id]), budget),
      );
      if (!(entry.value instanceof Uint8Array)) return null;
      let json: string;
      try {
        json = decoder.decode(entry.value);
      } catch {
        return null;
      }
      // KV's own expiry is lazy: the caller checks the stored time.
      return { json, version: entry.versionstamp };
    },

    async write({ id, record, loaded, deleteId, budget }) {
      const bytes = encoder.encode(JSON.stringify(record));
      if (bytes.length > MAX_VALUE_BYTES) {
        throw new RangeError(
          `Session data is ${bytes.length} bytes, over Deno KV's ` +
            `${MAX_VALUE_BYTES}-byte value limit; store less in the session`,
        );
      }
      const key = [prefix, id];
      const operation = client.atomic();
      if (loaded !== undefined) {
        operation.check({
          key: [prefix, loaded.id],
          versionstamp: loaded.version as string | null,
        });
      }
      if (loaded === undefined || loaded.id !== id) {
        operation.check({ key, versionstamp: null });
      }
      if (deleteId !== undefined) operation.delete([prefix, deleteId]);
      const expireIn = Math.max(1, Math.ceil(record.e - Date.now()));
      operation.set(
        key,
        bytes,
        Number.isFinite(expireIn) ? { expireIn } : undefined,
      );
      const result = await bounded(
        "save session",
        () => whileLocked(() => operation.commit(), budget),
      );
      return result.ok ? { version: result.versionstamp } : null;
    },

    async delete(id, budget) {
      await bounded(
        "delete session",
        () => whileLocked(() => client.delete([prefix, id]), budget),
      );
    },
  };

  return createIdSessionStorage(options.cookie, store, indexOptions);
}
