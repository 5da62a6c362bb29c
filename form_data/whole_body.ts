/**
 * Reads a small body whole, in one native read: `request.bytes()` lets Deno
 * collect a `Deno.serve` body without a JavaScript read per chunk, which
 * measured about twice the throughput of the chunked reader for a short
 * urlencoded form (BENCHMARKS.md, "HTTP load"). Only bodies that declare a
 * `Content-Length` of at most {@linkcode WHOLE_BODY_MAX} come here: the
 * server stops a body at its declared length, so memory stays bounded.
 *
 * @module
 */

import { type Limits, timerDelay } from "./limits.ts";
import { type Entry, unwatch, watchEntry } from "./_watchdog.ts";
import type { BodyProgress } from "../body_progress/body_progress.ts";
import {
  FormDataParseError,
  FormDataTimeoutError,
  MaxTotalSizeExceededError,
} from "./errors.ts";

/** The largest declared body read whole (a form's worth of text fields). */
export const WHOLE_BODY_MAX = 64 * 1024;

/**
 * The body's bytes. The body must arrive in full within `idleTimeout` (or
 * `bodyTimeout`, when that is shorter): one native read shows no progress
 * to time, and for 64 KiB that is generous.
 */
export async function readWholeBody(
  request: Request,
  limits: Limits,
  progress?: BodyProgress,
): Promise<Uint8Array> {
  return await readWholeBodyNow(request, limits, progress);
}

// A symbol-keyed property on the request, as `body_progress.ts` does.
const ARRIVED: unique symbol = Symbol("fetchkit.arrivedBody");
type WithArrived = Request & { [ARRIVED]?: Uint8Array };

/**
 * Hands the whole body of `request`, which the server already holds (on
 * Node, a small body that came with the headers), to the next
 * `readWholeBodyNow`, which then needs no read, deadline or promise. The
 * request's own body stays readable (the server keeps its copy): a
 * handler that calls `request.text()` after `formData()` gets it again.
 */
export function noteArrivedBody(request: Request, bytes: Uint8Array): void {
  arrivals = true;
  (request as WithArrived)[ARRIVED] = bytes;
}

// Whether a server ever noted a body (Node): a symbol the object lacks
// costs Bun about 120 ns to look up on a request, so it never looks.
let arrivals = false;

// Bun's `Bun.peek(promise)` gives a settled promise's value at once;
// feature-detected, and absent on Deno and Node.
const peek = (globalThis as {
  Bun?: { peek?: (promise: Promise<unknown>) => unknown };
}).Bun?.peek;

/**
 * `readWholeBody`, with the bytes themselves when they have already
 * arrived (on Bun, where a promise can be read without waiting): no
 * deadline to watch and no promise to wait for, so a form middleware can
 * answer synchronously.
 */
export function readWholeBodyNow(
  request: Request,
  limits: Limits,
  progress?: BodyProgress,
): Uint8Array | Promise<Uint8Array> {
  return readWholeBodyThen(request, limits, progress, same, rethrow);
}

function same(bytes: Uint8Array): Uint8Array {
  return bytes;
}

function rethrow(error: unknown): never {
  throw error;
}

/**
 * The whole body handed to `done`, or what went wrong (a limit, a stream
 * that failed, a timeout) to `fail`: at once when the bytes are there, or
 * from one callback on the read, so that a form middleware's own
 * continuation runs without a promise of its own between the read and it.
 * What `done` throws rejects (it is not passed to `fail`).
 */
export function readWholeBodyThen<T>(
  request: Request,
  limits: Limits,
  progress: BodyProgress | undefined,
  done: (bytes: Uint8Array) => T | Promise<T>,
  fail: (error: unknown) => T | Promise<T>,
): T | Promise<T> {
  let bytes: Uint8Array;
  const arrived = arrivals ? (request as WithArrived)[ARRIVED] : undefined;
  if (arrived !== undefined) {
    (request as WithArrived)[ARRIVED] = undefined;
    bytes = arrived;
  } else {
    let reading: Promise<Uint8Array>;
    try {
      reading = request.bytes();
    } catch (error) {
      return fail(error);
    }
    const early = peek === undefined ? undefined : peek(reading);
    if (!(early instanceof Uint8Array)) {
      return waitForBody(reading, limits, progress, done, fail);
    }
    bytes = early;
  }
  if (bytes.length > limits.maxTotalSize) {
    return fail(new MaxTotalSizeExceededError(limits.maxTotalSize));
  }
  return done(bytes);
}

