/**
 * PLACEHOLDER until the coordinator's `http_error/mod.ts` lands on main: the
 * same API (`new HttpError(status, message?, { headers?, expose?, cause? })`),
 * replaced by main's file on merge.
 *
 * @module
 */

/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Headers applied to the answer. */
  headers?: HeadersInit;
  /** Whether the message reaches the client; default true for 4xx. */
  expose?: boolean;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * An error that carries the HTTP status to answer with.
 *
 * @example
 * ```ts
 * import { HttpError } from "@fetchkit/toolkit/http-error";
 *
 * new HttpError(404, "No such note").status; // 404
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** Whether the message reaches the client. */
  readonly expose: boolean;
  /** Headers applied to the answer. */
  readonly headers: HeadersInit | undefined;

  /**
   * @param status The HTTP status, 400 to 599.
   * @param message What went wrong.
   * @param options Headers, expose, cause.
   */
  constructor(status: number, message?: string, options?: HttpErrorOptions) {
    super(message ?? String(status), { cause: options?.cause });
    this.name = "HttpError";
    this.status = status;
    this.expose = options?.expose ?? status < 500;
    this.headers = options?.headers;
  }
}
