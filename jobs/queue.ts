/**
 * The job queue: definitions, enqueueing with checks, and the worker
 * loop over a {@linkcode JobStore}.
 *
 * @module
 */

import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { DEFAULT_STORE_TIMEOUT_MS, withTimeout } from "../store/timeout.ts";
import { onDrain } from "../serve/draining.ts";
import { workRegistry } from "../serve/shared.ts";
import type { ClaimedJob, DeadJob, JobCounts, JobStore } from "./store.ts";

/** What a handler gets besides the payload. */
export interface Job {
  /** The job's id: the same on every attempt (make handlers idempotent with it). */
  readonly id: string;
  /** The job's name. */
  readonly name: string;
  /** This attempt, 1-based. */
  readonly attempt: number;
  /** Aborted at the job's timeout, or when the worker stops before it ends. */
  readonly signal: AbortSignal;
}

/** Runs one job; a throw (or rejection) is a failed attempt. */
export type JobHandler<P> = (payload: P, job: Job) => unknown;

/** Options of `queue.define()`. */
export interface JobDefineOptions<P = unknown> {
  /** Attempts before the job is dead. Default `5`. */
  attempts?: number;
  /** Pause before attempt n+1: `initialMs * 2^(n-1)` up to `maxMs`, with jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Time one attempt may take; then its signal aborts and it counts as failed. Default `30_000`. */
  timeoutMs?: number;
  /**
   * How long a claim lasts before another worker may run the job (the
   * worker died). Default `timeoutMs + 30_000`.
   */
  visibilityTimeoutMs?: number;
  /** Checks each payload at `enqueue()`; the handler gets the schema's output. */
  schema?: StandardSchemaV1<unknown, P>;
}

/** Options of `queue.enqueue()`. */
export interface JobEnqueueOptions {
  /** Run no sooner than this many ms from now. */
  delayMs?: number;
  /**
   * De-duplication key: while a job with this key is waiting, delayed,
   * active, dead or finished within `keyRetentionMs`, enqueueing again
   * returns its id with `duplicate: true` and stores nothing.
   */
  key?: string;
}

/** What `enqueue()` resolves to. */
export interface JobEnqueueResult {
  /** The job's id (the first job's, for a duplicate). */
  id: string;
  /** `true` when `key` was held and nothing was added. */
  duplicate: boolean;
}

/** Options of `queue.work()`. */
export interface JobWorkOptions {
  /** Jobs run at once by this worker. Default `1`. */
  concurrency?: number;
  /** How often an idle worker asks the store for jobs (ms). Default `1000`. */
  pollMs?: number;
  /** Stops the worker (with `shutdownGraceMs`) when aborted. */
  signal?: AbortSignal;
  /**
   * Stop the worker when this process's `serve()` begins a shutdown
   * (`SIGTERM`, `SIGINT`, `server.shutdown()`). Default `true`.
   */
  stopWithServer?: boolean;
  /**
   * The grace period of a stop caused by `signal` or `serve()`. Default
   * `8_000`: within `serve()`'s `shutdownTimeoutMs` (10 s), with time
   * left to hand the rest back.
   */
  shutdownGraceMs?: number;
}

/** Options of `worker.stop()`. */
export interface JobStopOptions {
  /** How long active jobs may take to finish before they are handed back. Default `10_000`. */
  graceMs?: number;
}

/** A worker started by `queue.work()`. */
export interface JobWorker {
  /**
   * Takes no new jobs, waits up to `graceMs` for active ones, then aborts
   * the rest and hands them back to the store (waiting again, the attempt
   * not counted). Resolves once done; calling it again returns the same.
   */
  stop(options?: JobStopOptions): Promise<void>;
}

/**
 * One attempt's end, as `onSettled` sees it: `"done"` (the handler
 * returned), `"retry"` (it failed and will run again after its backoff) or
 * `"dead"` (it failed with no attempts left, or no handler is defined in
 * this worker and attempts ran out).
 */
