/**
 * The part every pub/sub store shares: one reader per process fans each
 * topic's events out to that process's subscribers, so 1,000 subscribers
 * cost one store read per batch of events, not 1,000. A store supplies a
 * `Backend`: append, newest id, a range after an id, and a blocking read
 * of several topics.
 *
 * @module
 */

import { HttpError } from "../http_error/mod.ts";
import { checkTimeout } from "../store/mod.ts";

/** One event as a subscriber receives it. */
export interface PubSubEvent<T = unknown> {
  /**
   * Its id in its topic: ordered, unique per topic, and what `since` (an
   * SSE `Last-Event-ID`) takes to resume after it.
   */
  readonly id: string;
  /** The published value, as JSON gave it back. */
  readonly data: T;
}

/** Options of {@linkcode PubSub.subscribe}. */
export interface SubscribeOptions {
  /**
   * Resume after this event id (exclusive), as an SSE `Last-Event-ID`:
   * the events after it that the store still retains come first, then
   * the live ones. Without it, the subscription gets the events published
   * after it is set up.
   */
  since?: string;
  /** Ends the subscription when aborted: iteration then finishes. */
  signal?: AbortSignal;
}

/**
 * A subscription: an async iterable of events, ending when it is closed,
 * its signal aborts, or the pub/sub closes; it throws
 * {@linkcode SlowSubscriberError} when its reader fell too far behind.
 */
export interface Subscription<T = unknown>
  extends AsyncIterableIterator<PubSubEvent<T>> {
  /** The topic. */
  readonly topic: string;
  /**
   * Resolves once the subscription is set up: every event published after
   * that reaches it. Rejects when the store could not be reached (a
   * `StoreUnavailableError`, which the router answers with 503).
   */
  readonly ready: Promise<void>;
  /**
   * Where the subscription stands: the id of the last event handed out;
   * before the first, once `ready`, the position it started from (the
   * topic's newest id, or the store's start, such as `"0-0"`, for an
   * empty topic). Send it to a client before any event (as an SSE `id:`)
   * so that a client that reconnects before its first event resumes with
   * `since` instead of missing what was published meanwhile.
   */
  readonly lastId: string | undefined;
  /**
   * Aborts when the subscription ends, however it ends; its `reason` is
   * the error when it failed (a {@linkcode SlowSubscriberError}, a store
   * error). Give it to what serves the events, such as
   * `createEventStreamResponse(source, { signal })`, so that a client that
   * stopped reading is let go even though it never asks for the next
   * event, which is where the error would show.
   */
  readonly signal: AbortSignal;
  /** Ends the subscription and frees its queue. */
  close(): void;
  /** Ends the subscription (what `break` in `for await` calls). */
  return(): Promise<IteratorResult<PubSubEvent<T>>>;
}

/** A pub/sub channel API on one store. */
export interface PubSub {
  /**
   * Appends `data` (anything `JSON.stringify` takes) to `topic` and
   * returns its id. Every subscriber of `topic` on every process sharing
   * the store receives it, in publish order per topic.
   */
  publish(topic: string, data: unknown): Promise<string>;
  /** Subscribes to `topic`; see {@linkcode Subscription}. */
  subscribe<T = unknown>(
    topic: string,
    options?: SubscribeOptions,
  ): Subscription<T>;
  /** Ends every subscription and stops reading; the client stays open. */
  close(): Promise<void>;
}

/** Options every pub/sub store takes. */
export interface PubSubOptions {
  /**
   * Events kept per topic for subscribers that resume with `since`, at
   * least. Default 1,000.
   */
  retainCount?: number;
  /** Longest time an event is kept, in ms. Default 3,600,000 (1 hour). */
  retainMs?: number;
  /**
   * Events a subscription may have waiting before it is dropped with
   * {@linkcode SlowSubscriberError}. Default 1,000.
   */
  maxQueued?: number;
  /** Largest event, in bytes of JSON. Default 64,000 (fits Deno KV). */
  maxEventBytes?: number;
  /** Milliseconds a store call may take before it fails with 503. Default 5,000. */
  timeout?: number;
  /**
   * Told when the background reader fails (it retries with backoff while
   * subscribers wait). Default: `console.error`, at most once a minute.
   */
  onError?: (error: unknown) => void;
}

/** An event as the store holds it. */
export interface StoredEvent {
  id: string;
  json: string;
}

