/**
 * {@linkcode FileUpload}: one uploaded file, handed to an upload handler
 * while its bytes are still arriving.
 *
 * @module
 */

import { ByteCollector } from "./_bytes.ts";

/**
 * A source may offer, under this key, a second way to read its bytes in
 * which each chunk is valid only until the next one is asked for, so that
 * the parser can read into the same buffer again. Private to this package:
 * only handlers that never keep a chunk (the disk handler) use it.
 */
export const LEND_CHUNKS: unique symbol = Symbol("fetchkit.lendChunks");

/** A source whose chunks may be lent; see {@linkcode LEND_CHUNKS}. */
export interface LendingSource extends AsyncIterable<Uint8Array> {
  [LEND_CHUNKS](): AsyncIterable<Uint8Array>;
}

let take: (upload: FileUpload, borrow: boolean) => AsyncIterable<Uint8Array>;

/**
 * `chunks` as a byte stream that asks for one chunk per read and none
 * ahead, so a lent chunk is never held past the next read; cancelling it
 * ends the iteration. Private to this package.
 */
export function pullStream(
  chunks: AsyncIterable<Uint8Array>,
): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  }, { highWaterMark: 0 });
}

/**
 * Reads `upload` with chunks that are valid only until the next one is
 * asked for (when its source can lend them; otherwise like `for await`).
 * Private to this package.
 */
export function borrowChunks(upload: FileUpload): AsyncIterable<Uint8Array> {
  return take(upload, true);
}

/** What {@linkcode FileUpload} is made from. */
export interface FileUploadInit {
  /** The form field name (`name=` of the part). */
  fieldName: string;
  /** The client's file name. Never use it as a path. */
  name: string;
  /** The part's `Content-Type`, `application/octet-stream` when absent. */
  type: string;
  /**
   * Aborted when parsing the rest of the body fails, so that a handler can
   * remove what it stored for this request. Defaults to a signal that never
   * aborts.
   */
  signal?: AbortSignal;
}

/**
 * Decides what goes into the `FormData` for one uploaded file: a `File` or
 * `Blob` (stored as a file), a string, or `null`/`undefined` to leave the
 * field out. It may read the upload's bytes as they arrive; bytes it does
 * not read are skipped. See {@linkcode createDiskUploadHandler} for one
 * that writes to disk.
 *
 * @example Keep only the size of each upload
 * ```ts
 * import type { FileUploadHandler } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const countBytes: FileUploadHandler = async (upload) => {
 *   let size = 0;
 *   for await (const chunk of upload) size += chunk.length;
 *   return String(size);
 * };
 * ```
 */
export type FileUploadHandler = (
  upload: FileUpload,
) =>
  | Blob
  | string
  | null
  | undefined
  | Promise<Blob | string | null | undefined>;

/**
 * An uploaded file whose bytes are read while the request streams in. Read
 * it once, with `for await`, {@linkcode FileUpload.stream},
 * {@linkcode FileUpload.bytes} or {@linkcode FileUpload.text}, and only
 * until the handler's promise settles: the parser then moves on. The size
 * limits apply while reading: an upload over `maxFileSize` makes the read
 * throw a `MaxFileSizeExceededError`.
 *
 * @example Make one in a test of an upload handler
 * ```ts
 * import { FileUpload } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const upload = new FileUpload(
 *   { fieldName: "avatar", name: "me.png", type: "image/png" },
 *   new Blob(["\x89PNG"]).stream(),
 * );
 * (await upload.bytes()).length; // 4
 * ```
 */
export class FileUpload implements AsyncIterable<Uint8Array> {
  /** The form field name (`name=` of the part). */
  readonly fieldName: string;
  /** The client's file name. Never use it as a path. */
  readonly name: string;
  /** The file's media type, `application/octet-stream` when not given. */
  readonly type: string;
  /** Aborted when parsing the rest of the body fails. */
  readonly signal: AbortSignal;
  #source: AsyncIterable<Uint8Array>;
  #used = false;

  static {
    take = (upload, borrow) => upload.#take(borrow);
  }

  /**
   * The parser makes these; make one yourself to test a handler.
   *
   * @param init The names and type of the file.
   * @param source Its bytes, for example a `ReadableStream<Uint8Array>`.
   */
  constructor(init: FileUploadInit, source: AsyncIterable<Uint8Array>) {
    this.fieldName = init.fieldName;
    this.name = init.name;
    this.type = init.type;
    this.signal = init.signal ?? new AbortController().signal;
    this.#source = source;
  }

  /**
   * Iterates over the bytes as they arrive.
   *
   * @returns An iterator of byte chunks; valid until the handler settles.
   */
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.#take()[Symbol.asyncIterator]();
  }

  /**
   * The bytes as a stream, for `pipeTo` into a file or a storage client.
   *
   * @returns A stream of byte chunks that pulls from the request.
   */
  stream(): ReadableStream<Uint8Array> {
    return pullStream(this.#take());
  }

  /**
   * Reads the whole file into memory.
   *
   * @returns All of its bytes.
   */
  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    // Small chunks are packed as they come (see ByteCollector), so a file
    // sent in tiny packets costs its size, not an array per packet.
    const chunks = new ByteCollector();
    for await (const chunk of this.#take()) chunks.push(chunk);
    // A new array, never a view into the request's buffers.
    return chunks.bytes(true);
  }

  /**
   * Reads the whole file as UTF-8 text.
   *
   * @returns Its text.
   */
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  #take(borrow = false): AsyncIterable<Uint8Array> {
    if (this.#used) {
      throw new TypeError(
        `The upload "${this.name}" (field "${this.fieldName}") was already read`,
      );
    }
    this.#used = true;
    const source = this.#source as Partial<LendingSource>;
    return borrow && source[LEND_CHUNKS] !== undefined
      ? source[LEND_CHUNKS]()
      : this.#source;
  }
}
