// Deno KV calls of the job store, retried while SQLite reports the database
// locked (processes sharing one local file get that error under concurrent
// writes instead of waiting their turn), as every other KV store of the
// package does through store/retry.ts.

import { whileLocked } from "../store/retry.ts";
import type { JobKv, JobKvAtomic, JobKvKey } from "./kv_store.ts";

type Step = (operation: JobKvAtomic) => JobKvAtomic;

/**
 * `kv` with `get`, `getMany` and `commit` retried while locked. An atomic
 * operation records its steps and builds a fresh one per attempt, since a
 * locked commit applied nothing.
 */
export function lockedKv(kv: JobKv): JobKv {
  return {
    get: (key) => whileLocked(() => kv.get(key)),
    getMany: (keys) => whileLocked(() => kv.getMany(keys)),
    list: (selector, options) => kv.list(selector, options),
    atomic: () => recordedAtomic(kv),
  };
}

function recordedAtomic(kv: JobKv): JobKvAtomic {
  const steps: Step[] = [];
  const recorder: JobKvAtomic = {
    check(...checks) {
      steps.push((operation) => operation.check(...checks));
      return recorder;
    },
    set(key: JobKvKey, value: unknown, options?: { expireIn?: number }) {
      steps.push((operation) => operation.set(key, value, options));
      return recorder;
    },
    delete(key: JobKvKey) {
      steps.push((operation) => operation.delete(key));
      return recorder;
    },
    commit() {
      return whileLocked(() => {
        let operation = kv.atomic();
        for (const step of steps) operation = step(operation);
        return operation.commit();
      });
    },
  };
  return recorder;
}
