/**
 * Every mail of the app goes through here: `sendMail()` stores it as a
 * durable job (`@fetchkit/toolkit/jobs`) on the app's store (Deno KV by
 * default, Redis with `SESSION_STORAGE=redis`), and a worker sends it,
 * retrying while the mail server is down or refusing, so a mail is not
 * lost to a restart, a crash or an SMTP outage.
 *
 * ## The entry
 *
 * ```ts ignore
 * sendMail(
 *   target: RequestContext | MailJobs, // in a handler: the context
 *   mail: { to: string; subject: string; text: string; html?: string; key: string },
 * ): Promise<{ id: string; duplicate: boolean }>
 * ```
 *
 * - `key` names this one mail: its purpose and the secret or event it is
 *   about, such as `"password-reset:" + token` or
 *   `"email-change-notice:" + userId + ":" + changeId`. It is stored
 *   only as its SHA-256 digest (so a token never sits in the store as a
 *   key). While that mail is waiting, being sent, dead, or was sent in
 *   the last 24 hours, `sendMail()` with the same key stores nothing and
 *   returns `duplicate: true`: a double submit sends one mail.
 * - It resolves once the mail is stored (a 503 `StoreUnavailableError`
 *   when the store is down): answer the request after it, so a crash
 *   right after the answer still sends.
 * - Plain text always; `html` is optional (escape what users typed).
 *
 * In a handler: `await sendMail(context, { to, subject, text, key })`
 * (`createApp()` puts the app's {@linkcode MailJobs} in every request's
 * context under {@linkcode MailJobsKey}); elsewhere pass the
 * `MailJobs` itself.
 *
 * ## Sending
 *
 * The `"mail"` job sends through the app's {@linkcode Mailer} (SMTP or
 * the console): 10 attempts, waiting 2 s, 4 s, 8 s... (at most 10
 * minutes, with jitter) between them, 8.5 to 17 minutes in all; then the
 * mail is in the dead-letter list, which `/admin/jobs` shows to admins
 * with a "Retry" button. A send that takes over 60 s counts as failed; a
 * worker that died mid-send leaves the mail to another after
 * `visibilityTimeoutMs` (90 s; `MAIL_VISIBILITY_MS`). The payload (which
 * may hold a link) is never logged; a failure logs the job's id and the
 * server's answer.
 *
 * @module
 */
import { base64Url, sha256 } from "./tokens.ts";
import {
  createContextKey,
  type RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import {
  createJobQueue,
  type JobEnqueueResult,
  type JobQueue,
  type JobSettled,
  type JobStore,
  type JobWorker,
} from "@fetchkit/toolkit/jobs";
import type { Mailer } from "./mailer.ts";

/** One mail to send (see the module docs for `key`). */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Names this mail (purpose and secret or event): one mail per key. */
  key: string;
}

/** The app's mail queue. */
export interface MailJobs {
  /** The queue (`"mail"` jobs, and the app's other jobs defined on it). */
  readonly queue: JobQueue;
  /** The attempts, backoff and visibility timeout of the `"mail"` job, for the app's other jobs. */
  readonly jobOptions: {
    attempts: number;
    backoff: { initialMs: number; maxMs: number };
    visibilityTimeoutMs: number;
  };
  /** Starts a worker in this process (`main.ts` does, with the server). */
  work(options?: { concurrency?: number; pollMs?: number }): JobWorker;
  /**
   * Calls `listener` as each attempt of this process's workers ends
   * (done, retry, dead): `createApp()` counts them in `/metrics`.
   */
  onSettled(listener: (event: JobSettled) => void): void;
}

