/**
 * A response with a default `Content-Type`: the one in `init.headers` wins.
 * Shared by `createHtmlResponse` and `createJsonResponse`.
 */
export function typedResponse(
  body: BodyInit | null,
  init: ResponseInit | undefined,
  contentType: string,
): Response {
  const headers = new Headers(init?.headers);
  if (!headers.has("Content-Type")) headers.set("Content-Type", contentType);
  return new Response(body, {
    status: init?.status,
    statusText: init?.statusText,
    headers,
  });
}
