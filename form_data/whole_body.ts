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
  return readWholeBodyInto(
    request,
    progress,
    new CallbackRead(limits, done, fail),
  );
}

/**
 * `readWholeBodyThen` with the continuation as an object of the caller's
 * (its `body` and `error` methods): the read's state, its entry on the
 * deadline clock and the caller's own state are then one object a
 * request, and no closure is made for `done` and `fail`.
 */
export function readWholeBodyInto<T>(
  request: Request,
  progress: BodyProgress | undefined,
  read: WholeBodyRead<T>,
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
      return read.error(error);
    }
    const early = peek === undefined ? undefined : peek(reading);
    if (!(early instanceof Uint8Array)) {
      return waitForBody(reading, progress, read);
    }
    bytes = early;
  }
  if (bytes.length > read.limits.maxTotalSize) {
    return read.error(new MaxTotalSizeExceededError(read.limits.maxTotalSize));
  }
  return read.body(bytes);
}

/**
 * The read, failing with a `FormDataTimeoutError` at the deadline. Plain
 * callbacks on one promise, not an async function with a race: this runs
 * for every small form whose body was not there yet when the handler ran
 * (most of them on Bun under load). The caller's object is the read's
 * state and its entry on the deadline clock.
 */
function waitForBody<T>(
  reading: Promise<Uint8Array>,
  progress: BodyProgress | undefined,
  read: WholeBodyRead<T>,
): Promise<T> {
  // The executor is one function for every read (not a closure a read):
  // it runs synchronously inside the constructor, and `capturing` tells
  // it whose promise it is making.
  capturing = read as WholeBodyRead<unknown>;
  const promise = new Promise(capture) as Promise<T>;
  capturing = undefined;
  deadline(read, progress);
  reading.then(
    (bytes) => read.arrived(bytes),
    (error) => read.failed(error),
  );
  return promise;
}

// The read whose promise `new Promise(capture)` is making.
let capturing: WholeBodyRead<unknown> | undefined;

function capture(resolve: (value: unknown) => void): void {
  capturing!.resolve = resolve as (value: unknown) => void;
}

/**
 * A read of a whole body, subclassed by its caller: `body` gets the bytes
 * (within `maxTotalSize`), `error` what went wrong (a limit, a timeout, a
 * stream that failed). While the read waits, it is its own entry on the
 * deadline clock.
 */
export abstract class WholeBodyRead<T> implements Entry {
  // The clock's fields (see _watchdog.ts), set while it watches this.
  deadline = 0;
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  linked = false;
  /**
   * The timeout that applies, in milliseconds: `idleTimeout` when
   * positive, `bodyTimeout` when negative (one field: this object is made
   * for every small form read).
   */
  timeout = 0;
  /**
   * Settles the read's promise while it waits; `undefined` once settled
   * (after a timeout, a read that still comes runs nothing). A rejection
   * goes through it too (`Promise.reject`, a path taken only when `body`
   * or `error` throws): the promise's own `reject` is not kept.
   */
  resolve: ((value: T | Promise<T>) => void) | undefined = undefined;
  readonly limits: Limits;

  constructor(limits: Limits) {
    this.limits = limits;
  }

  /** The whole body, within `maxTotalSize`. */
  abstract body(bytes: Uint8Array): T | Promise<T>;

  /** What stopped the read (a `FormDataParseError`, or what was thrown). */
  abstract error(error: unknown): T | Promise<T>;

  /** The deadline passed (called by the clock). */
  expire(): void {
    // A read left behind settles when the connection ends, into `failed`
    // (its rejection is handled: no field keeps the read for a catch).
    this.settle(
      false,
      this.timeout > 0
        ? new FormDataTimeoutError(this.timeout, undefined, "idleTimeout")
        : new FormDataTimeoutError(-this.timeout, undefined, "bodyTimeout"),
    );
  }

  /** The read's bytes came. */
  arrived(bytes: Uint8Array): void {
    if (this.linked) unwatch(this);
    const max = this.limits.maxTotalSize;
    if (bytes.length > max) {
      this.settle(false, new MaxTotalSizeExceededError(max));
    } else this.settle(true, bytes);
  }

  /** The read failed. */
  failed(error: unknown): void {
    if (this.linked) unwatch(this);
    this.settle(
      false,
      new FormDataParseError(
        "The request body stream failed before the form was complete",
        { cause: error },
      ),
    );
  }

  private settle(ok: boolean, value: unknown): void {
    const resolve = this.resolve;
    if (resolve === undefined) return;
    this.resolve = undefined;
    try {
      resolve(ok ? this.body(value as Uint8Array) : this.error(value));
    } catch (error) {
      resolve(Promise.reject(error));
    }
  }
}

/** A `WholeBodyRead` that calls two functions. */
class CallbackRead<T> extends WholeBodyRead<T> {
  readonly done: (bytes: Uint8Array) => T | Promise<T>;
  readonly fail: (error: unknown) => T | Promise<T>;

  constructor(
    limits: Limits,
    done: (bytes: Uint8Array) => T | Promise<T>,
    fail: (error: unknown) => T | Promise<T>,
  ) {
    super(limits);
    this.done = done;
    this.fail = fail;
  }

  body(bytes: Uint8Array): T | Promise<T> {
    return this.done(bytes);
  }

  error(error: unknown): T | Promise<T> {
    return this.fail(error);
  }
}

/**
 * Watches the timeout that applies to `wait` (and names its option): all
 * of it, or less when a peek at the body (`methodOverride()`) already
 * waited for the client; none when neither timeout is set.
 */
function deadline<T>(
  wait: WholeBodyRead<T>,
  progress: BodyProgress | undefined,
): void {
  const limits = wait.limits;
  const idle = timerDelay(limits.idleTimeout);
  const total = timerDelay(limits.bodyTimeout);
  // The clock only when a peek waited already (a call costs Bun ~50 ns).
  const now = progress === undefined ? 0 : performance.now();
  const idleLeft = idle - (progress ? now - progress.lastDataAt : 0);
  const totalLeft = total - (progress ? now - progress.startedAt : 0);
  // The sooner of the two that are set (0 is "not set").
  if (total !== 0 && (idle === 0 || totalLeft < idleLeft)) {
    wait.timeout = -total;
    watchEntry(wait, Math.max(0, totalLeft));
  } else if (idle !== 0) {
    wait.timeout = idle;
    watchEntry(wait, Math.max(0, idleLeft));
  }
}
