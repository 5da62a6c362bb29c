/**
 * A copy of a request with another body, for middleware that must read the
 * body and leave it for the rest of the chain. Not `request.clone()`: on Deno
 * a clone of a `Deno.serve` request reads its `signal`, which switches the
 * server to its legacy abort behaviour and prints a warning for the process.
 * The copy reaches the original's `signal` only if the application reads it,
 * and keeps the toolkit's own symbols a server set on the original (the body
 * Node already read, the work `waitUntil()` tracks): those named
 * `fetchkit.*`, never the runtime's internal ones (copying Deno's would hand
 * the copy the original's body).
 *
 * @module
 */

/** `request` with `body` instead of its own (bytes, or a stream's branch). */
export function requestWithBody(
  request: Request,
  body: BodyInit | null,
): Request {
  const copy = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    // A stream body goes through as it arrives.
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
  Object.defineProperty(copy, "signal", {
    get: () => request.signal,
    configurable: true,
  });
  const source = request as unknown as Record<symbol, unknown>;
  const target = copy as unknown as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(request)) {
    if (key.description?.startsWith("fetchkit.")) target[key] = source[key];
  }
  return copy;
}
