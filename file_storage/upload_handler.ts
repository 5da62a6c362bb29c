/**
 * {@linkcode createStorageUploadHandler}: a `formData()` upload handler
 * that streams each file into a {@linkcode FileStorage}.
 *
 * @module
 */

import type {
  FileUpload,
  FileUploadHandler,
} from "../form_data/file_upload.ts";
import { formDataKeepsFiles } from "../runtime/form_data.ts";
import { checkKey, type FileStorage, isMediaType } from "./types.ts";
import { lentStream, takesLentChunks } from "./_lent.ts";

const OWNER = "createStorageUploadHandler()";

/** Options of {@linkcode createStorageUploadHandler}. */
export interface StorageUploadHandlerOptions {
  /**
   * The key each upload is stored under. Default: a random UUID. Never
   * build it from `upload.name` alone: two clients may send the same name,
   * and the name is the client's to choose.
   */
  key?(upload: FileUpload): string | Promise<string>;
}

/**
 * Makes an upload handler for `formData()` that streams each uploaded
 * file straight into `storage` while it arrives: no temporary file, and
 * memory bounded by what the storage buffers (about two parts on S3;
 * `createLocalFileStorage()` writes each chunk as it comes). The
 * `FormData` then holds, for each file, the `File` that `storage.get()`
 * returns: the client's name and type, its bytes read back from the
 * storage when asked for.
 *
 * The files belong to the app once the handler returns: remove the ones
 * not to keep. A file over `maxFileSize`, a client that goes away, or a
 * storage that fails stops the upload, and the storage keeps nothing of
 * it (an S3 multipart upload is aborted); when parsing a later part of the
 * body fails, the files already stored for the request are removed. A
 * storage that is down answers `503` through the router (its
 * `StoreUnavailableError`).
 *
 * Not on Bun: its `FormData` copies each file it is given and hands back a
 * plain, empty `File`, so there this throws an `Error` saying so; write an
 * `uploadHandler` that calls `storage.set(key, upload.stream())` and
 * returns the key instead.
 *
 * @example Uploads into a storage
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 * import {
 *   createMemoryFileStorage,
 *   createStorageUploadHandler,
 * } from "@fetchkit/toolkit/file-storage";
 *
 * const storage = createMemoryFileStorage(); // createS3FileStorage() in production
 * const router = createRouter();
 * router.post(
 *   "/avatar",
 *   formData({
 *     maxFileSize: 2 * 1024 * 1024,
 *     uploadHandler: createStorageUploadHandler(storage, {
 *       key: (upload) => `avatars/${crypto.randomUUID()}`,
 *     }),
 *   }),
 *   (context) => {
 *     const file = context.get(FormData)?.get("avatar");
 *     if (!(file instanceof File)) return new Response("No file", { status: 400 });
 *     return new Response(`Stored ${file.name}, ${file.size} bytes`);
 *   },
 * );
 *
 * const body = new FormData();
 * body.set("avatar", new File(["png"], "me.png", { type: "image/png" }));
 * const response = await router.fetch(
 *   new Request("http://localhost/avatar", { method: "POST", body }),
 * );
 * await response.text(); // "Stored me.png, 3 bytes"
 * (await storage.list({ prefix: "avatars/" })).files.length; // 1
 * ```
 *
 * @param storage Where the files go.
 * @param options How keys are made.
 * @returns A handler for the `uploadHandler` option.
 * @throws {Error} On a runtime whose `FormData` copies files (Bun).
 */
export function createStorageUploadHandler(
  storage: FileStorage,
  options: StorageUploadHandlerOptions = {},
): FileUploadHandler {
  if (typeof storage?.set !== "function" || typeof storage.get !== "function") {
    throw new TypeError(`${OWNER}: storage must be a FileStorage`);
  }
  if (!formDataKeepsFiles()) {
    throw new Error(
      `${OWNER} does not work on this runtime (Bun): its FormData copies ` +
        "each file and would hand back an empty one. Write an uploadHandler " +
        "that calls storage.set(key, upload.stream()) and returns the key.",
    );
  }
  return async (upload) => {
    const key = checkKey(
      await (options.key?.(upload) ?? crypto.randomUUID()),
      OWNER,
    );
    if (upload.signal.aborted) throw upload.signal.reason;
    // The parser's buffers are lent to storages that copy at once.
    const bytes = takesLentChunks(storage)
      ? lentStream(upload)
      : upload.stream();
    await storage.set(key, bytes, {
      // The client's type: kept when a header can carry it, else dropped
      // (application/octet-stream), never a failure of the upload.
      type: isMediaType(upload.type) ? upload.type : undefined,
      name: upload.name,
    });
    // A later part failing to parse: what this request stored goes.
    upload.signal.addEventListener(
      "abort",
      () => void storage.remove(key).catch(() => {}),
      { once: true },
    );
    const file = await storage.get(key);
    if (file === null) {
      throw new Error(
        `${OWNER}: "${key}" was removed while its upload was stored`,
      );
    }
    return file;
  };
}
