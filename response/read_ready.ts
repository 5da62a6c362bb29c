/**
 * Reads a response body while it is at hand: for the middleware that needs
 * a whole body (`etag()` hashes it, `compress()` compresses it in one call)
 * but must not hold back a body that is still being produced (server-sent
 * events, a page streamed while a query runs). Internal: shared by
 * `compress/` and `etag/`.
 *
 * @module
 */

/** What {@linkcode readReady} found: the whole body, or a stream of it. */
export type ReadReady =
  | { readonly whole: Uint8Array<ArrayBuffer> }
  | { readonly stream: ReadableStream<Uint8Array> };

/**
 * Turns of the microtask queue a queued chunk takes to arrive (2-5 seen on
 * Deno and Node). No timer beyond that: waiting even one turn of the event
 * loop for a chunk that is not there cost a streamed page 3-5 ms of time
 * to first byte on a loaded machine (BENCHMARKS.md, "Compression").
 */
const READY_TICKS = 20;

/**
 * The read's result if it is ready at once (within a few microtasks), else
 * `undefined`, the read left pending. A read that fails at once throws.
 */
async function readyNow<T>(read: Promise<T>): Promise<T | undefined> {
  let result: { value: T } | { error: unknown } | undefined;
  read.then((value) => result = { value }, (error) => result = { error });
  for (let i = 0; i < READY_TICKS && result === undefined; i++) {
    await undefined;
  }
  if (result === undefined) return undefined;
  if ("error" in result) throw result.error;
  return result.value;
}

/**
 * Reads `body` while each chunk is ready at once and the total stays
 * within `limit` bytes, passing each chunk read to `onChunk`. A body that
 * ends so comes back whole; any other (a live stream, or one over the
 * limit) as a stream that replays what was read and then the rest, so
 * nothing waits for a chunk that is not there yet and no byte is lost.
 */
export async function readReady(
  body: ReadableStream<Uint8Array>,
  limit: number,
  onChunk?: (chunk: Uint8Array) => void,
): Promise<ReadReady> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const read = reader.read();
    const step = await readyNow(read);
    if (step === undefined) return { stream: replay(chunks, reader, read) };
    if (step.done) break;
    chunks.push(step.value);
    total += step.value.byteLength;
    if (total > limit) return { stream: replay(chunks, reader, undefined) };
    onChunk?.(step.value);
  }
  return { whole: joined(chunks, total) };
}

/**
 * Reads `body` to its end, waiting for each chunk (for a body that declares
 * its length, so it ends), as long as it stays within `limit` bytes: the
 * whole body, or (a body longer than the limit) a stream that replays what
 * was read and then the rest. Each chunk read goes to `onChunk`.
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
    if (total > limit) return { stream: replay(chunks, reader, undefined) };
    onChunk(step.value);
  }
  return { whole: joined(chunks, total) };
}

/** `chunks` as one array of `total` bytes (the one chunk itself if alone). */
function joined(chunks: Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

/** The chunks read so far, then the pending read (if any), then the rest. */
function replay(
  chunks: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index]);
        chunks[index++] = undefined as unknown as Uint8Array;
        return;
      }
      const step = await (pending ?? reader.read());
      pending = undefined;
      if (step.done) controller.close();
      else controller.enqueue(step.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
