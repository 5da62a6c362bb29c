/**
 * Error classes thrown while parsing a form body. Every one extends
 * {@linkcode FormDataParseError}, an `HttpError`, and carries the HTTP
 * `status` that the `formData()` middleware (or, when thrown, the router's
 * error boundary) answers with: 400 for a malformed body, 413 for a limit
 * exceeded and 408 for a client that stopped sending.
 *
 * @module
 */

import { HttpError } from "../http_error/mod.ts";

/** Which part of the body an error is about, when it is known. */
export interface FormDataErrorPart {
  /** The form field name (`name=` of the part). */
  fieldName?: string;
  /** The client's file name, for a file part. */
  fileName?: string;
}

/**
 * The body is not a well-formed form body: no boundary, bad part headers, a
 * missing final boundary or a stream that ended early. Status 400.
 * Subclasses report limits (413) and timeouts (408). An `HttpError`, so a
 * thrown one is answered with its status and message by the router.
 *
 * @example Tell parse errors from bugs
 * ```ts
 * import {
 *   FormDataParseError,
 *   parseFormData,
 * } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const request = new Request("http://localhost/", {
 *   method: "POST",
 *   headers: { "content-type": "multipart/form-data" }, // no boundary
 *   body: "x",
 * });
 * try {
 *   await parseFormData(request);
 * } catch (error) {
 *   if (!(error instanceof FormDataParseError)) throw error;
 *   console.log(error.status, error.message); // 400 ...
 * }
 * ```
 */
export class FormDataParseError extends HttpError {
  /** The form field name, when the error is about one part. */
  readonly fieldName: string | undefined;
  /** The client's file name, when the error is about a file part. */
  readonly fileName: string | undefined;

  /**
   * Makes a parse error with status 400.
   *
   * @param message What went wrong, naming the field or file when known.
   * @param options The part it is about, and the `cause`.
   */
  constructor(
    message: string,
    options?: ErrorOptions & FormDataErrorPart,
  ) {
    super(statusOf(new.target), message, { cause: options?.cause });
    this.name = new.target.name;
    this.fieldName = options?.fieldName;
    this.fileName = options?.fileName;
  }
}

/**
 * The client took too long to send the body: no data arrived for
 * `idleTimeout` milliseconds, or the whole body did not arrive within
 * `bodyTimeout` milliseconds. `limit` tells which. Status 408.
 *
 * @example
 * ```ts
 * import { FormDataTimeoutError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const error = new FormDataTimeoutError(30_000);
 * error.status; // 408
 * error.limit; // "idleTimeout"
 * ```
 */
export class FormDataTimeoutError extends FormDataParseError {
  /** The timeout that ran out, in milliseconds. */
  readonly timeout: number;
  /** The option that set it. */
  readonly limit: "idleTimeout" | "bodyTimeout";

  /**
   * Made when no body data arrived for `timeout` milliseconds
   * (`idleTimeout`), or when the body took longer than `timeout`
   * milliseconds in all (`bodyTimeout`).
   *
   * @param timeout The timeout, in milliseconds.
   * @param part The part being read when it ran out.
   * @param limit The option that set the timeout.
   */
  constructor(
    timeout: number,
    part?: FormDataErrorPart,
    limit: "idleTimeout" | "bodyTimeout" = "idleTimeout",
  ) {
    super(
      `${
        limit === "idleTimeout"
          ? `No request body data arrived for ${timeout} ms`
          : `The request body did not arrive within ${timeout} ms`
      } (${limit})${describePart(part, " while reading ")}`,
      part,
    );
    this.timeout = timeout;
    this.limit = limit;
  }
}

/** The names of the limit options, as used in messages. */
export type FormDataLimit =
  | "maxFileSize"
  | "maxFiles"
  | "maxFieldSize"
  | "maxFields"
  | "maxHeaderSize"
  | "maxTotalSize";

/**
 * A limit was exceeded. Status 413. `limit` names the option and `max` its
 * value; the subclasses tell which limit it was.
 *
 * @example Render your own page for limits
 * ```ts
 * import {
 *   formData,
 *   FormDataLimitError,
 * } from "@fetchkit/toolkit/form-data-middleware";
 *
 * const middleware = formData({
 *   maxFileSize: 5 * 1024 * 1024,
 *   onError: (error) =>
 *     new Response(
 *       error instanceof FormDataLimitError
 *         ? `Too large: ${error.message}`
 *         : "Bad form",
 *       { status: error.status },
 *     ),
 * });
 * ```
 */
export class FormDataLimitError extends FormDataParseError {
  /** The option that was exceeded. */
  readonly limit: FormDataLimit;
  /** Its value. */
  readonly max: number;

  /**
   * Base constructor of the limit errors; prefer a subclass.
   *
   * @param limit The option that was exceeded.
   * @param max Its value.
   * @param message The full message.
   * @param part The part it is about.
   */
  constructor(
    limit: FormDataLimit,
    max: number,
    message: string,
    part?: FormDataErrorPart,
  ) {
    super(message, part);
    this.limit = limit;
    this.max = max;
  }
}

/**
 * A file is larger than `maxFileSize` bytes.
 *
 * @example
 * ```ts
 * import { MaxFileSizeExceededError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * new MaxFileSizeExceededError(1024, { fieldName: "avatar", fileName: "me.png" })
 *   .message; // File "me.png" (field "avatar") is larger than maxFileSize (1024 bytes)
 * ```
 */
