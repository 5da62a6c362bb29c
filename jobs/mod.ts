/**
 * Durable background jobs: work that must not be lost (mail, webhooks,
 * exports) stored in the app's store and run by workers in any process.
 *
 * ```ts
 * import { createJobQueue, createMemoryJobStore } from "@fetchkit/toolkit/jobs";
 *
 * const queue = createJobQueue({ store: createMemoryJobStore() });
 * queue.define<{ to: string }>("welcome", async (payload, job) => {
 *   // job.id is the same on every attempt: an idempotency key for the mail API.
 *   void payload.to, job.id;
 * }, { attempts: 5, timeoutMs: 30_000 });
 * const { id } = await queue.enqueue("welcome", { to: "ada@example.com" }, { key: "welcome:ada" });
 * const worker = queue.work({ concurrency: 4 });
 * await worker.stop({ graceMs: 1000 });
 * typeof id; // "string"
 * ```
 *
 * ## Semantics
 *
 * - **At least once.** A job runs until one attempt succeeds (the handler
 *   returns or resolves). A worker that dies mid-job (`SIGKILL`, a
 *   crash, a lost machine) holds the job only until its **visibility
 *   timeout** (`timeoutMs + 30 s` by default, `visibilityTimeoutMs` per
 *   job name, as defined where the job was enqueued: it is stored with
 *   the job): then another worker takes it, and that run counts as the
 *   next attempt. So a job may run more than once: make handlers
 *   idempotent; `job.id` is the same on every attempt.
 * - **Retries.** A throw, a rejection or running past `timeoutMs` (the
 *   handler's `job.signal` aborts) is a failed attempt; the job waits
 *   `initialMs * 2^(attempt-1)` (at most `maxMs`, a random point in the
 *   upper half of that: jitter) and runs again, up to `attempts` (5).
 *   Then it is **dead**: kept with its last error in `deadLetters()`
 *   until `retry(id)` (back to waiting, attempts reset) or `remove(id)`.
 * - **De-duplication.** `enqueue(name, payload, { key })`: while a job
 *   with that key is waiting, delayed, active or dead, or finished less
 *   than `keyRetentionMs` (24 h) ago, a second enqueue stores nothing
 *   and returns the first id with `duplicate: true`.
 * - **Bad input stores nothing.** An unknown job name, a payload that
 *   fails the job's `schema` (any Standard Schema: zod, valibot...), that
 *   is not JSON, or that is over `maxPayloadBytes` (64 KiB as JSON) is a
 *   `TypeError` saying which and the limit.
 * - **Outages.** Every store call has a time limit (`storeTimeoutMs`,
 *   5 s). A store that is down or too slow makes `enqueue()` throw
 *   `StoreUnavailableError` (a `503` with `Retry-After` through the
 *   router). Workers pause (one log line), retry with a growing pause
 *   up to 5 s, and resume by themselves (one line); a job a worker had
 *   already run is marked done or failed once the store answers again,
 *   so it is not lost (and runs again only if its lease passed meanwhile).
 * - **Stopping.** `worker.stop({ graceMs })` takes no new jobs, waits up
 *   to `graceMs` (10 s) for the active ones, then aborts their signals
 *   and hands them back: waiting again at once, the attempt not counted.
 *   A worker also stops when this process's `serve()` (from
 *   `@fetchkit/toolkit/serve`) begins its shutdown on `SIGTERM`/`SIGINT`
 *   (`stopWithServer`, default on; `shutdownGraceMs`, 8 s; `serve()` waits for the worker within its `shutdownTimeoutMs`) or when its
 *   `signal` aborts.
 * - **Logs.** One line per failed attempt (job name, id, attempt, error
 *   message, what happens next), one when a worker pauses and resumes;
 *   none per success unless `logSuccess`. Payloads are never logged
 *   (they hold emails and tokens).
 * - **Order.** Jobs run oldest `runAt` first; with several workers and
 *   retries, order is not guaranteed.
 *
 * ## Stores
 *
 * - {@linkcode createMemoryJobStore}: one process; for tests.
 * - {@linkcode createKvJobStore}: Deno KV (a file shared by the
 *   processes of one machine, or Deno Deploy's KV); claims are atomic
 *   compare-and-set operations.
 * - {@linkcode createRedisJobStore}: Redis or Valkey, one node or a
 *   cluster (a queue's keys share one hash tag), every step one Lua
 *   script.
 *
 * @module
 */

export {
  createJobQueue,
  type DeadLetter,
  type Job,
  jobBackoffMs,
  type JobDefineOptions,
  type JobEnqueueOptions,
  type JobEnqueueResult,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
  type JobSettled,
  type JobStopOptions,
  type JobWorker,
  type JobWorkOptions,
} from "./queue.ts";
export { createMemoryJobStore } from "./memory_store.ts";
export {
  createKvJobStore,
  type JobKv,
  type JobKvAtomic,
  type JobKvKey,
  type JobKvKeyPart,
  type KvJobStoreOptions,
} from "./kv_store.ts";
export {
  createRedisJobStore,
  type RedisJobClient,
  type RedisJobStoreOptions,
} from "./redis_store.ts";
export type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
export type {
  ClaimedJob,
  DeadJob,
  JobCounts,
  JobStore,
  NewJob,
} from "./store.ts";
