/**
 * Server-sent events: `createEventStreamResponse(source)` turns an async
 * iterable of events into a `text/event-stream` response that browsers
 * read with `EventSource`.
 *
 * @example A clock, resuming from `Last-Event-ID`
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
 *
 * const router = createRouter();
 * router.get("/ticks", ({ request }) => {
 *   // A reconnecting EventSource sends the id of the last event it saw.
 *   const last = Number(request.headers.get("Last-Event-ID") ?? 0) || 0;
 *   async function* ticks() {
 *     for (let n = last + 1; n <= last + 3; n++) {
 *       yield { id: n, event: "tick", data: `tick ${n}` };
 *     }
 *   }
 *   return createEventStreamResponse(ticks());
 * });
 * const response = await router.fetch(
 *   new Request("http://localhost/ticks", { headers: { "Last-Event-ID": "7" } }),
 * );
 * await response.text(); // "event: tick\nid: 8\ndata: tick 8\n\nevent: tick\nid: 9\n..."
 * ```
 *
 * @module
 */

import { NativeResponse } from "./native.ts";
import { SafeHtml } from "../html/mod.ts";

/** One event. */
export interface ServerSentEvent {
  /**
   * The payload. A string, or an `html` value (its HTML text), is sent as
   * it is, each of its lines as a `data:` line (the browser joins them with
   * `\n`); any other value is sent as JSON, with `html` values inside it as
   * their text. A Promise, a Map or a Set, anywhere in it, is refused with
   * a `TypeError` (JSON would send `{}`): await promises in the source
   * before yielding (`yield { data: await load() }`), and convert Maps and
   * Sets (`Object.fromEntries(map)`, `[...set]`).
   */
  data: unknown;
  /** The event type (`addEventListener(type, ...)`); default `message`. */
  event?: string;
  /** The id the browser sends back as `Last-Event-ID` when it reconnects. */
  id?: string | number;
  /** Milliseconds the browser waits before reconnecting. */
  retry?: number;
}

/**
 * The events of a stream: an async iterable (an async generator,
 * typically), or a function that makes one from a signal that aborts when
 * the stream ends (the client left, `options.signal` aborted, or the
 * stream failed), so a source that waits can stop waiting at once.
 */
export type EventSourceInput =
  | AsyncIterable<ServerSentEvent>
  | ((signal: AbortSignal) => AsyncIterable<ServerSentEvent>);

/** Options of {@linkcode createEventStreamResponse}. */
export interface EventStreamOptions {
  /**
   * Milliseconds of silence after which a comment line (`:`) is sent, so
   * proxies and load balancers do not close an idle connection; `0` sends
   * none.
   *
   * @default {15000}
   */
  heartbeatMs?: number;
  /**
   * Ends the stream when aborted (a server shutting down, say). A client
   * that goes away is noticed without it: the server cancels the body.
   */
  signal?: AbortSignal;
  /** `retry:` sent first: the browser's reconnection delay in ms. */
  retry?: number;
  /** More response headers (they may replace the defaults). */
  headers?: HeadersInit;
  /**
   * Receives an error thrown by the source (or an event that cannot be
   * sent); the stream then ends. Default: `console.error`.
   */
  onError?: (error: unknown) => void;
}

const encoder = new TextEncoder();
// `serve()` (from ./serve) ends the streams in this map when it shuts
// down; found through Symbol.for so that copies of the package share it.
const SHUTDOWN = Symbol.for("fetchkit.serve.responses");
type ShutdownRegistry = WeakMap<
  Response,
  { kind: "closeable"; close(): void; done: Promise<void> }
>;
const HEARTBEAT = encoder.encode(":\n\n");
const NEWLINE = /\r\n|\r|\n/;
const LINE_BREAK = /[\r\n]/;

