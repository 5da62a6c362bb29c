// Helpers for the validation tests: requests with JSON, streamed bodies that
// count what was pulled, and an assertion on the HttpError thrown.
import assert from "node:assert/strict";
import { HttpError } from "@fetchkit/toolkit/http-error";

const encoder = new TextEncoder();

/** A POST with `body` and the given content type (JSON by default). */
export function jsonRequest(
  body: BodyInit | null,
  headers: Record<string, string> = {},
): Request {
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

/** A body stream and what the reader pulled of it. */
export interface CountedStream {
  stream: ReadableStream<Uint8Array>;
  /** Bytes handed to the reader so far. */
  pulled(): number;
  /** Whether the reader cancelled it. */
  cancelled(): boolean;
}

/**
 * `total` bytes of `byte`, made 64 KiB at a time as they are pulled: never
 * held whole, so a 1 GiB body costs nothing until read.
 */
export function repeatedStream(byte: string, total: number): CountedStream {
  const chunk = encoder.encode(byte.repeat(64 * 1024));
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const size = Math.min(chunk.length, total - sent);
      sent += size;
      controller.enqueue(chunk.slice(0, size));
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => sent, cancelled: () => cancelled };
}

/** A stream that sends `first` and then nothing, never closing. */
export function stalledStream(first: string): CountedStream {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => first.length, cancelled: () => cancelled };
}

/** A POST whose body is `stream`, with the given headers. */
export function streamRequest(
  stream: ReadableStream<Uint8Array>,
  headers: Record<string, string> = { "content-type": "application/json" },
): Request {
  return new Request("http://localhost/", {
    method: "POST",
    headers,
    body: stream,
    // @ts-ignore: `duplex` is required by Node for a stream body.
    duplex: "half",
  });
}

/** Asserts `promise` rejects with an `HttpError` of `status` matching `message`. */
export async function assertHttpError(
  promise: Promise<unknown>,
  status: number,
  message: RegExp,
): Promise<HttpError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(
    caught instanceof HttpError,
    `expected an HttpError, got ${caught}`,
  );
  assert.equal(caught.status, status, caught.message);
  assert.match(caught.message, message);
  return caught;
}
