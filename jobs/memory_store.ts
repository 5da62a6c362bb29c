/**
 * The memory job store: one process, lost at exit. For tests and
 * development, and for work that may be lost with the process.
 *
 * @module
 */

import type {
  ClaimedJob,
  DeadJob,
  JobCounts,
  JobStore,
  NewJob,
} from "./store.ts";

interface Entry {
  job: NewJob;
  state: "waiting" | "active" | "dead";
  attempts: number;
  lease?: string;
  leaseUntil: number;
  error?: string;
  failedAt?: number;
  /** Position in the due order: runAt, then insertion. */
  seq: number;
}

interface Queue {
  jobs: Map<string, Entry>;
  /** Waiting and delayed jobs, a min-heap on (runAt, seq). */
  heap: Entry[];
  active: Set<Entry>;
  dead: Map<string, Entry>;
  /** key -> id, and until when a finished job's key holds (Infinity while it exists). */
  keys: Map<string, { id: string; until: number }>;
  listeners: Set<() => void>;
}

function before(a: Entry, b: Entry): boolean {
  return a.job.runAt < b.job.runAt ||
    (a.job.runAt === b.job.runAt && a.seq < b.seq);
}

function push(heap: Entry[], entry: Entry): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i], heap[parent])) break;
    [heap[i], heap[parent]] = [heap[parent], heap[i]];
    i = parent;
  }
}

function pop(heap: Entry[]): Entry | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0 && last !== undefined) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l], heap[m])) m = l;
      if (r < heap.length && before(heap[r], heap[m])) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }
  return top;
}

/**
 * Creates a job store in this process's memory. Jobs are lost when the
 * process ends; use {@linkcode createKvJobStore} or
 * {@linkcode createRedisJobStore} for work that must survive it.
 *
 * @example
 * ```ts
 * import { createJobQueue, createMemoryJobStore } from "@fetchkit/toolkit/jobs";
 *
 * const queue = createJobQueue({ store: createMemoryJobStore() });
 * queue.define("noop", () => {});
 * await queue.enqueue("noop", {});
 * await queue.stats(); // { waiting: 1, delayed: 0, active: 0, dead: 0 }
 * ```
 *
 * @returns The store.
 */