function checkField(name: string, value: string): string {
  if (LINE_BREAK.test(value) || (name === "id" && value.includes("\0"))) {
    throw new TypeError(
      `Server-sent event ${name} must not contain a line break${
        name === "id" ? " or NUL" : ""
      }: ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function checkRetry(retry: unknown): number {
  if (!Number.isSafeInteger(retry) || (retry as number) < 0) {
    throw new TypeError(
      `Server-sent event retry must be a whole number of ms >= 0, got ${retry}`,
    );
  }
  return retry as number;
}

/** What JSON would send wrongly as `{}`, named for the error; or undefined. */
function unsendable(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (typeof (value as { then?: unknown }).then === "function") {
    return "a Promise (await it in the source before yielding)";
  }
  if (value instanceof Map) return "a Map (send Object.fromEntries(map))";
  if (value instanceof Set) return "a Set (send [...set])";
  return undefined;
}

/** `data` as JSON: `html` values as their text; promises, Maps, Sets refused. */
function toJson(data: unknown): string | undefined {
  return JSON.stringify(data, function (key, value) {
    if (value instanceof SafeHtml) return value.value;
    const problem = unsendable(value);
    if (problem !== undefined) {
      throw new TypeError(
        `Server-sent event data${
          key === "" ? "" : ` at ${JSON.stringify(key)}`
        } is ${problem}; JSON would send it as {}`,
      );
    }
    return value;
  });
}

/** The wire form of one event. */
function formatEvent(event: ServerSentEvent): string {
  if (typeof event !== "object" || event === null) {
    throw new TypeError(
      `A server-sent event must be an object such as { data: "..." }, got ${
        String(event)
      }`,
    );
  }
  let text = "";
  if (event.event !== undefined) {
    text += `event: ${checkField("event", String(event.event))}\n`;
  }
  if (event.id !== undefined) {
    text += `id: ${checkField("id", String(event.id))}\n`;
  }
  if (event.retry !== undefined) text += `retry: ${checkRetry(event.retry)}\n`;
  const data = typeof event.data === "string"
    ? event.data
    : event.data instanceof SafeHtml
    ? event.data.value
    : toJson(event.data);
  if (data === undefined) {
    throw new TypeError(
      `A server-sent event needs data that is a string or JSON (got ${typeof event
        .data})`,
    );
  }
  for (const line of data.split(NEWLINE)) text += `data: ${line}\n`;
  return text + "\n";
}

/**
 * Creates a `text/event-stream` response from an async iterable of
 * events (an async generator, typically).
 *
 * - Framing: `event:`, `id:`, `retry:`, then one `data:` line per line of
 *   `data`, and a blank line. A line break in `event` or `id` is refused.
 * - Headers: `Content-Type: text/event-stream`, `Cache-Control:
 *   no-cache`, and `X-Accel-Buffering: no` (so nginx passes events on at
 *   once).
 * - Backpressure: the next event is asked for only when the client has
 *   taken the previous one.
 * - A heartbeat comment every `heartbeatMs` of silence (15 s).
 * - When the client goes away (the body is cancelled), `signal`
 *   aborts, or `serve()` (from `./serve`) shuts down, the source's
 *   `return()` is called, so a generator's `finally` runs. A generator
 *   runs it when it next reaches `yield`: if it waits for something in
 *   between (a timer, a message), pass a function as
 *   `source`: it gets a signal that aborts when the stream ends, and the
 *   wait can end on it, as the example does.
 * - An error from the source ends the stream; it goes to `onError`
 *   (`console.error` by default), never to the client. So does an event
 *   that cannot be sent: `data` that is (or holds) a Promise, a Map or a
 *   Set, which JSON would send as `{}` (await promises in the source), or
 *   a line break in `event` or `id`.
 * - `data` that is an `html` value is sent as its HTML text (for htmx's
 *   SSE swaps, say), not as JSON.
 *
 * `Last-Event-ID`: give events an `id`; a browser that reconnects (after a
 * network error, or when the stream ends) sends the last one it saw in
 * the `Last-Event-ID` request header. Read it from the request and resume
 * after it.
 *
 * @example Notifications from an event target, ending with the client
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
 *
 * const news = new EventTarget();
 * let sequence = 0;
 * function publish(text: string): void {
 *   news.dispatchEvent(new MessageEvent("news", { data: { id: ++sequence, text } }));
 * }
 *
 * async function* updates(signal: AbortSignal) {
 *   const queue: { id: number; text: string }[] = [];
 *   let wake = () => {};
 *   const listener = (event: Event) => {
 *     queue.push((event as MessageEvent).data);
 *     wake();
 *   };
 *   news.addEventListener("news", listener);
 *   signal.addEventListener("abort", () => wake());
 *   try {
 *     while (!signal.aborted) {
 *       while (queue.length > 0) {
 *         const item = queue.shift()!;
 *         yield { id: item.id, event: "news", data: item };
 *       }
 *       await new Promise<void>((resolve) => wake = resolve);
 *     }
 *   } finally {
 *     news.removeEventListener("news", listener); // runs when the client leaves
 *   }
 * }
 *
 * const router = createRouter();
 * router.get("/news", () => createEventStreamResponse((signal) => updates(signal)));
 * publish("hello");
 * ```
 *
 * @param source The events, or a function of the stream's signal that
 * returns them.
 * @param options Heartbeat, abort signal, first `retry:`, headers, and
 * the error handler.
 * @returns The response, status 200.
 * @throws {TypeError} When `source` is not async-iterable, or an option is
 * malformed.
 */
export function createEventStreamResponse(
  source: EventSourceInput,
  options: EventStreamOptions = {},
): Response {
  const stream = new EventStreamSource(source, options);
  const headers = new Headers({
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
  });
  if (options.headers !== undefined) {
    for (const [name, value] of new Headers(options.headers)) {
      headers.set(name, value);
    }
  }
  const response = new NativeResponse(
    new ReadableStream<Uint8Array>(stream),
    { status: 200, headers },
  );
  // serve() ends open streams when it shuts down.
  const global = globalThis as { [SHUTDOWN]?: ShutdownRegistry };
  (global[SHUTDOWN] ??= new WeakMap()).set(response, {
    kind: "closeable",
    close: stream.abort,
    done: stream.done,
  });
  return response;
}

/**
 * The body of one event stream: asks the source for the next event when
 * the client has taken the last, sends heartbeats in silences, and ends
 * the source however the stream ends.
 */
class EventStreamSource implements UnderlyingDefaultSource<Uint8Array> {
  /** Settles when the stream has ended, however it ended. */
  readonly done: Promise<void>;
  // Aborts when the stream ends, however it ends: the source's signal.
  readonly #ended = new AbortController();
  readonly #events: AsyncIterable<ServerSentEvent>;
  readonly #heartbeatMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onError: (error: unknown) => void;
  /** The `retry:` field sent first, if any. */
  readonly #first: Uint8Array | undefined;
  #iterator: AsyncIterator<ServerSentEvent> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #lastSent = 0;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #markDone!: () => void;

  constructor(source: EventSourceInput, options: EventStreamOptions) {
    const events = typeof source === "function"
      ? source(this.#ended.signal)
      : source;
    if (
      events === null || typeof events !== "object" ||
      typeof events[Symbol.asyncIterator] !== "function"
    ) {
      throw new TypeError(
        "createEventStreamResponse(): source must be an async iterable of events (such as an async generator), or a function of an AbortSignal that returns one",
      );
    }
    const {
      heartbeatMs = 15_000,
      onError = (error: unknown) =>
        console.error("Event stream source failed:", error),
    } = options;
    if (!(heartbeatMs >= 0) || !Number.isFinite(heartbeatMs)) {
      throw new TypeError(
        `createEventStreamResponse(): heartbeatMs must be a number of ms >= 0, got ${heartbeatMs}`,
      );
    }
    this.#events = events;
    this.#heartbeatMs = heartbeatMs;
    this.#signal = options.signal;
    this.#onError = onError;
    this.#first = options.retry === undefined
      ? undefined
      : encoder.encode(`retry: ${checkRetry(options.retry)}\n\n`);
    this.done = new Promise<void>((resolve) => this.#markDone = resolve);
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    this.#iterator = this.#events[Symbol.asyncIterator]();
    if (this.#first !== undefined) controller.enqueue(this.#first);
    this.#lastSent = Date.now();
    const heartbeatMs = this.#heartbeatMs;
    if (heartbeatMs > 0) {
      this.#timer = setInterval(() => {
        if (
          !this.#closed && (controller.desiredSize ?? 0) > 0 &&
          Date.now() - this.#lastSent >= heartbeatMs / 2
        ) {
          controller.enqueue(HEARTBEAT);
          this.#lastSent = Date.now();
        }
      }, heartbeatMs);
    }
    const signal = this.#signal;
    if (signal !== undefined) {
      if (signal.aborted) this.abort();
      else signal.addEventListener("abort", this.abort);
    }
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>) {
    if (this.#closed) return;
    let step: IteratorResult<ServerSentEvent>;
    try {
      step = await this.#iterator!.next();
    } catch (error) {
      if (this.#closed) return;
      this.#finish();
      this.#onError(error);
      controller.close();
      return;
    }
    if (this.#closed) return;
    if (step.done) {
      this.#finish();
      controller.close();
      return;
    }
    let text: string;
    try {
      text = formatEvent(step.value);
    } catch (error) {
      this.#stop();
      this.#onError(error);
      controller.close();
      return;
    }
    controller.enqueue(encoder.encode(text));
    this.#lastSent = Date.now();
  }

  cancel(): void {
    this.#stop();
  }

  /** Ends the stream from the server's side (signal, shutdown). */
  readonly abort = (): void => {
    if (this.#closed) return;
    this.#stop();
    try {
      this.#controller.close();
    } catch {
      // already closed or cancelled
    }
  };

  #finish(): void {
    this.#closed = true;
    this.#markDone();
    this.#ended.abort();
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#signal?.removeEventListener("abort", this.abort);
  }

  /** Ends from our side: tell the source, close the body. */
  #stop(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      // Not awaited: a generator waiting inside runs its finally later.
      Promise.resolve(this.#iterator?.return?.()).catch(this.#onError);
    } catch (error) {
      this.#onError(error);
    }
  }
}
