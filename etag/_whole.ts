/**
 * Reading a body that declares its length: whole, waiting for each chunk
 * (the length says it ends), up to a limit.
 *
 * @module
 */

import type { ReadReady } from "../response/read_ready.ts";

/** `Content-Length` as a whole number of bytes, else `undefined`. */
export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get("content-length");
  if (value === null || !/^\s*\d{1,15}\s*$/.test(value)) return undefined;
  return Number(value);
}

/**
 * Reads `body` to its end, passing each chunk to `onChunk`, as long as it
 * stays within `limit` bytes: the whole body, or (past the limit: a body
 * longer than it declared) a stream that replays what was read, then the
 * rest, so no byte is lost.
 */
export async function readWhole(
  body: ReadableStream<Uint8Array>,
  limit: number,
  onChunk: (chunk: Uint8Array) => void,
): Promise<ReadReady> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    chunks.push(step.value);
    total += step.value.byteLength;
    if (total > limit) return { stream: replay(chunks, reader) };
    onChunk(step.value);
  }
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { whole };
}

/** The chunks read so far, then the rest of `reader`. */
function replay(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index]);
        chunks[index++] = undefined as unknown as Uint8Array;
        return;
      }
      const step = await reader.read();
      if (step.done) controller.close();
      else controller.enqueue(step.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
