// Helpers for the form_data tests: hand-built multipart bodies, so that
// tests control every byte, and streams that deliver them in given chunks.

const encoder = new TextEncoder();

/** A text field or a file of a hand-built multipart body. */
export type TestPart =
  | { name: string; value: string }
  | {
    name: string;
    filename: string;
    type?: string;
    content: string | Uint8Array;
  };

export const BOUNDARY = "----TestBoundary7MA4YWxkTrZu0gW";

/** Encodes a header value the way browsers do (HTML's form encoding). */
function browserEscape(value: string): string {
  return value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Builds a multipart/form-data body as a browser would send it. */
export function multipartBody(
  parts: TestPart[],
  boundary: string = BOUNDARY,
): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${
      browserEscape(part.name)
    }"`;
    if ("filename" in part) {
      head += `; filename="${browserEscape(part.filename)}"\r\nContent-Type: ${
        part.type ?? "application/octet-stream"
      }`;
    }
    chunks.push(encoder.encode(head + "\r\n\r\n"));
    const content = "value" in part ? part.value : part.content;
    chunks.push(
      typeof content === "string" ? encoder.encode(content) : content,
    );
    chunks.push(encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return concat(chunks);
}

export function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** A stream that yields exactly `chunks`, one per pull. */
export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

/** Cuts `bytes` at the given offsets. */
export function splitAt(bytes: Uint8Array, ...cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of cuts) {
    out.push(bytes.slice(from, cut));
    from = cut;
  }
  out.push(bytes.slice(from));
  return out;
}

/** A POST request with a multipart body delivered in `chunks`. */
export function multipartRequest(
  chunks: Uint8Array[] | Uint8Array,
  boundary: string = BOUNDARY,
  contentType = `multipart/form-data; boundary=${boundary}`,
): Request {
  const list = chunks instanceof Uint8Array ? [chunks] : chunks;
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": contentType },
    body: streamOf(list),
  });
}

/** Entries of a form as plain data, files as `{ file, type, text }`. */
export async function entriesOf(
  form: FormData,
): Promise<[string, string | { file: string; type: string; text: string }][]> {
  const out: [string, string | { file: string; type: string; text: string }][] =
    [];
  for (const [name, value] of form) {
    out.push([
      name,
      typeof value === "string"
        ? value
        : { file: value.name, type: value.type, text: await value.text() },
    ]);
  }
  return out;
}

/** Rejection of `promise`, or a failure when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-Error: ${String(error)}`);
  }
  throw new Error("expected a rejection, but the promise resolved");
}

/**
 * A byte stream (as `Deno.serve` request bodies are) that yields copies of
 * `chunks`, so the parser reads it with a BYOB reader and recycles buffers.
 */
export function byteStreamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (i < chunks.length) return controller.enqueue(chunks[i++].slice());
      controller.close();
      // A pending BYOB read is released only by this (Streams standard).
      controller.byobRequest?.respond(0);
    },
  });
}
