/**
 * {@linkcode createDiskUploadHandler}: an upload handler that streams each
 * file to a directory, and {@linkcode DiskFile}, the `File` it returns.
 *
 * @module
 */

import {
  borrowChunks,
  type FileUpload,
  type FileUploadHandler,
} from "./file_upload.ts";
import {
  isNotFound,
  makeTempFile,
  mkdir,
  openReadSync,
  openWriteSync,
  readFile,
  type ReadHandle,
  removeSync,
  statSync,
} from "../runtime/fs.ts";
import { formDataKeepsFiles } from "../runtime/form_data.ts";

const HANDLER = "createDiskUploadHandler()";
const FILE = "DiskFile";

/** Options of {@linkcode createDiskUploadHandler}. */
export interface DiskUploadHandlerOptions {
  /**
   * Where files are written; created when missing, and made again when it
   * is removed while the app runs.
   *
   * @default {the system temp directory}
   */
  directory?: string;
  /**
   * Start of each file's random name.
   *
   * @default {"upload-"}
   */
  prefix?: string;
}

/**
 * Makes an upload handler that writes each uploaded file to `directory`
 * under a random name (mode 0600; the client's file
 * name is never used as a path) while it streams in, so memory stays flat
 * whatever the file size (a 200 MiB upload over HTTP raises peak RSS by a
 * few MiB; see BENCHMARKS.md). Chunks are written with synchronous writes
 * of at most 64 KiB each, which keep memory flat in Deno, at the cost of
 * blocking the event loop for the time of each write to the page cache. The `FormData` then holds a {@linkcode DiskFile}:
 * a `File` with the client's name and type whose bytes are read from disk,
 * and whose `path` the app can move or delete.
 *
 * The files belong to the app once the handler returns: move the ones to
 * keep and remove the others. When the request fails to parse (a limit, a
 * malformed body, a client that went away), the files written for it are
 * removed before the error is reported.
 *
 * Needs `--allow-write` (and `--allow-read` to read the files back) on
 * Deno. Runs on Deno and Node >= 20.16 (through `node:fs`). Not on Bun:
 * its `FormData` copies each file it is given and hands back a plain,
 * empty `File` instead of the {@linkcode DiskFile}, so there
 * `createDiskUploadHandler()` throws an `Error` saying so; stream uploads
 * to disk with your own `uploadHandler` and keep the paths yourself. On a
 * runtime without a file system (Cloudflare Workers) each upload fails
 * with an `Error` saying so.
 *
 * @example Save uploads in a folder
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import {
 *   createDiskUploadHandler,
 *   DiskFile,
 *   formData,
 * } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const uploads = await Deno.makeTempDir(); // "./uploads" in an app
 * const router = createRouter();
 * router.post(
 *   "/upload",
 *   formData({
 *     maxFileSize: 1024 ** 3,
 *     maxTotalSize: 1024 ** 3 + 65536,
 *     uploadHandler: createDiskUploadHandler({ directory: uploads }),
 *   }),
 *   async (context) => {
 *     const file = context.get(FormData)?.get("file");
 *     if (!(file instanceof DiskFile)) return new Response("No file", { status: 400 });
 *     await Deno.rename(file.path, `${uploads}/${crypto.randomUUID()}`);
 *     return new Response(`Saved ${file.size} bytes`);
 *   },
 * );
 *
 * const body = new FormData();
 * body.set("file", new File(["hello"], "hello.txt"));
 * const response = await router.fetch(
 *   new Request("http://localhost/upload", { method: "POST", body }),
 * );
 * await response.text(); // "Saved 5 bytes"
 * await Deno.remove(uploads, { recursive: true });
 * // Deno.serve(router.fetch);
 * ```
 *
 * @param options Where to write and how to name the files.
 * @returns A handler for the `uploadHandler` option.
 * @throws {Error} On a runtime whose `FormData` copies files (Bun).
 */