/**
 * The read, failing with a `FormDataTimeoutError` at the deadline. Plain
 * callbacks on one promise, not an async function with a race: this runs
 * for every small form whose body was not there yet when the handler ran
 * (most of them on Bun under load). One object per read is its state and
 * its entry on the deadline clock (`BodyWait`).
 */
function waitForBody<T>(
  reading: Promise<Uint8Array>,
  limits: Limits,
  progress: BodyProgress | undefined,
  done: (bytes: Uint8Array) => T | Promise<T>,
  fail: (error: unknown) => T | Promise<T>,
): Promise<T> {
  const wait = new BodyWait(reading, limits, done, fail);
  const promise = new Promise<T>((resolve, reject) => {
    wait.resolve = resolve;
    wait.reject = reject;
  });
  deadline(wait, limits, progress);
  reading.then(
    (bytes) => wait.arrived(bytes),
    (error) => wait.failed(error),
  );
  return promise;
}

/** A read of a whole body under a deadline, and its entry on the clock. */
class BodyWait<T> implements Entry {
  // The clock's fields (see _watchdog.ts), set while it watches this.
  deadline = 0;
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  linked = false;
  /** The timeout that applies (0: none), and its option's name. */
  timeout = 0;
  limit: "idleTimeout" | "bodyTimeout" = "idleTimeout";
  /** Once: after a timeout, a read that still comes runs nothing. */
  settled = false;
  resolve!: (value: T | Promise<T>) => void;
  reject!: (error: unknown) => void;
  readonly reading: Promise<Uint8Array>;
  readonly limits: Limits;
  readonly done: (bytes: Uint8Array) => T | Promise<T>;
  readonly fail: (error: unknown) => T | Promise<T>;

  constructor(
    reading: Promise<Uint8Array>,
    limits: Limits,
    done: (bytes: Uint8Array) => T | Promise<T>,
    fail: (error: unknown) => T | Promise<T>,
  ) {
    this.reading = reading;
    this.limits = limits;
    this.done = done;
    this.fail = fail;
  }

  /** The deadline passed (called by the clock). */
  expire(): void {
    // A read left behind settles when the connection ends.
    this.reading.catch(ignore);
    this.settle(
      this.fail,
      new FormDataTimeoutError(this.timeout, undefined, this.limit),
    );
  }

  arrived(bytes: Uint8Array): void {
    if (this.linked) unwatch(this);
    const max = this.limits.maxTotalSize;
    if (bytes.length > max) {
      this.settle(this.fail, new MaxTotalSizeExceededError(max));
    } else this.settle(this.done, bytes);
  }

  failed(error: unknown): void {
    if (this.linked) unwatch(this);
    this.settle(
      this.fail,
      new FormDataParseError(
        "The request body stream failed before the form was complete",
        { cause: error },
      ),
    );
  }

  settle<A>(next: (value: A) => T | Promise<T>, value: A): void {
    if (this.settled) return;
    this.settled = true;
    try {
      this.resolve(next(value));
    } catch (error) {
      this.reject(error);
    }
  }
}

function ignore(): void {}

/**
 * Watches the timeout that applies to `wait` (and names its option): all
 * of it, or less when a peek at the body (`methodOverride()`) already
 * waited for the client; none when neither timeout is set.
 */
function deadline<T>(
  wait: BodyWait<T>,
  limits: Limits,
  progress: BodyProgress | undefined,
): void {
  const idle = timerDelay(limits.idleTimeout);
  const total = timerDelay(limits.bodyTimeout);
  // The clock only when a peek waited already (a call costs Bun ~50 ns).
  const now = progress === undefined ? 0 : performance.now();
  const idleLeft = idle - (progress ? now - progress.lastDataAt : 0);
  const totalLeft = total - (progress ? now - progress.startedAt : 0);
  // The sooner of the two that are set (0 is "not set").
  if (total !== 0 && (idle === 0 || totalLeft < idleLeft)) {
    wait.timeout = total;
    wait.limit = "bodyTimeout";
    watchEntry(wait, Math.max(0, totalLeft));
  } else if (idle !== 0) {
    wait.timeout = idle;
    watchEntry(wait, Math.max(0, idleLeft));
  }
}