export class MaxFileSizeExceededError extends FormDataLimitError {
  /**
   * Builds the message from the limit and the part.
   *
   * @param max The limit, in bytes.
   * @param part The file.
   */
  constructor(max: number, part: FormDataErrorPart) {
    super(
      "maxFileSize",
      max,
      `${describePart(part)} is larger than maxFileSize (${max} bytes)`,
      part,
    );
  }
}

/**
 * A body has more than `maxFiles` files.
 *
 * @example
 * ```ts
 * import { MaxFilesExceededError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * new MaxFilesExceededError(2, { fieldName: "docs", fileName: "c.pdf" }).status; // 413
 * ```
 */
export class MaxFilesExceededError extends FormDataLimitError {
  /**
   * Builds the message from the limit and the part.
   *
   * @param max The limit, a number of files.
   * @param part The first file over the limit.
   */
  constructor(max: number, part: FormDataErrorPart) {
    super(
      "maxFiles",
      max,
      `${describePart(part)} is one file more than maxFiles (${max} files)`,
      part,
    );
  }
}

/**
 * A text field's value is larger than `maxFieldSize` bytes.
 *
 * @example
 * ```ts
 * import { MaxFieldSizeExceededError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * new MaxFieldSizeExceededError(100, { fieldName: "bio" }).message;
 * // Field "bio" is larger than maxFieldSize (100 bytes)
 * ```
 */
export class MaxFieldSizeExceededError extends FormDataLimitError {
  /**
   * Builds the message from the limit and the part.
   *
   * @param max The limit, in bytes.
   * @param part The field.
   */
  constructor(max: number, part: FormDataErrorPart) {
    super(
      "maxFieldSize",
      max,
      `${describePart(part)} is larger than maxFieldSize (${max} bytes)`,
      part,
    );
  }
}

/**
 * A body has more than `maxFields` text fields.
 *
 * @example
 * ```ts
 * import { MaxFieldsExceededError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * new MaxFieldsExceededError(1000, { fieldName: "x" }).limit; // "maxFields"
 * ```
 */
export class MaxFieldsExceededError extends FormDataLimitError {
  /**
   * Builds the message from the limit and the part.
   *
   * @param max The limit, a number of fields.
   * @param part The first field over the limit.
   */
  constructor(max: number, part: FormDataErrorPart) {
    super(
      "maxFields",
      max,
      `${describePart(part)} is one field more than maxFields (${max} fields)`,
      part,
    );
  }
}

/**
 * The headers of one multipart part are larger than `maxHeaderSize` bytes.
 *
 * @example
 * ```ts
 * import { MaxHeaderSizeExceededError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * new MaxHeaderSizeExceededError(8192, 3).message;
 * // Headers of part 3 are larger than maxHeaderSize (8192 bytes)
 * ```
 */
export class MaxHeaderSizeExceededError extends FormDataLimitError {
  /**
   * Builds the message from the limit and the part.
   *
   * @param max The limit, in bytes.
   * @param partNumber The 1-based number of the part in the body.
   */
  constructor(max: number, partNumber: number) {
    super(
      "maxHeaderSize",
      max,
      `Headers of part ${partNumber} are larger than maxHeaderSize (${max} bytes)`,
    );
  }
}

/**
 * The body is larger than `maxTotalSize` bytes (checked against
 * `Content-Length` first, then while reading).
 *
 * @example
 * ```ts
 * import { MaxTotalSizeExceededError } from "@fetchkit/toolkit/form-data-middleware";
 *
 * new MaxTotalSizeExceededError(1024, { fieldName: "f", fileName: "a.bin" }).message;
 * // Request body is larger than maxTotalSize (1024 bytes) while reading file "a.bin" (field "f")
 * ```
 */
export class MaxTotalSizeExceededError extends FormDataLimitError {
  /**
   * Builds the message from the limit and the part.
   *
   * @param max The limit, in bytes.
   * @param part The part being read when the limit was passed.
   */
  constructor(max: number, part?: FormDataErrorPart) {
    super(
      "maxTotalSize",
      max,
      `Request body is larger than maxTotalSize (${max} bytes)${
        describePart(part, " while reading ")
      }`,
      part,
    );
  }
}

/** 408 for timeouts, 413 for limits, 400 for the rest. */
function statusOf(target: abstract new (...args: never[]) => unknown): number {
  if (
    target === FormDataTimeoutError ||
    target.prototype instanceof FormDataTimeoutError
  ) return 408;
  if (
    target === FormDataLimitError ||
    target.prototype instanceof FormDataLimitError
  ) return 413;
  return 400;
}

/** `File "a.txt" (field "f")`, `Field "f"`, or "" when nothing is known. */
function describePart(part: FormDataErrorPart | undefined, lead = ""): string {
  if (part === undefined) return "";
  const { fieldName, fileName } = part;
  if (fileName !== undefined) {
    const file = `${lead ? "file" : "File"} ${JSON.stringify(fileName)}`;
    return fieldName === undefined
      ? lead + file
      : `${lead}${file} (field ${JSON.stringify(fieldName)})`;
  }
  if (fieldName !== undefined) {
    return `${lead}${lead ? "field" : "Field"} ${JSON.stringify(fieldName)}`;
  }
  return "";
}
