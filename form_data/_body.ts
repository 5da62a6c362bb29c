/**
 * Reads a request body chunk by chunk, enforcing `maxTotalSize` and an idle
 * timeout, and turning a broken stream into a {@linkcode FormDataParseError}.
 */

import {
  type FormDataErrorPart,
  FormDataParseError,
  FormDataTimeoutError,
  MaxTotalSizeExceededError,
} from "./errors.ts";

/** Size of the buffers a byte stream is read into. */
const CHUNK_SIZE = 64 * 1024;

/** Options of {@linkcode BodyReader}. */
export interface BodyReaderOptions {
  maxTotalSize: number;
  /** Milliseconds without data before giving up; 0 or Infinity: never. */
  idleTimeout: number;
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
 * what keeps a 200 MiB upload to disk within a few MiB.
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
  #spare: ArrayBuffer | undefined;
  #maxTotalSize: number;
  #idleTimeout: number;
  #done = false;
  /** When the pending read started, or -1 when none is pending. */
  #waitingSince = -1;
  #watchdog: ReturnType<typeof setTimeout> | undefined;
  #timeout: FormDataTimeoutError | undefined;

  constructor(stream: ReadableStream<Uint8Array>, options: BodyReaderOptions) {
    let byob: ReadableStreamBYOBReader | undefined;
    try {
      byob = stream.getReader({ mode: "byob" });
    } catch {
      // Not a byte stream: read the chunks it makes.
    }
    this.#byob = byob !== undefined;
    this.#reader = byob ?? stream.getReader();
    this.#maxTotalSize = options.maxTotalSize;
    const timeout = options.idleTimeout;
    this.#idleTimeout = timeout > 0 && timeout < 2 ** 31 ? timeout : 0;
  }

  /** The next chunk, or `null` at the end of the body. */
  async read(): Promise<Uint8Array | null> {
    if (this.#timeout !== undefined) throw this.#timeout;
    if (this.#done) return null;
    let result: ReadableStreamReadResult<Uint8Array>;
    if (this.#idleTimeout !== 0) {
      this.#waitingSince = performance.now();
      this.#watchdog ??= setTimeout(() => this.#watch(), this.#idleTimeout);
    }
    try {
      if (this.#byob) {
        // The read detaches (transfers) the buffer, so it is no spare now.
        const buffer = this.#spare ?? new ArrayBuffer(CHUNK_SIZE);
        this.#spare = undefined;
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
    const chunk = result.value;
    if (!(chunk instanceof Uint8Array)) {
      this.#stop();
      throw new TypeError("A request body stream must yield Uint8Array chunks");
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
    if (this.#byob && chunk.buffer.byteLength === CHUNK_SIZE) {
      this.#spare = chunk.buffer as ArrayBuffer;
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
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
  }

  #watch(): void {
    this.#watchdog = undefined;
    if (this.#done) return;
    const waited = this.#waitingSince === -1
      ? 0
      : performance.now() - this.#waitingSince;
    if (waited < this.#idleTimeout) {
      // Not idle long enough (or not waiting at all): look again when the
      // current wait would reach the timeout.
      this.#watchdog = setTimeout(
        () => this.#watch(),
        this.#idleTimeout - waited,
      );
      return;
    }
    this.#timeout = new FormDataTimeoutError(this.#idleTimeout, this.part);
    // Cancelling settles the pending read (as done); read() then throws.
    this.cancel(this.#timeout);
  }
}
