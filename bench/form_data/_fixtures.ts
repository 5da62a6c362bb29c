// Shared by bench/form_data/multipart_bench.ts, report.ts and
// memory.ts: the bodies, and one function per parser that turns a
// body into FormData with File objects, so every peer does the same work.

import { parseFormData } from "@fetchkit/toolkit/form-data-middleware";
import { parseMultipartStream } from "@remix-run/multipart-parser";
import busboyModule from "busboy";

export const BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
/** What Deno.serve hands a handler per read, roughly: 64 KiB. */
export const CHUNK_SIZE = 64 * 1024;
const encoder = new TextEncoder();

/** One file of `size` pseudo-random bytes. */
export function largeFileBody(size: number): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  const body = new Uint8Array(head.length + size + tail.length);
  body.set(head);
  for (let offset = 0; offset < size; offset += 65536) {
    crypto.getRandomValues(
      body.subarray(
        head.length + offset,
        head.length + Math.min(size, offset + 65536),
      ),
    );
  }
  body.set(tail, head.length + size);
  return body;
}

/** `count` short text fields, as a big form or a settings page sends. */
export function smallFieldsBody(count: number): Uint8Array<ArrayBuffer> {
  let text = "";
  for (let i = 0; i < count; i++) {
    text +=
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="field_${i}"\r\n\r\n` +
      `value number ${i} ✓ with some text\r\n`;
  }
  return encoder.encode(text + `--${BOUNDARY}--\r\n`);
}

let byteStreams = false;

/** What {@linkcode byteStreamOption} read from a script's arguments. */
export interface StreamOption {
  /** The arguments without the flag. */
  rest: string[];
  /** The flag again, for a child process of the script, or nothing. */
  childArgs: string[];
  /** What the streams are, for a report's footer. */
  description: string;
}

/**
 * Reads `--byte-stream` from a script's arguments. With it,
 * {@linkcode streamOf} gives byte streams from now on, as `Deno.serve`
 * gives a request body: each read copies the next bytes into the reader's
 * buffer (a BYOB read) or into a new chunk, as the runtime copies them off
 * the socket. Without it, the chunks are views of the body with no copies,
 * cheaper for every parser, and a parser may keep the chunks it is given.
 */
export function byteStreamOption(args: readonly string[]): StreamOption {
  byteStreams = args.includes("--byte-stream");
  return {
    rest: args.filter((arg) => arg !== "--byte-stream"),
    childArgs: byteStreams ? ["--byte-stream"] : [],
    description: byteStreams
      ? "byte streams copying each chunk, as Deno.serve gives"
      : "chunks are views of the body, no copies",
  };
}

/**
 * The body as a stream of CHUNK_SIZE pieces, like a socket: views of it
 * (no copies), or copies in a byte stream (see `byteStreamOption`).
 */
export function streamOf(body: Uint8Array): ReadableStream<Uint8Array> {
  return byteStreams ? byteStreamOf(body) : viewStreamOf(body);
}

function byteStreamOf(body: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest;
      if (offset >= body.length) {
        controller.close();
        request?.respond(0);
        return;
      }
      const view = request?.view;
      if (request && view) {
        const count = Math.min(
          view.byteLength,
          CHUNK_SIZE,
          body.length - offset,
        );
        new Uint8Array(view.buffer, view.byteOffset, count)
          .set(body.subarray(offset, offset + count));
        offset += count;
        request.respond(count);
      } else {
        controller.enqueue(body.slice(offset, offset + CHUNK_SIZE));
        offset += CHUNK_SIZE;
      }
    },
  });
}

function viewStreamOf(body: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.subarray(offset, offset + CHUNK_SIZE));
      offset += CHUNK_SIZE;
    },
  }, { highWaterMark: 0 });
}

function requestOf(body: Uint8Array): Request {
  return new Request("http://localhost/upload", {
    method: "POST",
    headers: { "content-type": CONTENT_TYPE },
    body: streamOf(body),
  });
}

const unlimited = {
  maxFileSize: Infinity,
  maxFiles: Infinity,
  maxFieldSize: Infinity,
  maxFields: Infinity,
  maxTotalSize: Infinity,
};

export type ParserName = "fetchkit" | "native" | "remix" | "busboy";
export const PARSERS: ParserName[] = ["fetchkit", "native", "remix", "busboy"];

/** Parses `body` with `parser` into FormData. */
export function parseWith(
  parser: ParserName,
  body: Uint8Array,
): Promise<FormData> {
  switch (parser) {
    case "fetchkit":
      return parseFormData(requestOf(body), unlimited);
    case "native":
      return requestOf(body).formData();
    case "remix":
      return parseRemix(body);
    case "busboy":
      return parseBusboy(body);
  }
}

async function parseRemix(body: Uint8Array): Promise<FormData> {
  const form = new FormData();
  const parts = parseMultipartStream(streamOf(body), {
    boundary: BOUNDARY,
    maxFileSize: Infinity,
    maxTotalSize: Infinity,
    maxParts: Infinity,
  });
  for await (const part of parts) {
    const name = part.name ?? "";
    if (part.isFile) {
      form.append(
        name,
        new File(part.content as BlobPart[], part.filename ?? "", {
          type: part.mediaType ?? "application/octet-stream",
        }),
      );
    } else {
      form.append(name, part.text);
    }
  }
  return form;
}

// busboy ships no types; this is the part of its API used here.
interface Busboy {
  on(
    event: "file",
    listener: (name: string, stream: FileStream, info: FileInfo) => void,
  ): void;
  on(event: "field", listener: (name: string, value: string) => void): void;
  on(event: "close", listener: () => void): void;
  on(event: "error", listener: (error: unknown) => void): void;
  write(chunk: Uint8Array): boolean;
  end(): void;
}
interface FileStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end", listener: () => void): void;
}
interface FileInfo {
  filename: string;
  mimeType: string;
}
const busboy = busboyModule as unknown as (config: {
  headers: Record<string, string>;
  limits?: Record<string, number>;
  defParamCharset?: string;
}) => Busboy;

async function parseBusboy(body: Uint8Array): Promise<FormData> {
  const form = new FormData();
  const parser = busboy({
    headers: { "content-type": CONTENT_TYPE },
    limits: { fieldSize: Infinity },
    defParamCharset: "utf8",
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.on("file", (name, stream, info) => {
      const chunks: Uint8Array[] = [];
      stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      stream.on("end", () => {
        form.append(
          name,
          new File(chunks as BlobPart[], info.filename, {
            type: info.mimeType,
          }),
        );
      });
    });
    parser.on("field", (name, value) => form.append(name, value));
    parser.on("close", resolve);
    parser.on("error", reject);
  });
  for await (const chunk of streamOf(body)) parser.write(chunk);
  parser.end();
  await done;
  return form;
}