/** Options of {@linkcode createMailJobs}. */
export interface MailJobsOptions {
  /** Where jobs are kept: the app's KV or Redis. */
  store: JobStore;
  /** Sends each mail. */
  mailer: Mailer;
  /** Attempts per mail. Default 10. */
  attempts?: number;
  /** Pauses between attempts. Default 2 s doubling up to 10 minutes. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Time one send may take. Default 60 s. */
  timeoutMs?: number;
  /** How long a crashed worker holds a mail. Default 90 s. */
  visibilityTimeoutMs?: number;
  /** Where failures go. Default `console.error`. */
  log?: (line: string) => void;
  /**
   * Run a worker in this process on demand: started by each enqueue and
   * retry made through this `MailJobs`, stopped once the queue is empty
   * (nothing waiting, delayed or running). What `createApp()` does when
   * it is given no `mailJobs`; `main.ts` runs a worker all along instead
   * (it also picks up what other processes, or a crashed one, left).
   */
  onDemand?: boolean;
}

/** Where `createApp()` puts the app's {@linkcode MailJobs} for handlers. */
export const MailJobsKey = createContextKey<MailJobs>();

const MAIL_JOB = "mail";

/** The mail queue on `store`, with the `"mail"` job defined. */
export function createMailJobs(options: MailJobsOptions): MailJobs {
  const listeners: ((event: JobSettled) => void)[] = [];
  const queue = createJobQueue({
    store: options.store,
    name: "mail",
    log: options.log,
    onSettled: (event) => {
      for (const listener of listeners) listener(event);
    },
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const jobOptions = {
    attempts: options.attempts ?? 10,
    backoff: {
      initialMs: options.backoff?.initialMs ?? 2000,
      maxMs: options.backoff?.maxMs ?? 10 * 60_000,
    },
    visibilityTimeoutMs: options.visibilityTimeoutMs ?? timeoutMs + 30_000,
  };
  queue.define<Omit<OutgoingMail, "key">>(MAIL_JOB, async (mail) => {
    await options.mailer.send({
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html === undefined ? {} : { html: mail.html }),
    });
  }, { ...jobOptions, timeoutMs });
  return {
    queue: options.onDemand ? onDemand(queue) : queue,
    jobOptions,
    work: (workOptions = {}) => queue.work({ concurrency: 4, ...workOptions }),
    onSettled: (listener) => {
      listeners.push(listener);
    },
  };
}

/**
 * `queue` whose `enqueue` and `retry` start a worker when none runs; it
 * stops when a check (every 250 ms) finds the queue empty.
 */
function onDemand(queue: JobQueue): JobQueue {
  let running = false;
  async function watch(): Promise<void> {
    const worker = queue.work({ concurrency: 4, pollMs: 100 });
    try {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const counts = await queue.stats();
        if (counts.waiting + counts.delayed + counts.active === 0) break;
      }
    } catch {
      // The store is gone (closed): nothing more to run here.
    }
    running = false;
    await worker.stop({ graceMs: 1000 });
  }
  const kick = () => {
    if (running) return;
    running = true;
    void watch();
  };
  return {
    ...queue,
    async enqueue(name, payload, options) {
      const result = await queue.enqueue(name, payload, options);
      kick();
      return result;
    },
    async retry(id) {
      const done = await queue.retry(id);
      if (done) kick();
      return done;
    },
  };
}

/** The SHA-256 digest of `text`, base64url: what a mail's key is stored as. */
export async function mailKey(text: string): Promise<string> {
  return base64Url(await sha256(text));
}

/**
 * THE way the app sends a mail: stored as a durable job, sent by a
 * worker with retries; one mail per `key`. See the module docs.
 */
export async function sendMail(
  target: RequestContext | MailJobs,
  mail: OutgoingMail,
): Promise<JobEnqueueResult> {
  const jobs = "queue" in target ? target : target.get(MailJobsKey);
  if (jobs === undefined) {
    throw new Error("sendMail(): no MailJobs in this request's context");
  }
  if (typeof mail.key !== "string" || mail.key === "") {
    throw new TypeError("sendMail(): key is required (purpose and secret)");
  }
  const { key, ...message } = mail;
  return await jobs.queue.enqueue(MAIL_JOB, message, {
    key: `mail:${await mailKey(key)}`,
  });
}