export function createMemoryJobStore(): JobStore {
  const queues = new Map<string, Queue>();
  let seq = 0;
  let adds = 0;
  const of = (name: string): Queue => {
    let queue = queues.get(name);
    if (queue === undefined) {
      queue = {
        jobs: new Map(),
        heap: [],
        active: new Set(),
        dead: new Map(),
        keys: new Map(),
        listeners: new Set(),
      };
      queues.set(name, queue);
    }
    return queue;
  };
  const notify = (queue: Queue) => {
    for (const listener of queue.listeners) listener();
  };
  const ready = (queue: Queue, entry: Entry, runAt: number) => {
    entry.state = "waiting";
    entry.job = { ...entry.job, runAt };
    entry.lease = undefined;
    entry.seq = seq++;
    push(queue.heap, entry);
  };
  const drop = (queue: Queue, entry: Entry, keyUntil: number) => {
    queue.jobs.delete(entry.job.id);
    queue.active.delete(entry);
    queue.dead.delete(entry.job.id);
    const key = entry.job.key;
    if (key !== undefined && queue.keys.get(key)?.id === entry.job.id) {
      if (keyUntil > 0) {
        queue.keys.set(key, { id: entry.job.id, until: keyUntil });
      } else queue.keys.delete(key);
    }
  };
  const owned = (queue: Queue, id: string, lease: string) => {
    const entry = queue.jobs.get(id);
    return entry !== undefined && entry.state === "active" &&
        entry.lease === lease
      ? entry
      : undefined;
  };

  return {
    kind: "memory",
    add(name, job) {
      const queue = of(name);
      // Finished jobs' keys past their retention, swept now and then so
      // a long-running process does not keep every key it ever saw.
      if (++adds % 1024 === 0) {
        const now = Date.now();
        for (const [key, held] of queue.keys) {
          if (held.until <= now) queue.keys.delete(key);
        }
      }
      if (job.key !== undefined) {
        const held = queue.keys.get(job.key);
        if (held !== undefined && held.until > Date.now()) {
          return Promise.resolve({ id: held.id, duplicate: true });
        }
        queue.keys.set(job.key, { id: job.id, until: Infinity });
      }
      const entry: Entry = {
        job,
        state: "waiting",
        attempts: 0,
        leaseUntil: 0,
        seq: seq++,
      };
      queue.jobs.set(job.id, entry);
      push(queue.heap, entry);
      notify(queue);
      return Promise.resolve({ id: job.id, duplicate: false });
    },
    claim(name, limit, now) {
      const queue = of(name);
      for (const entry of queue.active) {
        if (entry.leaseUntil > now) continue;
        queue.active.delete(entry);
        if (entry.attempts >= entry.job.maxAttempts) {
          entry.state = "dead";
          entry.lease = undefined;
          entry.error = "lease expired";
          entry.failedAt = now;
          queue.dead.set(entry.job.id, entry);
        } else ready(queue, entry, now);
      }
      const claimed: ClaimedJob[] = [];
      while (claimed.length < limit && queue.heap.length > 0) {
        const top = queue.heap[0];
        if (top.job.runAt > now) break;
        pop(queue.heap);
        // Removed or moved meanwhile: a stale heap entry.
        if (queue.jobs.get(top.job.id) !== top || top.state !== "waiting") {
          continue;
        }
        top.state = "active";
        top.attempts++;
        top.lease = crypto.randomUUID();
        top.leaseUntil = now + top.job.visibilityMs;
        queue.active.add(top);
        claimed.push({
          id: top.job.id,
          name: top.job.name,
          payload: top.job.payload,
          attempt: top.attempts,
          maxAttempts: top.job.maxAttempts,
          lease: top.lease,
          leaseUntil: top.leaseUntil,
        });
      }
      return Promise.resolve(claimed);
    },
    finish(name, id, lease, keyRetentionMs, now) {
      const queue = of(name);
      const entry = owned(queue, id, lease);
      if (entry === undefined) return Promise.resolve(false);
      drop(queue, entry, now + keyRetentionMs);
      return Promise.resolve(true);
    },
    fail(name, id, lease, failure) {
      const queue = of(name);
      const entry = owned(queue, id, lease);
      if (entry === undefined) return Promise.resolve(false);
      queue.active.delete(entry);
      entry.error = failure.error;
      if (failure.retryAt !== undefined) ready(queue, entry, failure.retryAt);
      else {
        entry.state = "dead";
        entry.lease = undefined;
        entry.failedAt = failure.now;
        queue.dead.set(id, entry);
      }
      return Promise.resolve(true);
    },
    release(name, id, lease) {
      const queue = of(name);
      const entry = owned(queue, id, lease);
      if (entry === undefined) return Promise.resolve(false);
      queue.active.delete(entry);
      entry.attempts--;
      ready(queue, entry, entry.job.runAt);
      notify(queue);
      return Promise.resolve(true);
    },
    dead(name, limit) {
      const queue = of(name);
      const list: DeadJob[] = [...queue.dead.values()]
        .sort((a, b) => b.failedAt! - a.failedAt!)
        .slice(0, limit)
        .map((entry) => ({
          id: entry.job.id,
          name: entry.job.name,
          payload: entry.job.payload,
          error: entry.error ?? "",
          attempts: entry.attempts,
          failedAt: entry.failedAt!,
        }));
      return Promise.resolve(list);
    },
    retry(name, id, now) {
      const queue = of(name);
      const entry = queue.dead.get(id);
      if (entry === undefined) return Promise.resolve(false);
      queue.dead.delete(id);
      entry.attempts = 0;
      entry.failedAt = undefined;
      ready(queue, entry, now);
      notify(queue);
      return Promise.resolve(true);
    },
    remove(name, id) {
      const queue = of(name);
      const entry = queue.jobs.get(id);
      if (entry === undefined || entry.state === "active") {
        return Promise.resolve(false);
      }
      drop(queue, entry, 0);
      return Promise.resolve(true);
    },
    counts(name, now) {
      const queue = of(name);
      const counts: JobCounts = {
        waiting: 0,
        delayed: 0,
        active: queue.active.size,
        dead: queue.dead.size,
      };
      for (const entry of queue.jobs.values()) {
        if (entry.state !== "waiting") continue;
        if (entry.job.runAt > now) counts.delayed++;
        else counts.waiting++;
      }
      return Promise.resolve(counts);
    },
    subscribe(name, listener) {
      const queue = of(name);
      queue.listeners.add(listener);
      return () => queue.listeners.delete(listener);
    },
  };
}