export function createDiskUploadHandler(
  options: DiskUploadHandlerOptions = {},
): FileUploadHandler {
  if (!formDataKeepsFiles()) {
    throw new Error(
      "createDiskUploadHandler(): this runtime's FormData copies each File " +
        "(Bun does), which would turn every DiskFile into an empty File; " +
        "write uploads to disk in an uploadHandler of your own",
    );
  }
  const { directory, prefix = "upload-" } = options;
  // The directory is made once and the promise shared, but a failure is
  // not kept: the next upload tries again.
  let ready: Promise<void> | undefined;
  const makeDirectory = (): Promise<void> => {
    const made: Promise<void> = mkdir(directory!, HANDLER)
      .catch((error) => {
        if (ready === made) ready = undefined;
        throw error;
      });
    return made;
  };
  return async (upload: FileUpload): Promise<DiskFile> => {
    if (directory !== undefined) await (ready ??= makeDirectory());
    let path: string;
    try {
      path = await makeTempFile({ dir: directory, prefix }, HANDLER);
    } catch (error) {
      // The directory was removed since it was made (a temp cleaner, a
      // deploy step): make it again and retry, once.
      if (directory === undefined || !isNotFound(error)) {
        throw error;
      }
      ready = undefined;
      await (ready ??= makeDirectory());
      path = await makeTempFile({ dir: directory, prefix }, HANDLER);
    }
    // Sync so that the file is gone by the time the parse error surfaces.
    const remove = () => {
      try {
        removeSync(path, HANDLER);
      } catch {
        // Already moved or removed.
      }
    };
    if (upload.signal.aborted) {
      remove();
      throw upload.signal.reason;
    }
    upload.signal.addEventListener("abort", remove, { once: true });
    let size = 0;
    const file = openWriteSync(path, HANDLER);
    try {
      // Each chunk is written before the next is read, so it is lent to us
      // and its buffer is read into again. Writes are synchronous: Deno's
      // async file writes held ~100 MiB more at peak for a 200 MiB upload,
      // and a write of one chunk (at most 64 KiB) to the page cache is short.
      for await (const chunk of borrowChunks(upload)) {
        file.writeAllSync(chunk);
        size += chunk.length;
      }
    } catch (error) {
      file.close();
      remove();
      throw error;
    }
    file.close();
    return new DiskFile(path, upload.name, { type: upload.type, size });
  };
}

/** Options of {@linkcode DiskFile}. */
export interface DiskFileOptions extends FilePropertyBag {
  /** The file's size in bytes; read from disk when left out. */
  size?: number;
}

/**
 * A `File` whose bytes live in a file on disk and are read only when asked
 * for (`stream()`, `arrayBuffer()`, `bytes()`, `text()`, `slice()`).
 *
 * Deno's own consumers of a `Blob` (such as `new Response(file)` or
 * `FormData` request bodies) do not call these methods and would see an
 * empty file: pass `file.stream()` to them instead.
 *
 * @example
 * ```ts
 * import { DiskFile } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello");
 * const file = new DiskFile(path, "hello.txt", { type: "text/plain" });
 * await file.text(); // "hello"
 * file.size; // 5
 * const response = new Response(file.stream());
 * await response.text(); // "hello"
 * await Deno.remove(path);
 * ```
 */
export class DiskFile extends File {
  /** Where the bytes are. */
  readonly path: string;
  /** The size in bytes, as it was when the file was written. */
  override readonly size: number;

  /**
   * Wraps a file that already exists on disk.
   *
   * @param path Where the bytes are.
   * @param name The file name to report (not a path).
   * @param options Type, modification time and size.
   */
  constructor(path: string, name: string, options: DiskFileOptions = {}) {
    super([], name, options);
    this.path = path;
    this.size = options.size ?? statSync(path, FILE).size;
  }

  /**
   * Streams the bytes from disk.
   *
   * @returns A stream of the file's bytes.
   */
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const path = this.path;
    // Opened on the first read, so an unread stream holds no file.
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    return new ReadableStream<Uint8Array<ArrayBuffer>>({
      async pull(controller) {
        reader ??= openReadSync(path, 0, FILE).stream().getReader();
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value as Uint8Array<ArrayBuffer>);
      },
      cancel(reason) {
        return reader?.cancel(reason);
      },
    });
  }

  /**
   * Reads the whole file.
   *
   * @returns Its bytes.
   */
  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return await readFile(this.path, FILE);
  }

  /**
   * Reads the whole file.
   *
   * @returns Its bytes.
   */
  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.byteOffset === 0 &&
        bytes.byteLength === bytes.buffer.byteLength
      ? bytes.buffer
      : bytes.slice().buffer;
  }

  /**
   * Reads the whole file as UTF-8 text.
   *
   * @returns Its text.
   */
  override async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  /**
   * Reads a range of the file into an in-memory `Blob` (synchronously, as
   * `Blob#slice` must return at once).
   *
   * @param start First byte; negative counts from the end.
   * @param end Byte after the last; negative counts from the end.
   * @param contentType Type of the new blob.
   * @returns The bytes of the range.
   */
  override slice(start?: number, end?: number, contentType?: string): Blob {
    const size = this.size;
    const from = clamp(start ?? 0, size);
    const to = Math.max(from, clamp(end ?? size, size));
    const bytes = new Uint8Array(to - from);
    if (bytes.length > 0) {
      // No `using` declaration: Node 20 cannot parse one.
      const file: ReadHandle = openReadSync(this.path, from, FILE);
      try {
        let offset = 0;
        while (offset < bytes.length) {
          const read = file.readSync(bytes.subarray(offset));
          if (read === null) break;
          offset += read;
        }
      } finally {
        file.close();
      }
    }
    return new Blob([bytes], { type: contentType ?? "" });
  }
}

function clamp(index: number, size: number): number {
  return index < 0 ? Math.max(size + index, 0) : Math.min(index, size);
}
