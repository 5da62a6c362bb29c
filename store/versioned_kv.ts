/**
 * The versioned store on Deno KV: versions are KV's versionstamps, and a
 * conditional write is an atomic operation with a check.
 *
 * @module
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { toBase64Url } from "../runtime/base64.ts";
import { whileLocked } from "./retry.ts";
import { checkTimeout, withTimeout } from "./timeout.ts";
import {
  checkSet,
  type VersionedStore,
  type VersionedValue,
} from "./versioned.ts";

/** A part of a KV key. */
export type KvKeyPart = string | number | bigint | boolean | Uint8Array;

/** An atomic operation, as far as the store uses one. */
export interface VersionedKvAtomic {
  /** Fails the commit unless `key` still has `versionstamp`. */
  check(
    ...checks: { key: readonly KvKeyPart[]; versionstamp: string | null }[]
  ): VersionedKvAtomic;
  /** Writes `value` under `key`. */
  set(
    key: readonly KvKeyPart[],
    value: unknown,
    options?: { expireIn?: number },
  ): VersionedKvAtomic;
  /** Deletes `key`. */
  delete(key: readonly KvKeyPart[]): VersionedKvAtomic;
  /** Applies the operation if every check holds. */
  commit(): Promise<{ ok: boolean; versionstamp?: string }>;
}

/**
 * The part of Deno KV the store uses: `Deno.Kv` (`await Deno.openKv()`)
 * and `npm:@deno/kv`'s client both fit.
 */
export interface VersionedKv {
  /** Reads one entry. */
  get(
    key: readonly KvKeyPart[],
  ): Promise<{ value: unknown; versionstamp: string | null }>;
  /** Starts an atomic operation. */
  atomic(): VersionedKvAtomic;
  /** Deletes one entry. */
  delete(key: readonly KvKeyPart[]): Promise<void>;
}

/** Options of {@linkcode createKvVersionedStore}. */
export interface KvVersionedStoreOptions {
  /** An open database. */
  client: VersionedKv;
  /** First part of every key: entries live under `[prefix, key]`. */
  prefix: string;
  /**
   * Milliseconds one call may take (lock retries included) before it
   * fails with a `StoreUnavailableError` (a `503`). `Infinity` waits.
   *
   * @default {5000}
   */
  timeout?: number;
}

/**
 * The largest value: Deno KV refuses values over 64 KiB once serialized;
 * the entry's expiry time and the serialization take the rest.
 */
export const KV_MAX_VALUE_BYTES = 65536 - 256;
/** Longest key kept as it is; longer ones (KV keys stop at 2 KiB) are hashed. */
const MAX_KEY_LENGTH = 512;
/** What a versionstamp looks like; anything else cannot match one. */
const VERSIONSTAMP = /^[0-9a-f]{20}$/;
const encoder = new TextEncoder();

/** What is stored: the value and its own expiry time (KV expires lazily). */
interface Stored {
  e: number;
  d: Uint8Array;
}

function isStored(value: unknown): value is Stored {
  return typeof value === "object" && value !== null &&
    typeof (value as Stored).e === "number" &&
    (value as Stored).d instanceof Uint8Array;
}

/**
 * A versioned store on Deno KV under `[prefix, key]`. Each entry keeps its
 * own expiry time, checked on read, since KV deletes expired keys only
 * within about a minute. `database is locked` (processes sharing a local
 * file) is retried with jittered backoff for up to 2 s. Every call is
 * limited to `timeout` ms; an outage (closed database, full disk, lock
 * held too long, no answer in time) is a `StoreUnavailableError`.
 */
export function createKvVersionedStore(
  options: KvVersionedStoreOptions,
): VersionedStore {
  const { client, prefix } = options;
  const timeout = checkTimeout(options.timeout, "createKvCacheStore()");
  if (
    client === null || typeof client !== "object" ||
    typeof client.atomic !== "function" || typeof client.get !== "function"
  ) {
    throw new TypeError(
      "a Deno KV store needs `client`: an open Deno KV database (await Deno.openKv())",
    );
  }

  /** One call: retried while locked, limited in time, outages mapped. */
  function call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withTimeout(() => whileLocked(operation), timeout, {
      store: "Deno KV",
      what,
    });
  }

  function keyOf(key: string): KvKeyPart[] {
    return [
      prefix,
      key.length <= MAX_KEY_LENGTH && key.charCodeAt(0) !== 35 /* # */
        ? key
        : "#" + toBase64Url(sha256(encoder.encode(key))),
    ];
  }

  const store: VersionedStore = {
    name: "Deno KV",
    maxValueBytes: KV_MAX_VALUE_BYTES,
    async get(key): Promise<VersionedValue | undefined> {
      const entry = await call("get", () => client.get(keyOf(key)));
      if (
        entry.versionstamp === null || !isStored(entry.value) ||
        entry.value.e <= Date.now()
      ) {
        return undefined;
      }
      return { value: entry.value.d, version: entry.versionstamp };
    },
    async set(key, value, options) {
      const ttl = checkSet(store, value, options);
      const kvKey = keyOf(key);
      const stored: Stored = { e: Date.now() + ttl, d: value };
      const expected = options.ifVersion;
      if (typeof expected === "string" && !VERSIONSTAMP.test(expected)) {
        return undefined;
      }
      if (expected === null) {
        // Absent: one commit. Failing that, an expired entry KV has not
        // deleted yet also counts as absent: replace that very version.
        const first = await call("set", () =>
          client.atomic()
            .check({ key: kvKey, versionstamp: null })
            .set(kvKey, stored, { expireIn: ttl })
            .commit());
        if (first.ok) return first.versionstamp;
        const current = await call("get", () => client.get(kvKey));
        if (
          current.versionstamp !== null && isStored(current.value) &&
          current.value.e > Date.now()
        ) {
          return undefined;
        }
        const result = await call("set", () =>
          client.atomic()
            .check({ key: kvKey, versionstamp: current.versionstamp })
            .set(kvKey, stored, { expireIn: ttl })
            .commit());
        return result.ok ? result.versionstamp : undefined;
      }
      const result = await call("set", () => {
        // A fresh operation per attempt: each call adds to it.
        let atomic = client.atomic();
        if (expected !== undefined) {
          atomic = atomic.check({ key: kvKey, versionstamp: expected });
        }
        return atomic.set(kvKey, stored, { expireIn: ttl }).commit();
      });
      return result.ok ? result.versionstamp : undefined;
    },
    async delete(key, options) {
      const kvKey = keyOf(key);
      if (options?.ifVersion === undefined) {
        await call("delete", () => client.delete(kvKey));
        return true;
      }
      if (!VERSIONSTAMP.test(options.ifVersion)) return false;
      const result = await call("delete", () =>
        client.atomic()
          .check({ key: kvKey, versionstamp: options.ifVersion! })
          .delete(kvKey)
          .commit());
      return result.ok;
    },
  };
  return store;
}
