/**
 * Form bodies for the fetch router: the {@linkcode formData} middleware,
 * {@linkcode parseFormData}, a streaming `multipart/form-data` parser with
 * limits, and upload handlers that write files to disk as they arrive.
 *
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { formData } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const router = createRouter({ middleware: [formData({ maxFileSize: 5 * 1024 * 1024 })] });
 * router.post("/profile", (context) => {
 *   const form = context.get(FormData);
 *   const avatar = form?.get("avatar");
 *   return new Response(avatar instanceof File ? `${avatar.size} bytes` : "no file");
 * });
 * ```
 *
 * `context.get(FormFields)` gives the same form as a plain record of fields
 * (see {@linkcode FormFields}), cheaper to get than the `FormData` when a
 * handler only reads fields by name.
 *
 * Status codes for bodies that cannot be parsed: 400 malformed, 413 a limit
 * exceeded, 408 a client that stopped sending (`idleTimeout`) or took too
 * long to send the whole body (`bodyTimeout`).
 *
 * A file's `name` (`File.name`, `FileUpload.name`) is exactly what the client
 * sent, paths included (`C:\files\a.dat`, `../../etc/passwd`), as Deno's
 * own `request.formData()` keeps it: it is never a safe path. Never join it
 * into a file system path; store uploads under names the server chooses
 * (as `createDiskUploadHandler` does) and treat the client's name as text.
 *
 * A part without a `Content-Disposition` names no field: it is skipped (as
 * browsers and busboy do) and counted against `maxFields`.
 *
 * @module
 */

export { formData, type FormDataOptions } from "./middleware.ts";
export {
  type FormFieldRecord,
  FormFields,
  type FormFieldValue,
} from "./fields.ts";
export { parseFormData, type ParseFormDataOptions } from "./parse.ts";
export {
  FileUpload,
  type FileUploadHandler,
  type FileUploadInit,
} from "./file_upload.ts";
export {
  createDiskUploadHandler,
  DiskFile,
  type DiskFileOptions,
  type DiskUploadHandlerOptions,
} from "./disk_upload.ts";
export {
  type FormDataErrorPart,
  type FormDataLimit,
  FormDataLimitError,
  FormDataParseError,
  FormDataTimeoutError,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
  MaxFilesExceededError,
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxTotalSizeExceededError,
} from "./errors.ts";
