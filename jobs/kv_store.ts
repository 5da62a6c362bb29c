/**
 * The Deno KV job store: each step is an atomic operation whose checks
 * (the versionstamps just read) make it compare-and-set, so several
 * processes on one database (a file, or Deno Deploy's KV) share a queue.
 *
 * @module
 */

import type { ClaimedJob, DeadJob, JobCounts, JobStore } from "./store.ts";
import { localListeners } from "./_listeners.ts";
import { retryWhileLocked } from "../store/locked_kv.ts";

/** A part of a KV key. */
export type JobKvKeyPart = string | number | bigint | boolean | Uint8Array;
/** A KV key. */
export type JobKvKey = readonly JobKvKeyPart[];

/** An atomic operation, as far as the store uses one. */
export interface JobKvAtomic {
  /** Fails the commit unless each key still has its versionstamp. */
  check(
    ...checks: { key: JobKvKey; versionstamp: string | null }[]
  ): JobKvAtomic;
  /** Writes `value` under `key`. */
  set(
    key: JobKvKey,
    value: unknown,
    options?: { expireIn?: number },
  ): JobKvAtomic;
  /** Deletes `key`. */
  delete(key: JobKvKey): JobKvAtomic;
  /** Applies the operation if every check holds. */
  commit(): Promise<{ ok: boolean }>;
}

/**
 * The part of Deno KV the store uses: `Deno.Kv` (`await Deno.openKv()`)
 * and `npm:@deno/kv`'s client both fit.
 */
export interface JobKv {
  /** Reads one entry. */
  get(key: JobKvKey): Promise<{ value: unknown; versionstamp: string | null }>;
  /** Reads several entries (at most 10). */
  getMany(
    keys: JobKvKey[],
  ): Promise<{ value: unknown; versionstamp: string | null }[]>;
  /** Lists entries by prefix or range. */
  list(
    selector: { prefix: JobKvKey } | { start: JobKvKey; end: JobKvKey } | {
      prefix: JobKvKey;
      start: JobKvKey;
    } | { prefix: JobKvKey; end: JobKvKey },
    options?: { limit?: number; reverse?: boolean },
  ): AsyncIterable<{ key: readonly unknown[] }>;
  /** Starts an atomic operation. */
  atomic(): JobKvAtomic;
}

/** Options of {@linkcode createKvJobStore}. */
export interface KvJobStoreOptions {
  /** First part of every key. Default `"jobs"`. */
  prefix?: string;
}

/** A job's state entry (the payload is kept apart, in chunks). */
interface Record {
  /** name */
  n: string;
  /** max attempts */
  m: number;
  /** visibility ms */
  v: number;
  /** de-duplication key */
  k: string | null;
  /** attempts made */
  a: number;
  /** state: waiting (incl. delayed), active, dead */
  s: "w" | "a" | "x";
  /** runAt (waiting), leaseUntil (active) or failedAt (dead): its index key */
  t: number;
  /** lease (active) */
  l: string | null;
  /** last error */
  e: string | null;
  /** payload chunks */
  c: number;
}

/**
 * KV holds at most 64 KiB per value; a payload is kept apart from the
 * job's state, in chunks of this many bytes, so a 64 KiB payload (the
 * queue's default limit) is two entries and a larger limit is allowed
 * up to what one atomic operation may write (800 KiB).
 */
const CHUNK_BYTES = 60_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Creates a job store on Deno KV (`Deno.openKv()`, or `npm:@deno/kv` on
 * Node and Bun). Processes that open the same database share the queue:
 * a claim is an atomic operation checked against the versionstamps it
 * read, so one job goes to one worker; a lost race just tries the next
 * job. Keys: `[prefix, queue, "j", id]` the job's state,
 * `[prefix, queue, "p", id, n]` its payload in chunks of 60,000 bytes,
 * and indexes by time of the waiting (`"r"`, by `runAt`), active (`"a"`,
 * by lease end) and dead (`"x"`) jobs, and `[prefix, queue, "k", key]`
 * the de-duplication keys (with their own expiry time: KV's `expireIn`
 * is lazy). Deno KV's own `enqueue`/`listenQueue` is not used: it cannot
 * list, count, hand back or revive a job, and one database delivers to
 * one listener per process (BENCHMARKS.md compares both). `database is
 * locked` (processes sharing a local file write at once) is retried with
 * jittered backoff for up to 2 s, like every KV store of the package. Each write is
 * a SQLite commit (a few hundred jobs a second on a local file);
 * `stats()` counts by listing the indexes, so it reads every job.
 *
 * @example
 * ```ts
 * import { createJobQueue, createKvJobStore } from "@fetchkit/toolkit/jobs";
 *
 * const kv = await Deno.openKv(":memory:");
 * const queue = createJobQueue({ store: createKvJobStore(kv) });
 * queue.define("noop", () => {});
 * await queue.enqueue("noop", {});
 * await queue.stats(); // { waiting: 1, delayed: 0, active: 0, dead: 0 }
 * kv.close();
 * ```
 *
 * @param database An open database.
 * @param options The key prefix.
 * @returns The store.
 */
