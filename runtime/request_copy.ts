/**
 * A copy of a request with another body, for middleware that must read the
 * body and leave it for the rest of the chain. Not `request.clone()`: on Deno
 * a clone of a `Deno.serve` request reads its `signal`, which switches the
 * server to its legacy abort behaviour and prints a warning for the process.
 * The copy reaches the original's `signal` only if the application reads it,
 * and keeps the symbols a server set on the original (the body Node already
 * read, the client address).
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
  // Only what the server added: the copy's own symbols are the runtime's
  // internals (Deno keeps a Request's body under one), which must stay the
  // copy's, or the copy would hold the original's body, already teed.
  const own = new Set(Object.getOwnPropertySymbols(copy));
  for (const key of Object.getOwnPropertySymbols(request)) {
    if (!own.has(key)) target[key] = source[key];
  }
  return copy;
}
