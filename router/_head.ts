/**
 * The answer to a HEAD request made from a GET route's response: the same
 * status and headers, no body, and the `Content-Length` the GET body would
 * have had (RFC 9110 §9.3.2). The length is measured only when the body is
 * at hand (a string or bytes body, up to 1 MiB); a live stream, such as
 * server-sent events, is never waited for.
 *
 * @module
 */

import { rememberedLength } from "../response/body_size.ts";
import { NativeResponse } from "../response/native.ts";

const MAX_MEASURED = 1024 * 1024;

export async function headResponse(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  // A body the toolkit made from a string is counted, not read.
  const declared = headers.has("content-length");
  let length = declared ? undefined : rememberedLength(response);
  if (length === undefined) {
    const body = response.body;
    if (body === null) return response;
    if (declared) body.cancel().catch(() => {});
    else length = await measure(body);
  }
  if (length !== undefined) headers.set("content-length", String(length));
  return new NativeResponse(null, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** The body's byte length if all of it is ready now; `undefined` otherwise. */
async function measure(
  body: ReadableStream<Uint8Array>,
): Promise<number | undefined> {
  const reader = body.getReader();
  let total = 0;
  try {
    while (total <= MAX_MEASURED) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const notReady = new Promise<null>((resolve) =>
        timer = setTimeout(resolve, 0, null)
      );
      const step = await Promise.race([reader.read(), notReady]);
      clearTimeout(timer);
      if (step === null) return undefined; // a chunk that is not ready now: a live stream
      if (step.done) return total;
      total += step.value.byteLength;
    }
    return undefined;
  } finally {
    reader.cancel().catch(() => {});
  }
}
