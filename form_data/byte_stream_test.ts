// Byte streams are read with a BYOB reader whose buffers are read into
// again once nothing refers to them. These tests make sure that no byte a
// consumer kept is overwritten by a later read.

import assert from "node:assert/strict";
import {
  createDiskUploadHandler,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";
import {
  byteStreamOf,
  concat,
  multipartBody,
  multipartRequest,
} from "./_test_utils.ts";

function pseudoRandom(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    bytes[i] = seed >> 16;
  }
  return bytes;
}

/** Cuts `bytes` into chunks of varied sizes, some larger than 64 KiB. */
function varied(bytes: Uint8Array): Uint8Array[] {
  const sizes = [1, 70_000, 13, 65_536, 4_096, 100_000, 7];
  const out: Uint8Array[] = [];
  for (let offset = 0, i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    out.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return out;
}

const one = pseudoRandom(700_000, 1);
const two = pseudoRandom(300_001, 2);
const body = multipartBody([
  { name: "one", filename: "one.bin", content: one },
  { name: "note", value: "between ✓" },
  { name: "two", filename: "two.bin", content: two },
  { name: "tail", value: "x".repeat(70_000) },
]);

function byteRequest(): Request {
  const request = multipartRequest(new Uint8Array());
  return new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: byteStreamOf(varied(body)),
  });
}

async function assertParsed(
  form: FormData,
  read: (name: string) => Promise<Uint8Array>,
) {
  assert.deepEqual(await read("one"), one);
  assert.deepEqual(await read("two"), two);
  assert.equal(form.get("note"), "between ✓");
  assert.equal(form.get("tail"), "x".repeat(70_000));
}

Deno.test("byte stream: in-memory files keep every byte", async () => {
  const form = await parseFormData(byteRequest());
  await assertParsed(form, (name) => (form.get(name) as File).bytes());
});

Deno.test("byte stream: the disk handler writes every byte", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const form = await parseFormData(byteRequest(), {
      uploadHandler: createDiskUploadHandler({ directory }),
    });
    await assertParsed(form, (name) => (form.get(name) as File).bytes());
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("byte stream: a handler that keeps chunks gets chunks that stay intact", async () => {
  const kept = new Map<string, Uint8Array[]>();
  const form = await parseFormData(byteRequest(), {
    uploadHandler: async (upload) => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of upload) chunks.push(chunk);
      kept.set(upload.fieldName, chunks);
      return upload.name;
    },
  });
  // Compared only after the whole body was read.
  await assertParsed(form, (name) => Promise.resolve(concat(kept.get(name)!)));
});

/**
 * A byte stream that answers each BYOB read with one byte, as a client
 * sending tiny packets does, and reports the most external memory seen.
 */
function onePerRead(bytes: Uint8Array): {
  stream: ReadableStream<Uint8Array>;
  peakExternal: () => number;
} {
  let i = 0;
  let peak = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (i % 256 === 0) peak = Math.max(peak, Deno.memoryUsage().external);
      const request = controller.byobRequest!;
      if (i >= bytes.length) {
        controller.close();
        request.respond(0);
        return;
      }
      (request.view as Uint8Array)[0] = bytes[i++];
      request.respond(1);
    },
  });
  return { stream, peakExternal: () => peak };
}

Deno.test("byte stream: a text field sent one byte per read does not pin a buffer per read", async () => {
  const value = "x".repeat(4_000);
  const { stream, peakExternal } = onePerRead(
    multipartBody([{ name: "a", value }]),
  );
  const before = Deno.memoryUsage().external;
  const request = multipartRequest(new Uint8Array());
  const form = await parseFormData(
    new Request(request.url, {
      method: "POST",
      headers: request.headers,
      body: stream,
    }),
  );
  assert.equal(form.get("a"), value);
  // Each read used to keep its own 64 KiB buffer alive until the field
  // ended: 4,000 reads held 250 MiB.
  const grown = (peakExternal() - before) / 2 ** 20;
  assert.ok(grown < 16, `external memory grew by ${grown.toFixed(1)} MiB`);
});
