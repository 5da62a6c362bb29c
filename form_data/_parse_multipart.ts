/**
 * Turns a multipart body into `FormData`, with limits and upload handlers.
 *
 * @module
 */

import type { BodyReader } from "./body_reader.ts";
import { ByteCollector } from "./_bytes.ts";
import type { Limits } from "./limits.ts";
import { MultipartReader } from "./_multipart.ts";
import {
  type FormDataErrorPart,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
  MaxFilesExceededError,
  MaxFileSizeExceededError,
} from "./errors.ts";
import {
  FileUpload,
  type FileUploadHandler,
  LEND_CHUNKS,
  type LendingSource,
} from "./file_upload.ts";
import type { PartHead } from "./_headers.ts";

const decoder = new TextDecoder();

/** Parses a multipart body; cancels it and aborts uploads on failure. */
export async function parseMultipartBody(
  body: BodyReader,
  boundary: string,
  limits: Limits,
): Promise<FormData> {
  const uploads = new AbortController();
  const state: ParseState = { failure: undefined, signal: uploads.signal };
  try {
    const reader = new MultipartReader(
      () => body.read(),
      boundary,
      limits.maxHeaderSize,
      (chunk) => body.recycle(chunk),
    );
    const form = new FormData();
    let fields = 0;
    let files = 0;
    for (
      let head = await reader.next();
      head !== null;
      head = await reader.next()
    ) {
      const part: FormDataErrorPart = head.filename === undefined
        ? { fieldName: head.name }
        : { fieldName: head.name, fileName: head.filename };
      body.part = part;
      if (head.skip) {
        // A part that names no field is dropped, but counted against
        // maxFields so that empty parts cannot spin the parser for free;
        // its bytes still count against maxTotalSize as they are read.
        if (++fields > limits.maxFields) {
          throw new MaxFieldsExceededError(limits.maxFields, part);
        }
        while (await reader.read(true) !== null);
        continue;
      }
      if (head.filename === undefined) {
        if (++fields > limits.maxFields) {
          throw new MaxFieldsExceededError(limits.maxFields, part);
        }
        const max = limits.maxFieldSize;
        const bytes = await readField(
          reader,
          await reader.read(),
          max,
          part,
        );
        form.append(head.name, decoder.decode(bytes));
        continue;
      }
      const type = head.type || "application/octet-stream";
      const first = await reader.read();
      if (first === null && head.filename === "") {
        // No file chosen: browsers send an empty part with an empty file
        // name. Keep it as the native parser does (an empty File named ""),
        // without calling the handler or counting it against maxFiles; it
        // adds an entry, so it counts against maxFields.
        if (++fields > limits.maxFields) {
          throw new MaxFieldsExceededError(limits.maxFields, part);
        }
        form.append(head.name, new File([], "", { type }));
        continue;
      }
      if (++files > limits.maxFiles) {
        throw new MaxFilesExceededError(limits.maxFiles, part);
      }
      const handler = limits.uploadHandler;
      if (handler === undefined) {
        const max = limits.maxFileSize;
        form.append(
          head.name,
          await readFile(reader, first, max, part, head.filename, type),
        );
      } else {
        const value = await runHandler(
          handler,
          reader,
          first,
          head,
          limits,
          state,
        );
        if (value === null || value === undefined) continue;
        if (typeof value === "string" || value instanceof File) {
          form.append(head.name, value);
        } else if (value instanceof Blob) {
          form.append(head.name, value, head.filename);
        } else {
          throw new TypeError(
            "An uploadHandler must return a Blob, a string, null or undefined",
          );
        }
      }
    }
    body.part = undefined;
    // Read the epilogue (usually a lone CRLF) so that the connection can be
    // reused; maxTotalSize and the idle timeout still bound it.
    while (await body.read() !== null);
    return form;
  } catch (error) {
    const reason = state.failure ?? error;
    uploads.abort(reason);
    await body.cancel(reason);
    throw reason;
  }
}

interface ParseState {
  /** The first error raised while a handler read its upload. */
  failure: unknown;
  signal: AbortSignal;
}

/** Hands one file to the upload handler, streaming its bytes. */
async function runHandler(
  handler: FileUploadHandler,
  reader: MultipartReader,
  first: Uint8Array | null,
  head: PartHead,
  limits: Limits,
  state: ParseState,
): Promise<Blob | string | null | undefined> {
  const part = { fieldName: head.name, fileName: head.filename };
  const max = limits.maxFileSize;
  let open = true;
  // Bytes of this part read so far, by the handler or by us.
  let size = 0;
  let started = false;
  async function* source(borrow: boolean): AsyncGenerator<Uint8Array> {
    started = true;
    try {
      let piece = first;
      while (piece !== null) {
        size += piece.length;
        if (size > max) throw new MaxFileSizeExceededError(max, part);
        yield piece;
        // Reading on after the handler settled would steal the next part.
        if (!open) {
          throw new TypeError(
            `The upload "${head.filename}" was read after its handler settled`,
          );
        }
        piece = await reader.read(borrow);
      }
    } catch (error) {
      state.failure ??= error;
      throw error;
    }
  }
  const chunks: LendingSource = {
    [Symbol.asyncIterator]: () => source(false),
    [LEND_CHUNKS]: () => ({ [Symbol.asyncIterator]: () => source(true) }),
  };
  const upload = new FileUpload({
    fieldName: head.name,
    name: head.filename ?? "",
    type: head.type || "application/octet-stream",
    signal: state.signal,
  }, chunks);
  let value: Blob | string | null | undefined;
  try {
    value = await handler(upload);
  } finally {
    open = false;
  }
  // A handler that swallowed a parse error must not hide it.
  if (state.failure !== undefined) throw state.failure;
  // Bytes the handler left unread count against maxFileSize too: the file
  // was sent, whether or not the handler wanted it all.
  if (first !== null) {
    if (!started) size += first.length;
    for (
      let piece = await reader.read(true);
      piece !== null;
      piece = await reader.read(true)
    ) {
      size += piece.length;
      if (size > max) break;
    }
    if (size > max) throw new MaxFileSizeExceededError(max, part);
  }
  return value;
}