export interface JobSettled {
  /** The job's id. */
  readonly id: string;
  /** The job's name. */
  readonly name: string;
  /** The attempt that ended, 1-based. */
  readonly attempt: number;
  /** How the attempt ended. */
  readonly outcome: "done" | "retry" | "dead";
  /** How long the handler ran (ms). */
  readonly durationMs: number;
}

/** Options of {@linkcode createJobQueue}. */
export interface JobQueueOptions {
  /** Where jobs are kept. */
  store: JobStore;
  /** The queue's name: queues of one store are kept apart by it. Default `"default"`. */
  name?: string;
  /** Largest payload, as JSON bytes. Default `65_536`. */
  maxPayloadBytes?: number;
  /** How long a finished job's key still de-duplicates. Default 24 hours. */
  keyRetentionMs?: number;
  /** Time limit of every store call (ms). Default `5000`. */
  storeTimeoutMs?: number;
  /** Where failures (one line each) and pauses go. Default `console.error`. */
  log?: (line: string) => void;
  /** Also log one line per success. Default `false`. */
  logSuccess?: boolean;
  /**
   * Called once per attempt as it ends, in the worker that ran it, before
   * the store records the end: for metrics (jobs by outcome). A throw
   * here is logged and changes nothing.
   *
   * @example Counting jobs by outcome
   * ```ts
   * import { createJobQueue, createMemoryJobStore } from "@fetchkit/toolkit/jobs";
   * import { createMetricsRegistry } from "@fetchkit/toolkit/metrics";
   *
   * const registry = createMetricsRegistry();
   * const jobs = registry.counter({
   *   name: "jobs_total",
   *   help: "Job attempts by outcome.",
   *   labelNames: ["name", "outcome"],
   * });
   * const queue = createJobQueue({
   *   store: createMemoryJobStore(),
   *   onSettled: ({ name, outcome }) => jobs.inc({ name, outcome }),
   * });
   * ```
   */
  onSettled?: (event: JobSettled) => void;
}

/** A queue of durable jobs. */
export interface JobQueue {
  /** The queue's name. */
  readonly name: string;
  /** Defines a job name and its handler. */
  define<P>(
    name: string,
    handler: JobHandler<P>,
    options?: JobDefineOptions<P>,
  ): void;
  /** Stores a job; throws `TypeError` for bad input, `StoreUnavailableError` when the store is down. */
  enqueue(
    name: string,
    payload: unknown,
    options?: JobEnqueueOptions,
  ): Promise<JobEnqueueResult>;
  /** Starts a worker in this process. */
  work(options?: JobWorkOptions): JobWorker;
  /** Jobs that used all their attempts, most recent first (default limit 100). */
  deadLetters(options?: { limit?: number }): Promise<DeadLetter[]>;
  /** Moves a dead job back to waiting, its attempts reset; `false` when it is not dead. */
  retry(id: string): Promise<boolean>;
  /** Deletes a job that is not active; `false` when there is none. */
  remove(id: string): Promise<boolean>;
  /** Jobs per state. */
  stats(): Promise<JobCounts>;
}

/** A job in the dead-letter list. */
export interface DeadLetter {
  /** The job's id (for `retry(id)` and `remove(id)`). */
  id: string;
  /** The job name. */
  name: string;
  /** The payload, as the handler would get it. */
  payload: unknown;
  /** The last error's message. */
  error: string;
  /** Attempts made. */
  attempts: number;
  /** When it died. */
  failedAt: Date;
}

interface Definition {
  handler: JobHandler<unknown>;
  attempts: number;
  initialMs: number;
  maxMs: number;
  timeoutMs: number;
  visibilityMs: number;
  schema?: StandardSchemaV1<unknown, unknown>;
}

const encoder = new TextEncoder();

/** A worker's view of its store: pauses and resumptions, logged once each. */
interface Health {
  failed(error: unknown): void;
  ok(): void;
  /** Consecutive failed calls. */
  readonly failures: number;
}

function positive(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0)) {
    throw new TypeError(`${what} must be a positive number, got ${value}`);
  }
  return value;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[\r\n]+/g, " ").slice(0, 500);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The pause before the next attempt after attempt `attempt` failed:
 * exponential (`initialMs * 2^(attempt-1)`, at most `maxMs`), with
 * "equal jitter" (a random point in its upper half), so retries of many
 * jobs that failed together spread out.
 */
