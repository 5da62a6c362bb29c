/**
 * Files kept under string keys: in memory, in a directory, or in any
 * S3-compatible object store (AWS S3, Cloudflare R2, MinIO, Ceph), behind
 * one {@linkcode FileStorage} interface (`set`, `get`, `has`, `remove`,
 * `list`), plus {@linkcode createStorageUploadHandler}, which streams
 * `formData()` uploads straight into a storage.
 *
 * - {@linkcode createMemoryFileStorage}: tests and development.
 * - {@linkcode createLocalFileStorage}: one server's disk; keys never become
 *   paths.
 * - {@linkcode createS3FileStorage}: files every server of an app shares,
 *   with presigned URLs (a `PUT` signs its type and length, a `GET` can
 *   ask for a download) and browser upload forms bounded in size
 *   (`presignPost()`); multipart uploads in parts of `partSize`, ranged
 *   reads, outages as `503`, every answer under a deadline.
 *
 * `get()` returns a `File` whose bytes stay in the storage until read, and
 * whose `slice()` reads only its range: send one with
 * `new Response(file.stream())`, or `file.slice(start, end).stream()` for a
 * `Range` request.
 *
 * @example Serve a stored file
 * ```ts
 * import { createMemoryFileStorage } from "@fetchkit/toolkit/file-storage";
 *
 * const storage = createMemoryFileStorage();
 * await storage.set("docs/a.txt", new Blob(["hello"], { type: "text/plain" }), {
 *   name: "a.txt",
 * });
 * const file = await storage.get("docs/a.txt");
 * const response = file === null
 *   ? new Response("Not Found", { status: 404 })
 *   : new Response(file.stream(), {
 *     headers: { "Content-Type": file.type, "Content-Length": String(file.size) },
 *   });
 * await response.text(); // "hello"
 * ```
 *
 * @module
 */

export {
  type FileStorage,
  type FileStorageEntry,
  type FileStorageListOptions,
  type FileStorageListResult,
  type FileStorageSetOptions,
} from "./types.ts";
export { createMemoryFileStorage } from "./memory.ts";
export { createLocalFileStorage } from "./local.ts";
export {
  createS3FileStorage,
  type PresignedPost,
  type PresignOptions,
  type PresignPostOptions,
  S3Error,
  type S3ErrorOptions,
  type S3FileStorage,
  type S3FileStorageOptions,
} from "./s3.ts";
export {
  createStorageUploadHandler,
  type StorageUploadHandlerOptions,
} from "./upload_handler.ts";
