/**
 * A rate-limit store on Deno KV: shared by every server that opens the
 * same database (a local file, or KV Connect such as Deno Deploy's).
 *
 * @module
 */

import {
  algorithmOf,
  asLockoutState,
  gcra,
  gcraGiveBack,
  lockout,
  lockoutGiveBack,
  type RateLimitPolicy,
  type RateLimitResult,
  type RateLimitStore,
  resultOf,
} from "./store.ts";
import { whileLocked } from "../store/retry.ts";
import { checkTimeout, withTimeout } from "../store/timeout.ts";

/** A part of a KV key. */
export type RateLimitKvKeyPart =
  | string
  | number
  | bigint
  | boolean
  | Uint8Array;

/** An atomic operation, as far as the store uses one. */
export interface RateLimitKvAtomic {
  /** Fails the commit unless `key` still has `versionstamp`. */
  check(
    ...checks: {
      key: readonly RateLimitKvKeyPart[];
      versionstamp: string | null;
    }[]
  ): RateLimitKvAtomic;
  /** Writes `value` under `key`. */
  set(
    key: readonly RateLimitKvKeyPart[],
    value: unknown,
    options?: { expireIn?: number },
  ): RateLimitKvAtomic;
  /** Applies the operation if every check holds. */
  commit(): Promise<{ ok: boolean; versionstamp?: string }>;
}

/**
 * The part of Deno KV the store uses: `Deno.Kv` (`await Deno.openKv()`)
 * and `npm:@deno/kv`'s client both fit.
 */
export interface RateLimitKv {
  /** Reads one entry. */
  get(
    key: readonly RateLimitKvKeyPart[],
  ): Promise<{ value: unknown; versionstamp: string | null }>;
  /** Starts an atomic operation. */
  atomic(): RateLimitKvAtomic;
  /** Deletes one entry. */
  delete(key: readonly RateLimitKvKeyPart[]): Promise<void>;
}

/** Options of {@linkcode createKvRateLimitStore}. */
export interface KvRateLimitStoreOptions {
  /** An open database. */
  client: RateLimitKv;
  /** First part of every key: state lives under `[prefix, key]`. Default `"rate_limit"`. */
  prefix?: string;
  /**
   * Milliseconds one store call may take (retries of a locked database
   * included) before it fails as an outage, a `StoreUnavailableError`
   * (503 with `Retry-After`, or a pass with `rateLimit({ failOpen: true
   * })`). `Infinity` waits.
   *
   * @default {5000}
   */
  timeout?: number;
}

interface Known {
  /** The stored value: a GCRA arrival time, or a lockout's state. */
  value: unknown;
  versionstamp: string | null;
  /** Read from the database just now, rather than remembered. */
  fresh: boolean;
}

// How many keys' last versionstamps one store remembers.
const REMEMBERED = 10_000;

/**
 * Creates a store that keeps rate-limit state in Deno KV under
 * `[prefix, key]`: one number per key, written with an atomic
 * compare-and-set, so servers sharing the database share each key's
 * budget exactly.
 *
 * One round trip per request in the usual case: the store remembers the
 * versionstamp it last wrote for a key (and assumes a new key is absent),
 * and commits against it; only when another server wrote in between does
 * the commit fail, and the store reads the entry and tries again. A
 * refusal from remembered state is confirmed by a read first. Within one
 * process, requests for one key take turns, so they do not fail each
 * other's commits. `database is locked` (two processes on one local
 * file) is retried with jittered backoff for up to 2 s, as the KV session
 * storage does. A database that stays locked, is closed, is full
 * (`database or disk is full`), or does not answer within `timeout` is an
 * outage: a `StoreUnavailableError`, which `rateLimit()` answers with
 * `503` and `Retry-After` (or lets the request pass with `failOpen`).
 *
 * With `rateLimit({ countResponse })`, a request given back is a second
 * compare-and-set on the entry as it is then (read fresh), so a write from
 * another server in between is kept, and nothing below an empty entry is
 * ever written.
 *
 * Entries get `expireIn` for when the key's full limit is back; KV deletes
 * them lazily, so each value carries its own time, checked on read: a
 * stale entry is harmless (a GCRA arrival time in the past, or a lockout
 * count whose last counted request is `windowMs` old, counts as none).
 * GCRA keeps a number per key, a lockout `{ count, last }`. Time is each
 * server's clock: keep them in sync (NTP).
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import {
 *   createKvRateLimitStore,
 *   rateLimit,
 * } from "@fetchkit/toolkit/rate-limit-middleware";
 *
 * // A file such as "./app.sqlite" in production; ":memory:" here.
 * const kv = await Deno.openKv(":memory:");
 * const store = createKvRateLimitStore({ client: kv });
 * const router = createRouter({
 *   middleware: [rateLimit({ limit: 100, windowMs: 60_000, store })],
 * });
 * router.get("/", () => new Response("hello"));
 * const response = await router.fetch(new Request("http://localhost/"), {
 *   remoteAddr: { hostname: "192.0.2.1", port: 1234, transport: "tcp" },
 * });
 * response.headers.get("RateLimit"); // '"default";r=99;t=1'
 * kv.close();
 * ```
 *
 * @param options The database and the key prefix.
 * @returns The store.
 * @throws {TypeError} When `client` is missing.
 */
