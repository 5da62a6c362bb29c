/** Turns a multipart body into `FormData`, with limits and upload handlers. */

import type { BodyReader } from "./_body.ts";
import type { Limits } from "./_limits.ts";
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
      if (head.filename === undefined) {
        if (++fields > limits.maxFields) {
          throw new MaxFieldsExceededError(limits.maxFields, part);
        }
        const max = limits.maxFieldSize;
        const pieces = await readPieces(
          reader,
          await reader.read(),
          max,
          () => new MaxFieldSizeExceededError(max, part),
        );
        form.append(head.name, decodeText(pieces));
        continue;
      }
      const type = head.type || "application/octet-stream";
      const first = await reader.read();
      if (first === null && head.filename === "") {
        // No file chosen: browsers send an empty part with an empty file
        // name. Keep it as the native parser does (an empty File named ""),
        // without calling the handler or counting it against maxFiles.
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
  async function* source(borrow: boolean): AsyncGenerator<Uint8Array> {
    let size = 0;
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
  return value;
}

/**
 * Reads a file part into a `File`. Each piece is copied into a `Blob` as it
 * arrives (Deno keeps blob bytes outside the JS heap, and a `File` made of
 * blobs does not copy them again), so the input chunks are lent and read
 * into again instead of piling up until the end of the part.
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
  let size = 0;
  for (let piece = first; piece !== null; piece = await reader.read(true)) {
    size += piece.length;
    if (size > max) throw new MaxFileSizeExceededError(max, part);
    blobs.push(new Blob([piece as Uint8Array<ArrayBuffer>]));
  }
  return new File(blobs, name, { type });
}

/** Collects the pieces of the current part, at most `max` bytes. */
async function readPieces(
  reader: MultipartReader,
  first: Uint8Array | null,
  max: number,
  tooLarge: () => Error,
): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (let piece = first; piece !== null; piece = await reader.read()) {
    size += piece.length;
    if (size > max) throw tooLarge();
    pieces.push(piece);
  }
  return pieces;
}

function decodeText(pieces: Uint8Array[]): string {
  if (pieces.length === 0) return "";
  if (pieces.length === 1) return decoder.decode(pieces[0]);
  let size = 0;
  for (const piece of pieces) size += piece.length;
  const joined = new Uint8Array(size);
  let offset = 0;
  for (const piece of pieces) {
    joined.set(piece, offset);
    offset += piece.length;
  }
  return decoder.decode(joined);
}
