/**
 * `HttpError`: an error that carries the HTTP answer it stands for. Throw
 * it from middleware or a handler and the router answers with its status,
 * headers and message instead of `500`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { HttpError } from "@fetchkit/toolkit/http-error";
 *
 * const router = createRouter();
 * router.get("/notes/:id", ({ params }) => {
 *   if (params.id !== "1") throw new HttpError(404, `No note ${params.id}`);
 *   return Response.json({ id: 1 });
 * });
 * const response = await router.fetch(new Request("http://localhost/notes/2"));
 * response.status; // 404
 * await response.text(); // "No note 2"
 * ```
 *
 * @module
 */

/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Headers of the answer, such as `Retry-After` or `WWW-Authenticate`. */
  headers?: HeadersInit;
  /**
   * Whether the message may reach the client. Default: `true` for 4xx,
   * `false` for 5xx (whose message is logged, and the client gets the
   * status text).
   */
  expose?: boolean;
  /** The error behind this one, kept for logs. */
  cause?: unknown;
}

import { NativeResponse } from "../response/native.ts";
import { STATUS_TEXT } from "./status_text.ts";

/**
 * The reason phrase of an error status (`"Not Found"` for 404), or
 * `"Error"` for a status without a registered one.
 *
 * @example
 * ```ts
 * import { statusText } from "@fetchkit/toolkit/http-error";
 *
 * statusText(413); // "Content Too Large"
 * ```
 *
 * @param status An HTTP status code.
 * @returns Its reason phrase.
 */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? "Error";
}

/**
 * An error with an HTTP status (400-599). The router answers a thrown
 * `HttpError` with its status, its `headers`, and its message: plain
 * text, or `{ "error": message }` as JSON when the request's `Accept`
 * prefers JSON to HTML. A message that is not exposed (5xx by default) is
 * replaced by the status text and the error is logged with
 * `console.error`. A router's own `onError` receives `HttpError`s first;
 * {@linkcode HttpError.prototype.toResponse} builds the same answer there.
 *
 * @example
 * ```ts
 * import { HttpError } from "@fetchkit/toolkit/http-error";
 *
 * const error = new HttpError(429, "Too many attempts", {
 *   headers: { "Retry-After": "60" },
 * });
 * const response = error.toResponse();
 * response.status; // 429
 * response.headers.get("Retry-After"); // "60"
 * await response.text(); // "Too many attempts"
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status, 400 to 599. */
  readonly status: number;
  /** Whether {@linkcode HttpError.prototype.message} may reach the client. */
  readonly expose: boolean;
  /** Headers of the answer, or `undefined`. */
  readonly headers: HeadersInit | undefined;

  /**
   * Creates an error that the router answers with `status`.
   *
   * @param status An HTTP error status, 400 to 599.
   * @param message What went wrong; default: the status text.
   * @param options Headers, `expose` and `cause`.
   * @throws {RangeError} When `status` is not an integer from 400 to 599.
   */
  constructor(status: number, message?: string, options?: HttpErrorOptions) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(
        `HttpError: status must be an integer from 400 to 599, got ${status}`,
      );
    }
    super(
      message ?? statusText(status),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "HttpError";
    this.status = status;
    this.expose = options?.expose ?? status < 500;
    this.headers = options?.headers;
  }

  /**
   * The answer for this error: its status and headers, and its message
   * (or the status text when not exposed), as text or, when `request`
   * prefers JSON to HTML, as `{ "error": message }`.
   *
   * @param request The request being answered, for its `Accept` header.
   * @returns A new response.
   */
  toResponse(request?: Request): Response {
    const text = this.expose ? this.message : statusText(this.status);
    const json = request !== undefined &&
      prefersJson(request.headers.get("accept"));
    const headers = new Headers(this.headers);
    headers.set(
      "Content-Type",
      json ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
    );
    return new NativeResponse(json ? JSON.stringify({ error: text }) : text, {
      status: this.status,
      headers,
    });
  }
}

/**
 * Whether an `Accept` header prefers JSON (`application/json` or any
 * `+json` type) to HTML (`text/html`): by q-value, then by order in the
 * header. Wildcards count for neither.
 *
 * @example
 * ```ts
 * import { prefersJson } from "@fetchkit/toolkit/http-error";
 *
 * prefersJson("application/json"); // true
 * prefersJson("text/html,application/json;q=0.9"); // false
 * prefersJson(null); // false
 * ```
 *
 * @param accept The request's `Accept` header, or `null`.
 * @returns `true` when JSON is preferred.
 */
export function prefersJson(accept: string | null): boolean {
  if (accept === null || !accept.includes("json")) return false;
  let json = -1;
  let html = -1;
  // Bounded: a header of thousands of ranges is read up to 64 of them.
  const ranges = accept.split(",", 64);
  for (let index = 0; index < ranges.length; index++) {
    const [type, ...parameters] = ranges[index].split(";");
    const media = type.trim().toLowerCase();
    let q = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split("=");
      if (name.trim().toLowerCase() === "q") q = Number(value) || 0;
    }
    if (q <= 0) continue;
    // Higher q wins; at equal q the earlier range wins (scaled index).
    const score = q * 1000 - index;
    if (media === "application/json" || media.endsWith("+json")) {
      if (score > json) json = score;
    } else if (media === "text/html") {
      if (score > html) html = score;
    }
  }
  return json > html;
}
