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

/** Options of {@linkcode BodyReader}. */
export interface BodyReaderOptions {
  maxTotalSize: number;
  /** Milliseconds without data before giving up; 0 or Infinity: never. */
  idleTimeout: number;
}

/** Pulls chunks from a body stream, one `read()` at a time. */
export class BodyReader {
  /** Bytes read so far. */
  total = 0;
  /** The part being read, named in errors. Set by the parser. */
  part: FormDataErrorPart | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #maxTotalSize: number;
  #idleTimeout: number;
  #done = false;

  constructor(stream: ReadableStream<Uint8Array>, options: BodyReaderOptions) {
    this.#reader = stream.getReader();
    this.#maxTotalSize = options.maxTotalSize;
    const timeout = options.idleTimeout;
    this.#idleTimeout = timeout > 0 && timeout < 2 ** 31 ? timeout : 0;
  }

  /** The next chunk, or `null` at the end of the body. */
  async read(): Promise<Uint8Array | null> {
    if (this.#done) return null;
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = this.#idleTimeout === 0
        ? await this.#reader.read()
        : await this.#readWithTimeout();
    } catch (error) {
      if (error instanceof FormDataParseError) throw error;
      // The client went away or the connection broke mid-body.
      throw new FormDataParseError(
        "The request body stream failed before the form was complete",
        { cause: error, ...this.part },
      );
    }
    if (result.done) {
      this.#done = true;
      return null;
    }
    const chunk = result.value;
    if (!(chunk instanceof Uint8Array)) {
      throw new TypeError("A request body stream must yield Uint8Array chunks");
    }
    this.total += chunk.length;
    if (this.total > this.#maxTotalSize) {
      throw new MaxTotalSizeExceededError(this.#maxTotalSize, this.part);
    }
    return chunk;
  }

  /** Stops reading: cancels the stream and releases it. Never throws. */
  async cancel(reason?: unknown): Promise<void> {
    this.#done = true;
    try {
      await this.#reader.cancel(reason);
    } catch {
      // Already errored or closed: nothing left to release.
    }
  }

  /** Releases the stream after a complete parse, without cancelling it. */
  release(): void {
    this.#done = true;
    this.#reader.releaseLock();
  }

  #readWithTimeout(): Promise<ReadableStreamReadResult<Uint8Array>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new FormDataTimeoutError(this.#idleTimeout, this.part);
        reject(error);
        // Cancelling settles the pending read, which then finds `reject`
        // already called; it also tells the server to stop receiving.
        this.cancel(error);
      }, this.#idleTimeout);
      this.#reader.read().then(
        (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}