export function createKvJobStore(
  database: JobKv,
  options: KvJobStoreOptions = {},
): JobStore {
  if (database === null || typeof database !== "object") {
    throw new TypeError("createKvJobStore(): an open Deno KV is required");
  }
  const kv = retryWhileLocked(database);
  const prefix = options.prefix ?? "jobs";
  const listeners = localListeners();
  const k = (queue: string, ...rest: JobKvKeyPart[]): JobKvKey => [
    prefix,
    queue,
    ...rest,
  ];
  const indexOf = (queue: string, id: string, record: Record): JobKvKey =>
    k(queue, record.s === "w" ? "r" : record.s, record.t, id);

  async function readPayload(
    queue: string,
    id: string,
    chunks: number,
  ): Promise<string> {
    const parts: Uint8Array[] = [];
    for (let i = 0; i < chunks; i += 10) {
      const keys: JobKvKey[] = [];
      for (let j = i; j < Math.min(chunks, i + 10); j++) {
        keys.push(k(queue, "p", id, j));
      }
      for (const entry of await kv.getMany(keys)) {
        parts.push(entry.value as Uint8Array);
      }
    }
    if (parts.length === 1) return decoder.decode(parts[0]);
    const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const part of parts) {
      all.set(part, at);
      at += part.byteLength;
    }
    return decoder.decode(all);
  }

  async function getRecord(
    queue: string,
    id: string,
  ): Promise<{ record: Record | null; versionstamp: string | null }> {
    const entry = await kv.get(k(queue, "j", id));
    return {
      record: entry.value as Record | null,
      versionstamp: entry.versionstamp,
    };
  }

  /** Moves a job to a new state in one checked operation. */
  function move(
    queue: string,
    id: string,
    from: Record,
    versionstamp: string | null,
    to: Record,
  ): JobKvAtomic {
    return kv.atomic()
      .check({ key: k(queue, "j", id), versionstamp })
      .delete(indexOf(queue, id, from))
      .set(k(queue, "j", id), to)
      .set(indexOf(queue, id, to), null);
  }

  async function owned(queue: string, id: string, lease: string) {
    const { record, versionstamp } = await getRecord(queue, id);
    return record !== null && record.s === "a" && record.l === lease
      ? { record, versionstamp }
      : undefined;
  }

  async function count(selector: { start: JobKvKey; end: JobKvKey }) {
    let n = 0;
    for await (const _ of kv.list(selector)) n++;
    return n;
  }

  return {
    kind: "Deno KV",
    async add(queue, job) {
      const bytes = encoder.encode(job.payload);
      const chunks = Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES));
      const record: Record = {
        n: job.name,
        m: job.maxAttempts,
        v: job.visibilityMs,
        k: job.key ?? null,
        a: 0,
        s: "w",
        t: job.runAt,
        l: null,
        e: null,
        c: chunks,
      };
      for (let tries = 0;; tries++) {
        const operation = kv.atomic();
        if (job.key !== undefined) {
          const held = await kv.get(k(queue, "k", job.key));
          const value = held.value as { id: string; until: number } | null;
          if (
            value !== null && (value.until === 0 || value.until > Date.now())
          ) {
            return { id: value.id, duplicate: true };
          }
          operation.check({
            key: k(queue, "k", job.key),
            versionstamp: held.versionstamp,
          }).set(k(queue, "k", job.key), { id: job.id, until: 0 });
        }
        operation.set(k(queue, "j", job.id), record)
          .set(indexOf(queue, job.id, record), null);
        for (let i = 0; i < chunks; i++) {
          operation.set(
            k(queue, "p", job.id, i),
            bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES),
          );
        }
        if ((await operation.commit()).ok) break;
        if (tries > 50) throw new Error("Deno KV: enqueue kept conflicting");
      }
      listeners.notify(queue);
      return { id: job.id, duplicate: false };
    },
    async claim(queue, limit, now) {
      // Leases that passed: back to waiting, or dead after the last attempt.
      for await (
        const entry of kv.list({
          start: k(queue, "a"),
          end: k(queue, "a", now + 1),
        }, { limit: 20 })
      ) {
        const id = entry.key[4] as string;
        const { record, versionstamp } = await getRecord(queue, id);
        if (record === null || record.s !== "a") continue;
        const dead = record.a >= record.m;
        await move(queue, id, record, versionstamp, {
          ...record,
          s: dead ? "x" : "w",
          t: now,
          l: null,
          e: dead ? "lease expired" : record.e,
        }).commit();
      }
      const claimed: ClaimedJob[] = [];
      // Candidates a little beyond `limit`: another process taking the
      // first ones leaves these.
      const candidates: string[] = [];
      for await (
        const entry of kv.list({
          start: k(queue, "r"),
          end: k(queue, "r", now + 1),
        }, { limit: limit * 2 + 2 })
      ) candidates.push(entry.key[4] as string);
      for (const id of candidates) {
        if (claimed.length >= limit) break;
        try {
          const { record, versionstamp } = await getRecord(queue, id);
          if (record === null || record.s !== "w" || record.t > now) continue;
          // Read before the claim commits: a failure after it would
          // leave the job claimed by nobody until its lease passed.
          const payload = await readPayload(queue, id, record.c);
          const lease = crypto.randomUUID();
          const next: Record = {
            ...record,
            s: "a",
            a: record.a + 1,
            l: lease,
            t: now + record.v,
          };
          const operation = move(queue, id, record, versionstamp, next);
          if (!(await operation.commit()).ok) continue;
          claimed.push({
            id,
            name: record.n,
            payload,
            attempt: next.a,
            maxAttempts: record.m,
            lease,
            leaseUntil: next.t,
          });
        } catch (error) {
          // Jobs already claimed go to the worker; the error waits for
          // the next call.
          if (claimed.length > 0) break;
          throw error;
        }
      }
      return claimed;
    },
    async finish(queue, id, lease, keyRetentionMs, now) {
      const found = await owned(queue, id, lease);
      if (found === undefined) return false;
      const { record, versionstamp } = found;
      const operation = kv.atomic()
        .check({ key: k(queue, "j", id), versionstamp })
        .delete(k(queue, "j", id))
        .delete(indexOf(queue, id, record));
      for (let i = 0; i < record.c; i++) {
        operation.delete(k(queue, "p", id, i));
      }
      if (record.k !== null) {
        operation.set(k(queue, "k", record.k), {
          id,
          until: now + keyRetentionMs,
        }, { expireIn: keyRetentionMs + 60_000 });
      }
      return (await operation.commit()).ok;
    },
    async fail(queue, id, lease, failure) {
      const found = await owned(queue, id, lease);
      if (found === undefined) return false;
      const { record, versionstamp } = found;
      const dead = failure.retryAt === undefined;
      return (await move(queue, id, record, versionstamp, {
        ...record,
        s: dead ? "x" : "w",
        t: dead ? failure.now : failure.retryAt!,
        l: null,
        e: failure.error,
      }).commit()).ok;
    },
    async release(queue, id, lease) {
      const found = await owned(queue, id, lease);
      if (found === undefined) return false;
      const { record, versionstamp } = found;
      const ok = (await move(queue, id, record, versionstamp, {
        ...record,
        s: "w",
        a: record.a - 1,
        t: 0, // first in line
        l: null,
      }).commit()).ok;
      if (ok) listeners.notify(queue);
      return ok;
    },
    async dead(queue, limit) {
      const jobs: DeadJob[] = [];
      for await (
        const entry of kv.list({ prefix: k(queue, "x") }, {
          limit,
          reverse: true,
        })
      ) {
        const id = entry.key[4] as string;
        const { record } = await getRecord(queue, id);
        if (record === null || record.s !== "x") continue;
        jobs.push({
          id,
          name: record.n,
          payload: await readPayload(queue, id, record.c),
          error: record.e ?? "",
          attempts: record.a,
          failedAt: record.t,
        });
      }
      return jobs;
    },
    async retry(queue, id, now) {
      const { record, versionstamp } = await getRecord(queue, id);
      if (record === null || record.s !== "x") return false;
      const ok = (await move(queue, id, record, versionstamp, {
        ...record,
        s: "w",
        a: 0,
        t: now,
      }).commit()).ok;
      if (ok) listeners.notify(queue);
      return ok;
    },
    async remove(queue, id) {
      const { record, versionstamp } = await getRecord(queue, id);
      if (record === null || record.s === "a") return false;
      const operation = kv.atomic()
        .check({ key: k(queue, "j", id), versionstamp })
        .delete(k(queue, "j", id))
        .delete(indexOf(queue, id, record));
      for (let i = 0; i < record.c; i++) {
        operation.delete(k(queue, "p", id, i));
      }
      if (record.k !== null) {
        const held = await kv.get(k(queue, "k", record.k));
        if ((held.value as { id?: string } | null)?.id === id) {
          operation.check({
            key: k(queue, "k", record.k),
            versionstamp: held.versionstamp,
          }).delete(k(queue, "k", record.k));
        }
      }
      return (await operation.commit()).ok;
    },
    async counts(queue, now) {
      const counts: JobCounts = {
        waiting: await count({
          start: k(queue, "r"),
          end: k(queue, "r", now + 1),
        }),
        delayed: await count({
          start: k(queue, "r", now + 1),
          end: k(queue, "r", Number.MAX_VALUE),
        }),
        active: await count({
          start: k(queue, "a"),
          end: k(queue, "a", Number.MAX_VALUE),
        }),
        dead: await count({
          start: k(queue, "x"),
          end: k(queue, "x", Number.MAX_VALUE),
        }),
      };
      return counts;
    },
    subscribe: listeners.subscribe,
  };
}