export function jobBackoffMs(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 40));
  return Math.round(base / 2 + random() * base / 2);
}

/**
 * Creates a queue of durable jobs on `store`. See the module docs for
 * the semantics (at least once, retries, dead letters).
 *
 * @example
 * ```ts
 * import { createJobQueue, createMemoryJobStore } from "@fetchkit/toolkit/jobs";
 *
 * const queue = createJobQueue({ store: createMemoryJobStore() });
 * const sent: string[] = [];
 * queue.define<{ to: string }>("welcome", (payload) => {
 *   sent.push(payload.to);
 * });
 * await queue.enqueue("welcome", { to: "ada@example.com" });
 * const worker = queue.work({ concurrency: 2 });
 * while (sent.length === 0) await new Promise((r) => setTimeout(r, 5));
 * await worker.stop();
 * sent; // ["ada@example.com"]
 * ```
 *
 * @param options The store, the queue's name and limits.
 * @returns The queue.
 */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { store } = options;
  if (store === null || typeof store !== "object") {
    throw new TypeError("createJobQueue(): store is required");
  }
  const queueName = options.name ?? "default";
  if (typeof queueName !== "string" || queueName === "") {
    throw new TypeError("createJobQueue(): name must be a non-empty string");
  }
  const maxPayloadBytes = positive(
    options.maxPayloadBytes,
    "createJobQueue(): maxPayloadBytes",
    65_536,
  );
  const keyRetentionMs = positive(
    options.keyRetentionMs,
    "createJobQueue(): keyRetentionMs",
    24 * 60 * 60_000,
  );
  const storeTimeoutMs = positive(
    options.storeTimeoutMs,
    "createJobQueue(): storeTimeoutMs",
    DEFAULT_STORE_TIMEOUT_MS,
  );
  const log = options.log ?? ((line: string) => console.error(line));
  const onSettled = options.onSettled;
  const definitions = new Map<string, Definition>();

  function call<T>(what: string, operation: () => Promise<T>): Promise<T> {
    return withTimeout(operation, storeTimeoutMs, { store: store.kind, what });
  }

  function define<P>(
    name: string,
    handler: JobHandler<P>,
    defineOptions: JobDefineOptions<P> = {},
  ): void {
    if (typeof name !== "string" || name === "") {
      throw new TypeError("define(): the job name must be a non-empty string");
    }
    if (typeof handler !== "function") {
      throw new TypeError(`define("${name}"): the handler must be a function`);
    }
    if (definitions.has(name)) {
      throw new TypeError(`define(): job "${name}" is already defined`);
    }
    const attempts = positive(
      defineOptions.attempts,
      `define("${name}"): attempts`,
      5,
    );
    if (!Number.isInteger(attempts)) {
      throw new TypeError(
        `define("${name}"): attempts must be an integer, got ${attempts}`,
      );
    }
    const timeoutMs = positive(
      defineOptions.timeoutMs,
      `define("${name}"): timeoutMs`,
      30_000,
    );
    definitions.set(name, {
      handler: handler as JobHandler<unknown>,
      attempts,
      initialMs: positive(
        defineOptions.backoff?.initialMs,
        `define("${name}"): backoff.initialMs`,
        1000,
      ),
      maxMs: positive(
        defineOptions.backoff?.maxMs,
        `define("${name}"): backoff.maxMs`,
        5 * 60_000,
      ),
      timeoutMs,
      visibilityMs: positive(
        defineOptions.visibilityTimeoutMs,
        `define("${name}"): visibilityTimeoutMs`,
        timeoutMs + 30_000,
      ),
      schema: defineOptions.schema as
        | StandardSchemaV1<unknown, unknown>
        | undefined,
    });
  }

  async function enqueue(
    name: string,
    payload: unknown,
    enqueueOptions: JobEnqueueOptions = {},
  ): Promise<JobEnqueueResult> {
    const definition = definitions.get(name);
    if (definition === undefined) {
      throw new TypeError(
        `enqueue(): unknown job name "${name}"; define() it first`,
      );
    }
    const { delayMs = 0, key } = enqueueOptions;
    if (typeof delayMs !== "number" || !(delayMs >= 0)) {
      throw new TypeError(
        `enqueue("${name}"): delayMs must be a number >= 0, got ${delayMs}`,
      );
    }
    if (key !== undefined && (typeof key !== "string" || key === "")) {
      throw new TypeError(`enqueue("${name}"): key must be a non-empty string`);
    }
    if (key !== undefined && key.length > 512) {
      throw new TypeError(
        `enqueue("${name}"): key is ${key.length} characters, over the limit of 512`,
      );
    }
    let value = payload;
    if (definition.schema !== undefined) {
      const result = await definition.schema["~standard"].validate(payload);
      if (result.issues !== undefined) {
        const issues = result.issues.slice(0, 5).map((issue) => {
          const path = issue.path?.map((part) =>
            typeof part === "object" ? String(part.key) : String(part)
          ).join(".");
          return path ? `${path}: ${issue.message}` : issue.message;
        }).join("; ");
        throw new TypeError(
          `enqueue("${name}"): the payload fails the job's schema: ${issues}`,
        );
      }
      value = result.value;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(value ?? null);
    } catch (error) {
      throw new TypeError(
        `enqueue("${name}"): the payload cannot be stored as JSON: ${
          messageOf(error)
        }`,
      );
    }
    if (json === undefined) {
      throw new TypeError(
        `enqueue("${name}"): the payload cannot be stored as JSON`,
      );
    }
    const bytes = json.length * 3 <= maxPayloadBytes
      ? json.length // cannot be over: skip encoding
      : encoder.encode(json).byteLength;
    if (bytes > maxPayloadBytes) {
      throw new TypeError(
        `enqueue("${name}"): the payload is ${bytes} bytes as JSON, over the limit of ${maxPayloadBytes} (maxPayloadBytes)`,
      );
    }
    const id = crypto.randomUUID();
    return await call("enqueue job", () =>
      store.add(queueName, {
        id,
        name,
        payload: json,
        maxAttempts: definition.attempts,
        visibilityMs: definition.visibilityMs,
        runAt: Date.now() + delayMs,
        key,
      }));
  }

  /**
   * Repeats a store call that settles a claimed job through an outage,
   * so a worker never drops a job it ran: it waits and tries again until
   * the store answers (or `giveUp()` says the result no longer matters).
   */
  async function settle(
    what: string,
    operation: () => Promise<boolean>,
    giveUp: () => boolean = () => false,
    health?: Health,
  ): Promise<boolean> {
    let pause = 100;
    for (;;) {
      try {
        const result = await call(what, operation);
        health?.ok();
        return result;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError) || giveUp()) throw error;
        health?.failed(error);
        await sleep(pause);
        pause = Math.min(pause * 2, 5000);
      }
    }
  }

  function work(workOptions: JobWorkOptions = {}): JobWorker {
    const concurrency = positive(
      workOptions.concurrency,
      "work(): concurrency",
      1,
    );
    const pollMs = positive(workOptions.pollMs, "work(): pollMs", 1000);
    const shutdownGraceMs = workOptions.shutdownGraceMs ?? 8_000;
    const active = new Map<
      string,
      { job: ClaimedJob; controller: AbortController; done: Promise<void> }
    >();
    let stopping = false;
    let stopped: Promise<void> | undefined;
    let wake: (() => void) | undefined;
    const nudge = () => {
      const resolve = wake;
      wake = undefined;
      resolve?.();
    };
    const unsubscribe = store.subscribe?.(queueName, nudge);
    // A single failure (a locked database under contention) is retried
    // quietly; the second in a row, of any call, is an outage, logged
    // once, as is the first success after it.
    let failures = 0;
    const health: Health = {
      get failures() {
        return failures;
      },
      failed(error) {
        if (++failures === 2) {
          log(
            `Job worker (${queueName}): paused, ${store.kind} unavailable: ${
              messageOf(error)
            }`,
          );
        }
      },
      ok() {
        if (failures >= 2) {
          log(`Job worker (${queueName}): ${store.kind} is back; resumed`);
        }
        failures = 0;
      },
    };

    async function run(
      job: ClaimedJob,
      controller: AbortController,
    ): Promise<void> {
      const definition = definitions.get(job.name);
      let error: unknown;
      let ok = false;
      const started = performance.now();
      if (definition === undefined) {
        error = new Error(`no handler for job "${job.name}" in this worker`);
      } else {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          const payload = JSON.parse(job.payload);
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              const reason = new Error(
                `timed out after ${definition.timeoutMs} ms`,
              );
              controller.abort(reason);
              reject(reason);
            }, definition.timeoutMs);
          });
          const aborted = new Promise<never>((_, reject) => {
            controller.signal.addEventListener(
              "abort",
              () => reject(controller.signal.reason),
              { once: true },
            );
          });
          aborted.catch(() => {});
          timeout.catch(() => {});
          await Promise.race([
            Promise.resolve().then(() =>
              definition.handler(payload, {
                id: job.id,
                name: job.name,
                attempt: job.attempt,
                signal: controller.signal,
              })
            ),
            timeout,
            aborted,
          ]);
          ok = true;
        } catch (caught) {
          error = caught;
        } finally {
          clearTimeout(timer);
        }
      }
      // Handed back at stop(): the store already has it.
      const current = active.get(job.id);
      if (current === undefined || current.controller !== controller) return;
      const last = !ok &&
        job.attempt >= (definition?.attempts ?? job.maxAttempts);
      if (onSettled !== undefined) {
        try {
          onSettled({
            id: job.id,
            name: job.name,
            attempt: job.attempt,
            outcome: ok ? "done" : last ? "dead" : "retry",
            durationMs: performance.now() - started,
          });
        } catch (e) {
          log(`Job ${job.name} ${job.id}: onSettled threw: ${messageOf(e)}`);
        }
      }
      if (ok) {
        if (options.logSuccess) {
          log(`Job done: ${job.name} ${job.id} attempt ${job.attempt}`);
        }
        // With a store that can, the next job comes in the same round
        // trip (one slot: this job's).
        let next: ClaimedJob[] = [];
        await settle(
          "finish job",
          async () => {
            if (store.finishAndClaim === undefined || stopping) {
              return await store.finish(
                queueName,
                job.id,
                job.lease,
                keyRetentionMs,
                Date.now(),
              );
            }
            const result = await store.finishAndClaim(
              queueName,
              job.id,
              job.lease,
              keyRetentionMs,
              Date.now(),
              1,
            );
            next = result.claimed;
            return result.finished;
          },
          () => Date.now() > job.leaseUntil,
          health,
        ).catch((e) =>
          log(
            `Job ${job.name} ${job.id}: could not be marked done: ${
              messageOf(e)
            }`,
          )
        );
        for (const claimed of next) {
          if (!stopping) start(claimed);
          else {
            await settle(
              "release job",
              () => store.release(queueName, claimed.id, claimed.lease),
              () => true,
            ).catch(() => {});
          }
        }
        return;
      }
      const retryAt = last ? undefined : Date.now() + jobBackoffMs(
        job.attempt,
        definition?.initialMs ?? 1000,
        definition?.maxMs ?? 300_000,
      );
      log(
        `Job failed: ${job.name} ${job.id} attempt ${job.attempt}/${job.maxAttempts}: ${
          messageOf(error)
        }${
          retryAt === undefined
            ? " (dead: no attempts left)"
            : ` (retry in ${((retryAt - Date.now()) / 1000).toFixed(1)} s)`
        }`,
      );
      await settle(
        "fail job",
        () =>
          store.fail(queueName, job.id, job.lease, {
            error: messageOf(error),
            retryAt,
            now: Date.now(),
          }),
        () => Date.now() > job.leaseUntil,
        health,
      ).catch((e) =>
        log(
          `Job ${job.name} ${job.id}: could not record its failure: ${
            messageOf(e)
          }`,
        )
      );
    }

    function start(job: ClaimedJob): void {
      const controller = new AbortController();
      const entry = {
        job,
        controller,
        done: Promise.resolve(),
      };
      active.set(job.id, entry);
      entry.done = run(job, controller).finally(() => {
        if (active.get(job.id) === entry) active.delete(job.id);
        nudge();
      });
    }

    async function loop(): Promise<void> {
      let pause = 100;
      while (!stopping) {
        const free = concurrency - active.size;
        if (free <= 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        let jobs: ClaimedJob[];
        try {
          jobs = await call(
            "claim jobs",
            () => store.claim(queueName, free, Date.now()),
          );
          health.ok();
          pause = 100;
        } catch (error) {
          if (stopping) break;
          health.failed(error);
          await sleep(
            health.failures === 1 ? 10 + Math.random() * 40 : pause,
          );
          if (health.failures > 1) pause = Math.min(pause * 2, 5000);
          continue;
        }
        if (stopping) {
          // Claimed while stop() began: hand them straight back.
          for (const job of jobs) {
            await settle(
              "release job",
              () => store.release(queueName, job.id, job.lease),
              () => true,
            ).catch(() => {});
          }
          break;
        }
        for (const job of jobs) start(job);
        if (jobs.length < free) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(nudge, pollMs);
          });
          clearTimeout(timer);
        }
      }
    }

    const looping = loop();
    // Set below; onDrain() calls its listener at once when a shutdown
    // already began, and that listener's stop() reads this.
    let offDrain: (() => void) | undefined = undefined;

    function stop(stopOptions: JobStopOptions = {}): Promise<void> {
      if (stopped !== undefined) return stopped;
      stopping = true;
      const graceMs = stopOptions.graceMs ?? 10_000;
      unsubscribe?.();
      offDrain?.();
      nudge();
      stopped = (async () => {
        await looping;
        const all = [...active.values()];
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.all(all.map((entry) => entry.done)),
          new Promise<void>((
            resolve,
          ) => (timer = setTimeout(resolve, graceMs))),
        ]);
        clearTimeout(timer);
        const left = [...active.values()];
        active.clear();
        for (const entry of left) {
          entry.controller.abort(new Error("worker stopped"));
        }
        await Promise.all(left.map((entry) =>
          settle(
            "release job",
            () => store.release(queueName, entry.job.id, entry.job.lease),
            () => Date.now() > entry.job.leaseUntil,
          ).catch((error) =>
            log(
              `Job ${entry.job.name} ${entry.job.id}: not handed back (${
                messageOf(error)
              }); it runs again after its visibility timeout`,
            )
          )
        ));
      })();
      return stopped;
    }

    // serve() waits for the stop (handed over like waitUntil() work)
    // within its shutdownTimeoutMs, so jobs handed back are written
    // before the process exits.
    offDrain = workOptions.stopWithServer === false
      ? undefined
      : onDrain(() => {
        const done = stop({ graceMs: shutdownGraceMs });
        for (const server of workRegistry().servers) {
          server.add(done, `job worker (${queueName})`);
        }
      });
    workOptions.signal?.addEventListener(
      "abort",
      () => void stop({ graceMs: shutdownGraceMs }),
      { once: true },
    );
    if (workOptions.signal?.aborted) void stop({ graceMs: shutdownGraceMs });
    return { stop };
  }

  return {
    name: queueName,
    define,
    enqueue,
    work,
    async deadLetters(listOptions = {}) {
      const limit = positive(listOptions.limit, "deadLetters(): limit", 100);
      const jobs: DeadJob[] = await call(
        "list dead jobs",
        () => store.dead(queueName, limit),
      );
      return jobs.map((job) => {
        let payload: unknown;
        try {
          payload = JSON.parse(job.payload);
        } catch {
          payload = job.payload;
        }
        return {
          id: job.id,
          name: job.name,
          payload,
          error: job.error,
          attempts: job.attempts,
          failedAt: new Date(job.failedAt),
        };
      });
    },
    retry(id) {
      return call("retry job", () => store.retry(queueName, id, Date.now()));
    },
    remove(id) {
      return call("remove job", () => store.remove(queueName, id));
    },
    stats() {
      return call("count jobs", () => store.counts(queueName, Date.now()));
    },
  };
}
