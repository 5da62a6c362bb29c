/**
 * The contract between the queue and a job store: what
 * {@linkcode createJobQueue} asks of a store, for those who write one.
 * The three stores of this module (memory, Deno KV, Redis) keep it.
 *
 * A job is in one of four states: **waiting** (`runAt` has passed),
 * **delayed** (`runAt` is ahead), **active** (claimed by a worker with
 * a lease until `leaseUntil`) or **dead** (used all its attempts). A
 * finished job is deleted; its de-duplication key, if any, stays for
 * the key's retention.
 *
 * @module
 */

/** A job as `add` stores it. */
export interface NewJob {
  /** Unique id, made by the queue. */
  id: string;
  /** The job name given to `define`. */
  name: string;
  /** The payload as JSON text. */
  payload: string;
  /** Attempts before the job is dead. */
  maxAttempts: number;
  /** How long a claim lasts before another worker may take the job (ms). */
  visibilityMs: number;
  /** When it may run first (epoch ms). */
  runAt: number;
  /** The de-duplication key, if any. */
  key?: string;
}

/** A job a worker claimed: it runs until it finishes, fails or the lease passes. */
export interface ClaimedJob {
  /** The job's id. */
  id: string;
  /** The job name. */
  name: string;
  /** The payload as JSON text. */
  payload: string;
  /** 1-based attempt this claim is. */
  attempt: number;
  /** Attempts before the job is dead. */
  maxAttempts: number;
  /** The claim's token: finish, fail and release must show it. */
  lease: string;
  /** When the claim lapses (epoch ms). */
  leaseUntil: number;
}

/** A job that used all its attempts. */
export interface DeadJob {
  /** The job's id. */
  id: string;
  /** The job name. */
  name: string;
  /** The payload as JSON text. */
  payload: string;
  /** The last error's message. */
  error: string;
  /** Attempts made. */
  attempts: number;
  /** When it died (epoch ms). */
  failedAt: number;
}

/** Counts of jobs per state. */
export interface JobCounts {
  /** Due to run (their time has come), not claimed. */
  waiting: number;
  /** Waiting for a later time (`delayMs`, or a retry's backoff). */
  delayed: number;
  /** Claimed by a worker. */
  active: number;
  /** Used all their attempts. */
  dead: number;
}

/**
 * A job store. Every method is one atomic step on the store; the queue
 * runs each under a time limit. `queue` is the queue's name: one store
 * holds many queues apart. `now` is the caller's clock (epoch ms), so a
 * store needs no clock of its own.
 */
export interface JobStore {
  /** The store's name for errors: `"memory"`, `"Deno KV"`, `"Redis"`. */
  readonly kind: string;
  /**
   * Adds `job`, unless `job.key` is held by a job that is waiting,
   * delayed, active, dead, or finished less than its retention ago: then
   * nothing is written and the holder's id comes back.
   */
  add(
    queue: string,
    job: NewJob,
  ): Promise<{ id: string; duplicate: boolean }>;
  /**
   * Claims up to `limit` jobs whose `runAt <= now`, oldest first, after
   * putting back (as waiting) active jobs whose lease passed; such a job
   * that already used all its attempts becomes dead instead, with the
   * error `"lease expired"` (its worker died each time). Each claimed
   * job's attempt count goes up by one.
   */
  claim(queue: string, limit: number, now: number): Promise<ClaimedJob[]>;
  /**
   * The job succeeded: deleted; its key is held `keyRetentionMs` more.
   * `false` when the lease is no longer the caller's (nothing changed).
   */
  finish(
    queue: string,
    id: string,
    lease: string,
    keyRetentionMs: number,
    now: number,
  ): Promise<boolean>;
  /**
   * Optional: `finish`, then `claim(queue, limit, now)`, in one round
   * trip: what a worker whose job just ended does next.
   */
  finishAndClaim?(
    queue: string,
    id: string,
    lease: string,
    keyRetentionMs: number,
    now: number,
    limit: number,
  ): Promise<{ finished: boolean; claimed: ClaimedJob[] }>;
  /**
   * The attempt failed: with `retryAt` the job waits until then, without
   * it the job is dead. `false` when the lease is no longer the caller's.
   */
  fail(
    queue: string,
    id: string,
    lease: string,
    failure: { error: string; retryAt?: number; now: number },
  ): Promise<boolean>;
  /**
   * Hands the job back (a worker stopping): waiting again at once, and
   * the claim's attempt not counted.
   */
  release(queue: string, id: string, lease: string): Promise<boolean>;
  /** Dead jobs, most recent first. */
  dead(queue: string, limit: number): Promise<DeadJob[]>;
  /** Moves a dead job back to waiting with its attempts reset; `false` when not dead. */
  retry(queue: string, id: string, now: number): Promise<boolean>;
  /** Deletes a job in any state but active, with its key; `false` when not found or active. */
  remove(queue: string, id: string): Promise<boolean>;
  /** Counts per state. */
  counts(queue: string, now: number): Promise<JobCounts>;
  /**
   * Optional: calls `listener` when a job may be ready (added, retried,
   * released) in this process, so idle workers need not wait for their
   * next poll. Returns the unsubscribe function.
   */
  subscribe?(queue: string, listener: () => void): () => void;
}