/** What a store implements. Every method maps outages to 503 itself. */
export interface Backend {
  /** "Redis", "Deno KV", "memory": for error messages. */
  readonly store: string;
  /**
   * Whether `read` polls: then a publish from this process wakes the
   * reader at once instead of at the next poll.
   */
  readonly polls?: boolean;
  /** Whether `id` has this store's id form. */
  validId(id: string): boolean;
  /** The id before every event: `"0-0"` on Redis, `"0"` elsewhere. */
  readonly start: string;
  /** Negative, zero or positive as `a` is before, at or after `b`. */
  compare(a: string, b: string): number;
  /** Appends one event; its id. */
  append(topic: string, json: string): Promise<string>;
  /** The newest id of `topic`, or `undefined` when it has none. */
  head(topic: string): Promise<string | undefined>;
  /** Up to `count` events after `after` (all when `undefined`), oldest first. */
  range(
    topic: string,
    after: string | undefined,
    count: number,
  ): Promise<StoredEvent[]>;
  /**
   * Waits until some topic has events after its cursor and returns them,
   * or returns `[]` when `signal` aborts (a topic was added) or the wait
   * times out.
   */
  read(
    cursors: ReadonlyMap<string, string | undefined>,
    signal: AbortSignal,
  ): Promise<[string, StoredEvent[]][]>;
  /** Frees what the store opened (not the caller's client). */
  close(): Promise<void>;
}

/**
 * Thrown by a subscription whose reader fell `maxQueued` events behind:
 * its queue is dropped so that a slow client cannot grow the server's
 * memory. Resubscribe with `since: error.lastId` to catch up from what
 * the store retains (an SSE client does this by reconnecting).
 */
export class SlowSubscriberError extends Error {
  /** The last event id the subscriber received, to resume after. */
  readonly lastId: string | undefined;
  /** Creates the error for `topic`. */
  constructor(topic: string, maxQueued: number, lastId: string | undefined) {
    super(
      `Subscriber to "${topic}" fell ${maxQueued} events behind (maxQueued) and was dropped; resubscribe with since: ${
        JSON.stringify(lastId ?? null)
      } to catch up`,
    );
    this.name = "SlowSubscriberError";
    this.lastId = lastId;
  }
}

/** Longest topic name, in characters. */
export const MAX_TOPIC_LENGTH = 256;
const PAGE = 500;
const encoder = new TextEncoder();

