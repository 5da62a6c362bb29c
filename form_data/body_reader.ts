/**
 * Reads a request body chunk by chunk, enforcing `maxTotalSize`, an idle
 * timeout and a deadline for the whole body, and turning a broken stream
 * into a {@linkcode FormDataParseError}.
 *
 * @module
 */

import {
  type FormDataErrorPart,
  FormDataParseError,
  FormDataTimeoutError,
  MaxTotalSizeExceededError,
} from "./errors.ts";
import { timerDelay } from "./limits.ts";
import { unwatch, type Watch, watch } from "./_watchdog.ts";
import type { BodyProgress } from "../body_progress/body_progress.ts";

/** Size of the buffers a byte stream is read into. */
const CHUNK_SIZE = 64 * 1024;
/**
 * A read shorter than this is copied out of its buffer, so that the parts
 * kept of it (a text field's bytes) do not pin the whole buffer.
 */
const SMALL_READ = CHUNK_SIZE / 4;
/** Most buffers kept to be read into again. */
const MAX_SPARES = 2;

/** Options of {@linkcode BodyReader}. */
export interface BodyReaderOptions {
  maxTotalSize: number;
  /** Milliseconds without data before giving up; 0 or Infinity: never. */
  idleTimeout: number;
  /**
   * Milliseconds from the start of reading to the end of the body before
   * giving up; 0 or Infinity: never.
   */
  bodyTimeout: number;
  /**
   * What a middleware that peeked at the body saw of it: its bytes come
   * again at once, and the idle and body clocks count from its times.
   */
  progress?: BodyProgress;
}

/**
 * Pulls chunks from a body stream, one `read()` at a time.
 *
 * The idle timeout is a watchdog timer that runs once per `idleTimeout`
 * rather than a timer per read: with 64 KiB chunks a per-read timer costs
 * more than the multipart search itself. Only time spent waiting for the
 * client counts; time the consumer spends (writing a file) does not.
 *
 * Byte streams (request bodies in `Deno.serve`) are read with a BYOB
 * reader into 64 KiB buffers, and a buffer handed back with `recycle()` is
 * read into again. Each default read allocates a new buffer, and V8 lets
 * about 64 MiB of dead ones pile up before it collects them: recycling is
 * what keeps a 200 MiB upload to disk within a few MiB. A short read (a
 * client sending small packets) is copied out, and its buffer kept as the
 * next one: a consumer that keeps the bytes (a text field) would otherwise
 * pin 64 KiB per packet.
 *
 * The body timeout is a single timer set when the reader is made: a client
 * that trickles a byte just often enough to stay under the idle timeout
 * still runs out of time.
 */
export class BodyReader {
  /** Bytes read so far. */
  total = 0;
  /** The part being read, named in errors. Set by the parser. */
  part: FormDataErrorPart | undefined;
  #reader:
    | ReadableStreamBYOBReader
    | ReadableStreamDefaultReader<Uint8Array>;
  #byob: boolean;
  /** Buffers to read into again; see `recycle()`. */
  #spares: ArrayBuffer[] = [];
  #maxTotalSize: number;
  #idleTimeout: number;
  #done = false;
  /** When the pending read started, or -1 when none is pending. */
  #waitingSince = -1;
  /**
   * One deadline watches both the idle timeout and the body deadline, on
   * the timer the form parsers share (`_watchdog.ts`): a `setTimeout` per
   * body cost a short request about a quarter of its throughput.
   */
  #watchdog: Watch | undefined;
  /** The body deadline in milliseconds, or 0 for none. */
  #bodyTimeout: number;
  #startedAt = performance.now();
  #timeout: FormDataTimeoutError | undefined;
  /**
   * A peek's bytes and the time its last byte arrived: the first read past
   * them has been waiting since then. Cleared once used.
   */
  #peeked: BodyProgress | undefined;

  /**
   * @param stream The request body.
   * @param options Limits and timeouts.
   * @param sizeHint The declared size (`Content-Length`), when known: a small
   *   body is read with a default reader, cheaper to set up than a BYOB one.
   */
  constructor(
    stream: ReadableStream<Uint8Array>,
    options: BodyReaderOptions,
    sizeHint?: number,
  ) {
    let byob: ReadableStreamBYOBReader | undefined;
    const hint = sizeHint;
    const small = hint !== undefined && hint >= 0 && hint < CHUNK_SIZE;
    // A BYOB reader pays off through recycled buffers on large bodies; it
    // costs more to set up than a small body takes to read.
    if (!small) {
      try {
        byob = stream.getReader({ mode: "byob" });
      } catch {
        // Not a byte stream: read the chunks it makes.
      }
    }
    this.#byob = byob !== undefined;
    this.#reader = byob ?? stream.getReader();
    this.#maxTotalSize = options.maxTotalSize;
    this.#idleTimeout = timerDelay(options.idleTimeout);
    this.#bodyTimeout = timerDelay(options.bodyTimeout);
    const progress = options.progress;
    if (progress !== undefined) {
      this.#peeked = progress;
      this.#startedAt = Math.min(this.#startedAt, progress.startedAt);
    }
  }

