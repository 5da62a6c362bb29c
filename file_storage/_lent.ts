/**
 * Lent chunks between the upload handler and the storages that copy each
 * chunk before asking for the next (S3's part buffers, the local file's
 * writes): the parser can then read the request into the same buffer
 * again, and a long upload leaves no garbage behind. A storage says it
 * takes them with {@linkcode TAKES_LENT_CHUNKS}; any other (the memory
 * storage, an app's own) gets a stream of chunks it may keep.
 *
 * @module
 */

import {
  borrowChunks,
  type FileUpload,
  pullStream,
} from "../form_data/file_upload.ts";

/** Set to `true` on a storage whose `set()` never keeps a chunk. */
export const TAKES_LENT_CHUNKS: unique symbol = Symbol(
  "fetchkit.takesLentChunks",
);

/** Marks `storage` as one whose `set()` never keeps a chunk. */
export function takingLentChunks<T extends object>(storage: T): T {
  Object.defineProperty(storage, TAKES_LENT_CHUNKS, { value: true });
  return storage;
}

/** Whether `storage` copies each chunk before reading the next. */
export function takesLentChunks(storage: object): boolean {
  return (storage as { [TAKES_LENT_CHUNKS]?: boolean })[TAKES_LENT_CHUNKS] ===
    true;
}

/**
 * `upload`'s bytes as a stream whose chunks are valid only until the next
 * read: for storages that take lent chunks only.
 */
export function lentStream(upload: FileUpload): ReadableStream<Uint8Array> {
  return pullStream(borrowChunks(upload));
}