/** Checks a number option, naming it and its rule. */
export function positiveInteger(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a whole number >= 1, got ${value}`);
  }
  return value;
}

/** The checked common options. */
export interface Settings {
  retainCount: number;
  retainMs: number;
  maxQueued: number;
  maxEventBytes: number;
  timeout: number;
  onError: (error: unknown) => void;
}

/** Checks the common options and fills in defaults. */
export function settingsOf(options: PubSubOptions, label: string): Settings {
  const timeout = checkTimeout(options.timeout, label);
  let lastLog = -Infinity;
  return {
    retainCount: positiveInteger(
      `${label}: retainCount`,
      options.retainCount,
      1000,
    ),
    retainMs: positiveInteger(`${label}: retainMs`, options.retainMs, 3600_000),
    maxQueued: positiveInteger(`${label}: maxQueued`, options.maxQueued, 1000),
    maxEventBytes: positiveInteger(
      `${label}: maxEventBytes`,
      options.maxEventBytes,
      64_000,
    ),
    timeout,
    onError: options.onError ?? ((error) => {
      const now = Date.now();
      if (now - lastLog < 60_000) return;
      lastLog = now;
      console.error(`${label}: reading events failed; retrying:`, error);
    }),
  };
}

interface Topic {
  readonly name: string;
  /** The newest id delivered to this process's subscribers. */
  cursor: string | undefined;
  /** Set once the cursor is known (the store's newest id). */
  ready: boolean;
  setup: Promise<void>;
  readonly subscribers: Set<Sub>;
}

/** A subscription's state; also its iterator. */
class Sub implements Subscription<unknown> {
  readonly topic: string;
  ready: Promise<void>;
  lastId: string | undefined;
  #hub: Hub;
  #queue: PubSubEvent[] = [];
  #head = 0;
  #backlog: StoredEvent[] = [];
  #backlogAt = 0;
  #catchingUp = false;
  #overflowed = false;
  #done = false;
  #started = false;
  #error: unknown = undefined;
  // One promise for every next() waiting, so that calls made without
  // awaiting the previous one all wake.
  #waiting: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #signal: AbortSignal | undefined;
  #onAbort = () => this.close();

  #ended = new AbortController();
  readonly signal: AbortSignal = this.#ended.signal;

  constructor(
    hub: Hub,
    topic: string,
    since: string | undefined,
    signal?: AbortSignal,
  ) {
    this.#hub = hub;
    this.topic = topic;
    this.#signal = signal;
    if (since !== undefined) {
      this.lastId = since;
      this.#catchingUp = true;
    }
    this.ready = Promise.resolve();
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Called by the reader with each new event of the topic. */
  push(event: PubSubEvent): void {
    if (this.#done) return;
    this.#queue.push(event);
    if (this.#queue.length - this.#head > this.#hub.settings.maxQueued) {
      if (this.#catchingUp) {
        // Still reading the store: these are in it too; read on.
        this.#queue = [];
        this.#head = 0;
        this.#overflowed = true;
      } else {
        this.fail(
          new SlowSubscriberError(
            this.topic,
            this.#hub.settings.maxQueued,
            this.lastId,
          ),
        );
        return;
      }
    }
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#waiting = undefined;
    this.#wake = undefined;
    wake?.();
  }

  fail(error: unknown): void {
    if (this.#done) return;
    this.#error = error;
    this.#end();
  }

  close(): void {
    this.#end();
  }

  #end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#queue = [];
    this.#head = 0;
    this.#backlog = [];
    this.#backlogAt = 0;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#hub.unsubscribe(this);
    this.#notify();
    this.#ended.abort(this.#error);
  }

  async next(): Promise<IteratorResult<PubSubEvent>> {
    if (!this.#started) {
      await this.ready.catch((error) => this.fail(error));
      this.#started = true;
    }
    const { backend } = this.#hub;
    while (true) {
      if (this.#error !== undefined) {
        const error = this.#error;
        this.#error = undefined;
        throw error;
      }
      if (this.#done) return { done: true, value: undefined };
      if (this.#catchingUp) {
        const stored = this.#backlog[this.#backlogAt++];
        if (stored !== undefined) {
          if (
            this.lastId !== undefined &&
            backend.compare(stored.id, this.lastId) <= 0
          ) continue;
          this.lastId = stored.id;
          return { done: false, value: eventOf(stored) };
        }
        let page: StoredEvent[];
        try {
          page = await backend.range(this.topic, this.lastId, PAGE);
        } catch (error) {
          this.fail(error);
          continue;
        }
        if (this.#done) continue;
        if (page.length > 0) {
          this.#backlog = page;
          this.#backlogAt = 0;
          continue;
        }
        if (this.#overflowed) {
          // Live events were dropped while reading: read the store again.
          this.#overflowed = false;
          continue;
        }
        this.#catchingUp = false;
      }
      while (this.#head < this.#queue.length) {
        const event = this.#queue[this.#head++];
        // Taken events are let go: all of them once the queue is empty,
        // else in one slice once they are most of it.
        if (this.#head === this.#queue.length) {
          this.#queue.length = 0;
          this.#head = 0;
        } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        if (
          this.lastId !== undefined &&
          backend.compare(event.id, this.lastId) <= 0
        ) continue;
        this.lastId = event.id;
        return { done: false, value: event };
      }
      await (this.#waiting ??= new Promise<void>((resolve) =>
        this.#wake = resolve
      ));
    }
  }

  return(): Promise<IteratorResult<PubSubEvent>> {
    this.close();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

function eventOf(stored: StoredEvent): PubSubEvent {
  return Object.freeze({ id: stored.id, data: JSON.parse(stored.json) });
}

/** The per-process fan-out over one backend. */
export class Hub implements PubSub {
  readonly backend: Backend;
  readonly settings: Settings;
  #label: string;
  #topics = new Map<string, Topic>();
  #subs = new Set<Sub>();
  #closed = false;
  #running = false;
  #wake: AbortController | undefined;
  #idle: (() => void) | undefined;

  constructor(backend: Backend, settings: Settings, label: string) {
    this.backend = backend;
    this.settings = settings;
    this.#label = label;
  }

  async publish(topic: string, data: unknown): Promise<string> {
    this.#checkOpen();
    checkTopic(topic, `${this.#label}.publish()`);
    const json = JSON.stringify(data);
    if (json === undefined) {
      throw new TypeError(
        `${this.#label}.publish(): data must be JSON-serialisable, got ${typeof data}`,
      );
    }
    const limit = this.settings.maxEventBytes;
    if (json.length > limit / 3) {
      const bytes = encoder.encode(json).length;
      if (bytes > limit) {
        throw new RangeError(
          `${this.#label}.publish(): event data is ${bytes} bytes of JSON; the limit is ${limit} (maxEventBytes)`,
        );
      }
    }
    // A subscription of this process that is still being set up gets this
    // event: wait until its starting point is fixed.
    const pending = this.#topics.get(topic);
    if (pending !== undefined && !pending.ready) {
      await pending.setup.catch(() => {});
    }
    const id = await this.backend.append(topic, json);
    // Local subscribers need not wait for the next poll.
    if (this.backend.polls) this.#wake?.abort();
    return id;
  }

  subscribe<T = unknown>(
    topic: string,
    options: SubscribeOptions = {},
  ): Subscription<T> {
    this.#checkOpen();
    const label = `${this.#label}.subscribe()`;
    checkTopic(topic, label);
    const { since, signal } = options;
    if (since !== undefined) {
      if (typeof since !== "string" || !this.backend.validId(since)) {
        // Usually a client's Last-Event-ID: the router answers 400.
        throw new HttpError(
          400,
          `${label}: since must be an event id of this store (such as ${
            this.backend.store === "Redis" ? '"1700000000000-0"' : '"42"'
          }), got ${JSON.stringify(String(since)).slice(0, 80)}`,
        );
      }
    }
    const sub = new Sub(this, topic, since, signal);
    if (signal?.aborted) {
      sub.close();
      return sub as Subscription<T>;
    }
    let entry = this.#topics.get(topic);
    if (entry === undefined) {
      const created: Topic = {
        name: topic,
        cursor: undefined,
        ready: false,
        setup: Promise.resolve(),
        subscribers: new Set(),
      };
      created.setup = this.backend.head(topic).then((head) => {
        created.cursor = head;
        created.ready = true;
        this.#kick();
      }, (error) => {
        if (this.#topics.get(topic) === created) this.#topics.delete(topic);
        throw error;
      });
      entry = created;
      this.#topics.set(topic, entry);
    }
    const joined = entry;
    joined.subscribers.add(sub);
    this.#subs.add(sub);
    // Without `since`: start at the newest event. With one the store has
    // not reached (it lost its data, or the client made it up): start at
    // the newest too, rather than skip every event up to it.
    const start = () => {
      if (
        since === undefined || joined.cursor === undefined ||
        this.backend.compare(since, joined.cursor) > 0
      ) sub.lastId = joined.cursor ?? this.backend.start;
    };
    if (joined.ready) start();
    else {
      sub.ready = joined.setup.then(start);
      // Seen by next(); a caller that awaits `ready` sees it too.
      sub.ready.catch(() => {});
    }
    return sub as Subscription<T>;
  }

  unsubscribe(sub: Sub): void {
    this.#subs.delete(sub);
    const topic = this.#topics.get(sub.topic);
    if (topic === undefined) return;
    topic.subscribers.delete(sub);
    // The reader leaves the topic out of its next read.
    if (topic.subscribers.size === 0) this.#topics.delete(sub.topic);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const sub of [...this.#subs]) sub.close();
    this.#wake?.abort();
    this.#idle?.();
    await this.backend.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new TypeError(`${this.#label} is closed`);
  }

  /** A topic became ready: start the reader, or wake it to read it too. */
  #kick(): void {
    if (!this.#running) {
      this.#running = true;
      this.#run().finally(() => this.#running = false);
    } else {
      this.#wake?.abort();
      this.#idle?.();
    }
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (!this.#closed) {
      const cursors = new Map<string, string | undefined>();
      for (const topic of this.#topics.values()) {
        if (topic.ready) cursors.set(topic.name, topic.cursor);
      }
      if (cursors.size === 0) {
        await new Promise<void>((resolve) => this.#idle = resolve);
        this.#idle = undefined;
        continue;
      }
      const wake = new AbortController();
      this.#wake = wake;
      let batches: [string, StoredEvent[]][];
      try {
        batches = await this.backend.read(cursors, wake.signal);
        failures = 0;
      } catch (error) {
        if (this.#closed) return;
        this.settings.onError(error);
        failures++;
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(5000, 50 * 2 ** failures))
        );
        continue;
      } finally {
        this.#wake = undefined;
      }
      for (const [name, events] of batches) {
        const topic = this.#topics.get(name);
        if (topic === undefined || !topic.ready) continue;
        for (const stored of events) {
          if (
            topic.cursor !== undefined &&
            this.backend.compare(stored.id, topic.cursor) <= 0
          ) continue;
          topic.cursor = stored.id;
          const event = eventOf(stored);
          for (const sub of topic.subscribers) sub.push(event);
        }
      }
    }
  }
}

function checkTopic(topic: unknown, label: string): void {
  if (
    typeof topic !== "string" || topic.length === 0 ||
    topic.length > MAX_TOPIC_LENGTH
  ) {
    throw new TypeError(
      `${label}: topic must be a string of 1 to ${MAX_TOPIC_LENGTH} characters, got ${
        typeof topic === "string" ? `${topic.length} characters` : typeof topic
      }`,
    );
  }
}
