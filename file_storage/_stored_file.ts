import { checkType, isMediaType } from "./types.ts";

/**
 * A `File` whose bytes stay in a storage until read: `stream()`, `bytes()`,
 * `text()` and `arrayBuffer()` open the range they need, and `slice()`
 * makes another such file over a smaller range without reading anything.
 *
 * @module
 */

/** Opens bytes `start` to `end` (exclusive) of the stored file. */
export type OpenRange = (
  start: number,
  end: number,
) => Promise<ReadableStream<Uint8Array>>;

/** What a {@linkcode StoredFile} is made from. */
export interface StoredFileInit {
  name: string;
  type: string;
  size: number;
  lastModified?: number;
  /** Where this file's first byte is in the stored one. */
  offset?: number;
}

export class StoredFile extends File {
  override readonly size: number;
  #open: OpenRange;
  #offset: number;

  constructor(open: OpenRange, init: StoredFileInit) {
    super([], init.name, {
      type: init.type,
      lastModified: init.lastModified,
    });
    this.size = init.size;
    this.#open = open;
    this.#offset = init.offset ?? 0;
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const start = this.#offset;
    const end = start + this.size;
    const open = this.#open;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    // Opened on the first read, so an unread stream costs no request.
    return new ReadableStream<Uint8Array<ArrayBuffer>>({
      async pull(controller) {
        if (end === start) return controller.close();
        reader ??= (await open(start, end)).getReader();
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value as Uint8Array<ArrayBuffer>);
      },
      cancel(reason) {
        return reader?.cancel(reason);
      },
    });
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    const bytes = new Uint8Array(this.size);
    let offset = 0;
    for await (const chunk of this.stream()) {
      if (offset + chunk.length > bytes.length) {
        throw new Error(
          `The stored file "${this.name}" is longer than its ${this.size} bytes: it changed while being read`,
        );
      }
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    if (offset !== bytes.length) {
      throw new Error(
        `The stored file "${this.name}" ended after ${offset} of its ${this.size} bytes: it changed while being read`,
      );
    }
    return bytes;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  /**
   * Another lazy file over part of this one; nothing is read until its
   * bytes are asked for, and then only that range.
   */
  override slice(start?: number, end?: number, contentType?: string): Blob {
    const size = this.size;
    const from = clamp(start ?? 0, size);
    const to = Math.max(from, clamp(end ?? size, size));
    return new StoredFile(this.#open, {
      name: this.name,
      type: contentType ?? "",
      size: to - from,
      lastModified: this.lastModified,
      offset: this.#offset + from,
    });
  }
}

function clamp(index: number, size: number): number {
  index = Math.trunc(index);
  return index < 0 ? Math.max(size + index, 0) : Math.min(index, size);
}

/** The media type `set()` stores for `file`. */
export function typeOf(
  file: File | Blob | ReadableStream<Uint8Array>,
  type: string | undefined,
  owner: string,
): string {
  if (type !== undefined) return checkType(type, owner);
  // A Blob's type may come from a client (an upload's part header): one
  // that no header can carry is dropped, not sent to the store.
  if (file instanceof Blob && file.type !== "" && isMediaType(file.type)) {
    return file.type;
  }
  return "application/octet-stream";
}

/**
 * The name `get()` gives back: `name`, else a `File`'s own name, else the
 * key.
 */
export function nameOf(
  name: string | undefined,
  key: string,
  file?: File | Blob | ReadableStream<Uint8Array>,
): string {
  if (name !== undefined) return name;
  if (file instanceof File && file.name !== "") return file.name;
  return key;
}

/** When the file was last changed: a `File`'s own date, else now. */
export function lastModifiedOf(
  file: File | Blob | ReadableStream<Uint8Array>,
): number {
  return file instanceof File && Number.isFinite(file.lastModified)
    ? file.lastModified
    : Date.now();
}

/** The bytes of `file` as a stream. */
export function streamOf(
  file: File | Blob | ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  return file instanceof ReadableStream ? file : file.stream();
}

/**
 * `stream` cut to `length` bytes (it may give more, when a server ignores
 * a range); cancelled once that many arrived.
 */
export function limitStream(
  stream: ReadableStream<Uint8Array>,
  skip: number,
  length: number,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let toSkip = skip;
  let left = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (true) {
        if (left === 0) {
          controller.close();
          await reader.cancel().catch(() => {});
          return;
        }
        const { value, done } = await reader.read();
        if (done) return controller.close();
        let chunk = value;
        if (toSkip > 0) {
          const cut = Math.min(toSkip, chunk.length);
          chunk = chunk.subarray(cut);
          toSkip -= cut;
        }
        if (chunk.length === 0) continue;
        if (chunk.length > left) chunk = chunk.subarray(0, left);
        left -= chunk.length;
        controller.enqueue(chunk);
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
