/**
 * Responses kept in a versioned store: a small JSON description (status,
 * headers, times) and the body's bytes in one value, as the response
 * cache and idempotency keys store them. Not part of the package API.
 *
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One value from a description and a body: 4 bytes of the description's
 * length (big-endian), the description as JSON, then the body.
 */
export function encodeRecord(meta: unknown, body?: Uint8Array): Uint8Array {
  const json = encoder.encode(JSON.stringify(meta));
  const bytes = new Uint8Array(4 + json.byteLength + (body?.byteLength ?? 0));
  new DataView(bytes.buffer).setUint32(0, json.byteLength);
  bytes.set(json, 4);
  if (body !== undefined) bytes.set(body, 4 + json.byteLength);
  return bytes;
}

/** The description and the body of a value, or `undefined` if it is not one. */
export function decodeRecord(
  bytes: Uint8Array,
): { meta: unknown; body: Uint8Array } | undefined {
  if (bytes.byteLength < 4) return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  if (4 + length > bytes.byteLength) return undefined;
  try {
    return {
      meta: JSON.parse(decoder.decode(bytes.subarray(4, 4 + length))),
      body: bytes.subarray(4 + length),
    };
  } catch {
    return undefined;
  }
}

/** A body read whole, or one too long to keep, still readable whole. */
export type ReadBody =
  | { complete: true; bytes: Uint8Array }
  | { complete: false; body: ReadableStream<Uint8Array> | null };

/**
 * Reads `response`'s body when it is at most `limit` bytes. A longer one
 * is not lost: the stream returned gives what was read, then the rest.
 */
export async function readBodyUpTo(
  response: Response,
  limit: number,
): Promise<ReadBody> {
  const length = Number(response.headers.get("content-length") ?? NaN);
  if (length > limit) return { complete: false, body: response.body };
  if (response.body === null) {
    return { complete: true, bytes: new Uint8Array(0) };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
    if (total > limit) {
      return { complete: false, body: replay(chunks, reader) };
    }
  }
  if (chunks.length === 1) return { complete: true, bytes: chunks[0] };
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { complete: true, bytes };
}

/** A stream of `chunks`, then what is left in `reader`. */
function replay(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index++]);
        return;
      }
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Headers a stored response never keeps: per connection, or per answer. */
const UNKEPT = new Set([
  "age",
  "connection",
  "content-length",
  "keep-alive",
  "proxy-connection",
  "set-cookie",
  "transfer-encoding",
  "upgrade",
  "x-cache",
]);

/** The headers worth keeping, as pairs. */
export function keptHeaders(headers: Headers): [string, string][] {
  const kept: [string, string][] = [];
  for (const [name, value] of headers) {
    if (!UNKEPT.has(name)) kept.push([name, value]);
  }
  return kept;
}