/**
 * Reads a file part into a `File`. A file that came in one piece becomes a
 * `Blob` of that piece. Longer files are copied, piece by piece, into a
 * block, and each full block into a `Blob` (Deno keeps blob bytes outside
 * the JS heap, and a `File` made of blobs does not copy them again), so the
 * input chunks are lent and read into again instead of piling up until the
 * end of the part. Why blocks of 1 MiB rather than a `Blob` per chunk: in a
 * fresh process, 800 `Blob` constructions for a 50 MiB file run in cold code
 * and cost more than copying the bytes once more into a block that stays in
 * the cache (see BENCHMARKS.md, "Multipart and form bodies"). (Not `ByteCollector`: it keeps
 * views of the pieces, which here are lent.)
 */
async function readFile(
  reader: MultipartReader,
  first: Uint8Array | null,
  max: number,
  part: FormDataErrorPart,
  name: string,
  type: string,
): Promise<File> {
  const blobs: Blob[] = [];
  let block: Uint8Array<ArrayBuffer> | undefined;
  let used = 0;
  const append = (piece: Uint8Array) => {
    for (let offset = 0; offset < piece.length;) {
      const count = Math.min(piece.length - offset, FILE_BLOCK_SIZE - used);
      block!.set(piece.subarray(offset, offset + count), used);
      used += count;
      offset += count;
      if (used === FILE_BLOCK_SIZE) {
        blobs.push(new Blob([block!]));
        used = 0;
      }
    }
  };
  let size = 0;
  for (let piece = first; piece !== null; piece = await reader.read(true)) {
    if (size < YIELD_AT && size + piece.length >= YIELD_AT) {
      // A large file: let pending timers and tasks run once, so that blob
      // memory of files already garbage-collected is released (Deno frees
      // it in FinalizationRegistry callbacks, which run as tasks, never
      // between the microtasks of a parse) and reused for this file instead
      // of fresh pages. 50 MiB files parsed back to back (median of
      // bench/form_data/report.ts 5): 27 ms with this, 159 ms without.
      // Before the first large file of the process there is none of ours
      // to free, and the wait (a timer tick: about 3 ms of a 55 ms parse in
      // a fresh process, bench/form_data/fresh.ts) is skipped.
      if (largeFileSeen) await new Promise((resolve) => setTimeout(resolve, 0));
      largeFileSeen = true;
    }
    size += piece.length;
    if (size > max) throw new MaxFileSizeExceededError(max, part);
    // The first piece was not borrowed: it stays valid, and a file that
    // comes in one piece becomes a Blob of it, with no copy into a block.
    if (piece === first) continue;
    if (block === undefined) {
      // The block of the last file read, unless another parse holds it.
      block = spareBlock ?? new Uint8Array(FILE_BLOCK_SIZE);
      spareBlock = undefined;
      append(first!);
    }
    append(piece);
  }
  const options = { type };
  if (block === undefined) {
    const parts = first === null ? [] : [first as Uint8Array<ArrayBuffer>];
    return new File(parts, name, options);
  }
  if (used > 0) blobs.push(new Blob([block.subarray(0, used)]));
  // The blobs copied the bytes: the block can serve the next file. (A parse
  // that fails drops it; one running at the same time made its own.)
  spareBlock = block;
  return new File(blobs, name, options);
}

/** Size at which an in-memory file yields once to the event loop. */
const YIELD_AT = 1024 * 1024;
/** Whether a file of YIELD_AT bytes or more was read in this process. */
let largeFileSeen = false;

/** Block that the pieces of an in-memory file are packed into. */
export const FILE_BLOCK_SIZE = 1024 * 1024;

/** A block no parse is using, kept warm for the next file. */
let spareBlock: Uint8Array<ArrayBuffer> | undefined;

/**
 * Collects the bytes of a text field, at most `max`. Memory follows the
 * field's size, not the number of pieces it came in (see ByteCollector).
 */
async function readField(
  reader: MultipartReader,
  first: Uint8Array | null,
  max: number,
  part: FormDataErrorPart,
): Promise<Uint8Array> {
  const bytes = new ByteCollector();
  for (let piece = first; piece !== null; piece = await reader.read()) {
    if (bytes.size + piece.length > max) {
      throw new MaxFieldSizeExceededError(max, part);
    }
    bytes.push(piece);
  }
  return bytes.bytes();
}
