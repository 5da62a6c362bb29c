const encoder = new TextEncoder();

/**
 * A response with a default `Content-Type`: the one in `init.headers` wins.
 * A string body is encoded here, so the response carries its
 * `Content-Length` (the logger's `%contentLength` reads it before
 * `Deno.serve` would add one). Shared by `createHtmlResponse` and
 * `createJsonResponse`.
 */
export function typedResponse(
  body: string | ReadableStream<Uint8Array>,
  init: ResponseInit | undefined,
  contentType: string,
): Response {
  const headers = new Headers(init?.headers);
  if (!headers.has("Content-Type")) headers.set("Content-Type", contentType);
  let payload: BodyInit = body;
  if (typeof body === "string") {
    const bytes = encoder.encode(body);
    payload = bytes;
    if (!headers.has("Content-Length")) {
      headers.set("Content-Length", String(bytes.byteLength));
    }
  }
  return new Response(payload, {
    status: init?.status,
    statusText: init?.statusText,
    headers,
  });
}