export function createKvRateLimitStore(
  options: KvRateLimitStoreOptions,
): RateLimitStore {
  const { client, prefix = "rate_limit" } = options ?? {};
  if (
    client === null || typeof client !== "object" ||
    typeof client.atomic !== "function"
  ) {
    throw new TypeError(
      "createKvRateLimitStore() needs `client`: an open Deno KV database (await Deno.openKv())",
    );
  }
  const timeout = checkTimeout(options.timeout, "createKvRateLimitStore");
  const bounded = <T>(call: () => Promise<T>): Promise<T> =>
    withTimeout(() => whileLocked(call), timeout, {
      store: "Deno KV",
      what: "rate limit",
    });
  const known = new Map<string, Known>();
  const turns = new Map<string, Promise<unknown>>();

  function remember(key: string, entry: Known): void {
    known.delete(key);
    known.set(key, entry);
    if (known.size > REMEMBERED) known.delete(known.keys().next().value!);
  }

  async function read(key: string): Promise<Known> {
    const entry = await bounded(() => client.get([prefix, key]));
    return {
      value: entry.value,
      versionstamp: entry.versionstamp,
      fresh: true,
    };
  }

  /** One step of the policy's algorithm on `value`, at `now`. */
  function step(
    value: unknown,
    now: number,
    policy: RateLimitPolicy,
  ): { result: RateLimitResult; value: unknown; expireIn: number } {
    if (algorithmOf(policy) === "lockout") {
      const next = lockout(asLockoutState(value), now, policy);
      return {
        result: next.result,
        value: next.state,
        expireIn: Math.max(1, Math.ceil(policy.windowMs)),
      };
    }
    const tat = typeof value === "number" ? value : 0;
    const next = gcra(tat, now, policy);
    return {
      result: resultOf(next.allowed, next.tat - now, policy),
      value: next.tat,
      expireIn: Math.max(1, Math.ceil(next.tat - now)),
    };
  }

  async function hitNow(
    key: string,
    policy: RateLimitPolicy,
  ): Promise<RateLimitResult> {
    let current = known.get(key) ??
      { value: undefined, versionstamp: null, fresh: false };
    for (let attempt = 1;; attempt++) {
      const now = Date.now();
      const next = step(current.value, now, policy);
      if (!next.result.allowed) {
        if (!current.fresh) {
          // Remembered state may be stale (a reset elsewhere): confirm.
          current = await read(key);
          continue;
        }
        remember(key, { ...current, fresh: false });
        return next.result;
      }
      const result = await bounded(() =>
        client.atomic()
          .check({ key: [prefix, key], versionstamp: current.versionstamp })
          .set([prefix, key], next.value, { expireIn: next.expireIn })
          .commit()
      );
      if (result.ok) {
        remember(key, {
          value: next.value,
          versionstamp: result.versionstamp ?? null,
          fresh: false,
        });
        return next.result;
      }
      if (attempt === 100) {
        throw new Error(
          `Rate limit store: the entry for "${key}" kept changing under 100 attempts to update it`,
        );
      }
      current = await read(key);
    }
  }

  /**
   * Gives one request back: a compare-and-set on what is stored now, so a
   * write from another server in between is never lost, and nothing
   * stored (or expired) stays nothing.
   */
  async function giveBackNow(
    key: string,
    policy: RateLimitPolicy,
  ): Promise<void> {
    for (let attempt = 1;; attempt++) {
      const current = await read(key);
      const now = Date.now();
      let value: unknown;
      let expireIn: number;
      if (algorithmOf(policy) === "lockout") {
        const state = asLockoutState(current.value);
        if (
          state === undefined || state.count <= 0 ||
          state.last + policy.windowMs <= now
        ) return;
        const next = lockoutGiveBack(state, now, policy);
        // Nothing live left: a count of 0 is stored briefly rather than
        // the key deleted, which reads the same (count 0 is no count).
        value = next ?? { count: 0, last: state.last };
        expireIn = next === undefined
          ? 1
          : Math.max(1, Math.ceil(state.last + policy.windowMs - now));
      } else {
        if (typeof current.value !== "number" || current.value <= now) return;
        value = gcraGiveBack(current.value, now, policy);
        expireIn = Math.max(1, Math.ceil((value as number) - now));
      }
      const result = await bounded(() =>
        client.atomic()
          .check({ key: [prefix, key], versionstamp: current.versionstamp })
          .set([prefix, key], value, { expireIn })
          .commit()
      );
      if (result.ok) {
        remember(key, {
          value,
          versionstamp: result.versionstamp ?? null,
          fresh: false,
        });
        return;
      }
      if (attempt === 100) {
        throw new Error(
          `Rate limit store: the entry for "${key}" kept changing under 100 attempts to give a request back`,
        );
      }
    }
  }

  /** Runs `operation` when the calls before it for `key` are done. */
  function inTurn<T>(key: string, operation: () => Promise<T>): Promise<T> {
    // Requests for one key take turns within this process.
    const previous = turns.get(key);
    const run = previous === undefined ? operation() : previous.then(operation);
    const done = run.then(() => {}, () => {});
    turns.set(key, done);
    done.then(() => {
      if (turns.get(key) === done) turns.delete(key);
    });
    return run;
  }

  return {
    hit(key, policy) {
      return inTurn(key, () => hitNow(key, policy));
    },
    giveBack(key, policy) {
      return inTurn(key, () => giveBackNow(key, policy));
    },
    async reset(key) {
      known.delete(key);
      await bounded(() => client.delete([prefix, key]));
    },
  };
}
