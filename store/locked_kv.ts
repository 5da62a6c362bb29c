/**
 * A Deno KV database whose calls wait out SQLite's lock: processes that
 * share one local KV file get `database is locked` under concurrent
 * writes instead of waiting their turn.
 *
 * @module
 */

import { whileLocked } from "./retry.ts";

/** The calls retried: each applies nothing when it finds the lock. */
const RETRIED = new Set(["get", "getMany", "set", "delete", "enqueue"]);

/**
 * Wraps an open Deno KV database (`Deno.Kv`, or `npm:@deno/kv`'s client)
 * so that `get`, `getMany`, `set`, `delete`, `enqueue` and an atomic
 * operation's `commit` that find the database locked by another process
 * are tried again with jittered backoff for up to 2 s, then throw a
 * {@linkcode StoreUnavailableError} naming the attempts (a `503`). A
 * locked call applied nothing, so trying it again is safe; an atomic
 * operation records its steps and builds a fresh one per attempt. `list`
 * and everything else pass through. The package's own KV stores
 * (sessions, rate limits, caches, jobs, pub/sub) do this already; wrap a
 * database your own code writes to when several processes share its file.
 *
 * @example Several processes on one KV file
 * ```ts
 * import { retryWhileLocked } from "@fetchkit/toolkit/store";
 *
 * const kv = retryWhileLocked(await Deno.openKv(":memory:"));
 * await kv.atomic()
 *   .check({ key: ["users", 1], versionstamp: null })
 *   .set(["users", 1], { name: "Ada" })
 *   .commit();
 * (await kv.get(["users", 1])).value; // { name: "Ada" }
 * kv.close();
 * ```
 *
 * @param kv An open database.
 * @returns The same database, its writes and reads retried while locked.
 */
export function retryWhileLocked<T extends object>(kv: T): T {
  // A database wrapped already (the auth app's, given to the KV job
  // store) is not wrapped again: one retry loop per call.
  if (retrying.has(kv)) return kv;
  const wrapped = new Map<PropertyKey, unknown>();
  const proxy = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      let call = wrapped.get(property);
      if (call === undefined) {
        const method = value.bind(target);
        call = property === "atomic"
          ? () => recordedAtomic(() => method())
          : RETRIED.has(String(property))
          ? (...args: unknown[]) => whileLocked(() => method(...args))
          : method;
        wrapped.set(property, call);
      }
      return call;
    },
  });
  retrying.add(proxy);
  return proxy;
}

const retrying = new WeakSet<object>();

type Builder = Record<string, (...args: unknown[]) => unknown>;

function recordedAtomic(start: () => unknown): unknown {
  const steps: [string, unknown[]][] = [];
  const recorder: unknown = new Proxy({}, {
    get(_, property) {
      if (property === "commit") {
        return () =>
          whileLocked(() => {
            let operation = start() as Builder;
            for (const [name, args] of steps) {
              operation = operation[name](...args) as Builder;
            }
            return operation.commit() as Promise<unknown>;
          });
      }
      if (typeof property !== "string" || property === "then") {
        return undefined;
      }
      return (...args: unknown[]) => {
        steps.push([property, args]);
        return recorder;
      };
    },
  });
  return recorder;
}