  /** The next chunk, or `null` at the end of the body. */
  async read(): Promise<Uint8Array | null> {
    if (this.#timeout !== undefined) throw this.#timeout;
    if (this.#done) return null;
    let result: ReadableStreamReadResult<Uint8Array>;
    if (this.#idleTimeout !== 0 || this.#bodyTimeout !== 0) {
      const now = performance.now();
      this.#waitingSince = now;
      if (this.#peeked !== undefined && this.total >= this.#peeked.bytes) {
        // Past the bytes a peek buffered: the client has been quiet since
        // the last of them arrived.
        this.#waitingSince = this.#peeked.lastDataAt;
        this.#peeked = undefined;
        // The deadline moved earlier than the one the watchdog may be set
        // for: set it again.
        if (this.#watchdog !== undefined) unwatch(this.#watchdog);
        this.#watchdog = undefined;
      }
      this.#watchdog ??= watch(this.#nextCheck(now), () => this.#watch());
    }
    try {
      if (this.#byob) {
        // The read detaches (transfers) the buffer, so it is no spare now.
        const buffer = this.#spares.pop() ?? new ArrayBuffer(CHUNK_SIZE);
        result = await (this.#reader as ReadableStreamBYOBReader).read(
          new Uint8Array(buffer),
        );
      } else {
        result = await (this.#reader as ReadableStreamDefaultReader<Uint8Array>)
          .read();
      }
    } catch (error) {
      this.#stop();
      if (this.#timeout !== undefined) throw this.#timeout;
      // The client went away or the connection broke mid-body.
      throw new FormDataParseError(
        "The request body stream failed before the form was complete",
        { cause: error, ...this.part },
      );
    } finally {
      this.#waitingSince = -1;
    }
    if (this.#timeout !== undefined) throw this.#timeout;
    if (result.done) {
      this.#stop();
      return null;
    }
    let chunk = result.value;
    if (!(chunk instanceof Uint8Array)) {
      this.#stop();
      throw new TypeError("A request body stream must yield Uint8Array chunks");
    }
    if (
      chunk.length < SMALL_READ && chunk.length * 4 <= chunk.buffer.byteLength
    ) {
      const buffer = chunk.buffer;
      chunk = chunk.slice();
      // Nothing else refers to a buffer our BYOB read filled: read into it
      // again.
      if (this.#byob && buffer.byteLength === CHUNK_SIZE) {
        this.#spares.push(buffer as ArrayBuffer);
      }
    }
    this.total += chunk.length;
    if (this.total > this.#maxTotalSize) {
      throw new MaxTotalSizeExceededError(this.#maxTotalSize, this.part);
    }
    return chunk;
  }

  /**
   * Hands back a chunk from `read()` whose bytes nobody uses any more, to
   * be read into again.
   */
  recycle(chunk: Uint8Array): void {
    // Two spares: the one a short read was copied out of, and the chunk
    // the parser is done with. Keeping one only would drop the other, and
    // a new buffer per short read would pile up as garbage.
    if (
      this.#byob && chunk.buffer.byteLength === CHUNK_SIZE &&
      this.#spares.length < MAX_SPARES && this.#spares[0] !== chunk.buffer
    ) {
      this.#spares.push(chunk.buffer as ArrayBuffer);
    }
  }

  /** Stops reading: cancels the stream and releases it. Never throws. */
  async cancel(reason?: unknown): Promise<void> {
    this.#stop();
    try {
      await this.#reader.cancel(reason);
    } catch {
      // Already errored or closed: nothing left to release.
    }
  }

  /** Releases the stream after a complete parse, without cancelling it. */
  release(): void {
    this.#stop();
    this.#reader.releaseLock();
  }

  #stop(): void {
    this.#done = true;
    if (this.#watchdog !== undefined) unwatch(this.#watchdog);
    this.#watchdog = undefined;
  }

  /** Fails the read under way, or the next one, with `timeout`. */
  #expire(timeout: FormDataTimeoutError): void {
    if (this.#done || this.#timeout !== undefined) return;
    this.#timeout = timeout;
    // Cancelling settles the pending read (as done); read() then throws.
    this.cancel(timeout);
  }

  /** Milliseconds until a timeout could next be due, seen at `now`. */
  #nextCheck(now: number): number {
    let delay = Infinity;
    if (this.#idleTimeout !== 0) {
      const waited = this.#waitingSince === -1 ? 0 : now - this.#waitingSince;
      delay = this.#idleTimeout - waited;
    }
    if (this.#bodyTimeout !== 0) {
      delay = Math.min(delay, this.#bodyTimeout - (now - this.#startedAt));
    }
    return Math.max(0, delay);
  }

  #watch(): void {
    this.#watchdog = undefined;
    if (this.#done) return;
    const now = performance.now();
    if (this.#bodyTimeout !== 0 && now - this.#startedAt >= this.#bodyTimeout) {
      this.#expire(
        new FormDataTimeoutError(this.#bodyTimeout, this.part, "bodyTimeout"),
      );
      return;
    }
    const waited = this.#waitingSince === -1 ? 0 : now - this.#waitingSince;
    if (this.#idleTimeout !== 0 && waited >= this.#idleTimeout) {
      this.#expire(new FormDataTimeoutError(this.#idleTimeout, this.part));
      return;
    }
    // Nothing due yet (or not waiting at all): look again when something could be.
    this.#watchdog = watch(this.#nextCheck(now), () => this.#watch());
  }
}
