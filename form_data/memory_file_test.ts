import assert from "node:assert/strict";
import {
  MaxFileSizeExceededError,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";
import { FILE_BLOCK_SIZE } from "./_parse_multipart.ts";
import {
  BOUNDARY,
  byteStreamOf,
  multipartBody,
  rejection,
  streamOf,
} from "./_test_utils.ts";

const MiB = 1024 * 1024;
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** `size` bytes that differ from their neighbours, shifted by `seed`. */
function content(size: number, seed = 0): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + 3 + seed) & 0xff;
  return bytes;
}

/** `body` cut into `chunkSize` pieces (views, as a socket would hand them). */
function chunksOf(body: Uint8Array, chunkSize: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < body.length; i += chunkSize) {
    chunks.push(body.subarray(i, i + chunkSize));
  }
  return chunks;
}

/** A body whose chunks are all ready: the parse never waits for I/O. */
function requestWithFile(size: number, chunkSize = 64 * 1024): Request {
  const body = multipartBody([
    { name: "f", filename: "a.bin", content: content(size) },
  ]);
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": CONTENT_TYPE },
    body: streamOf(chunksOf(body, chunkSize)),
  });
}

Deno.test("in-memory file over 1 MiB yields to the event loop once when an earlier one may wait to be freed", async () => {
  // An earlier large file (whichever test ran first) makes the wait due.
  await parseFormData(requestWithFile(2 * MiB), { maxFileSize: 4 * MiB });
  let fired = false;
  const timer = setTimeout(() => fired = true, 0);
  const form = await parseFormData(requestWithFile(3 * MiB), {
    maxFileSize: 4 * MiB,
  });
  clearTimeout(timer);
  assert.ok(fired, "a timer due during the parse ran before it ended");
  const file = form.get("f") as File;
  assert.equal(file.size, 3 * MiB);
  assert.deepEqual(await file.bytes(), content(3 * MiB));
});

Deno.test("the first large in-memory file of a process does not wait for timers", async () => {
  // A module instance of its own: no large file was read through it yet.
  const { parseMultipartBody } = await import("./_parse_multipart.ts?first");
  const { BodyReader } = await import("./body_reader.ts");
  const { resolveLimits } = await import("./limits.ts");
  const body = multipartBody([
    { name: "f", filename: "a.bin", content: content(3 * MiB) },
  ]);
  const limits = resolveLimits({ maxFileSize: 4 * MiB });
  const read = (): Promise<FormData> =>
    parseMultipartBody(
      new BodyReader(streamOf(chunksOf(body, 64 * 1024)), limits),
      BOUNDARY,
      limits,
    );
  let fired = false;
  let timer = setTimeout(() => fired = true, 0);
  const form = await read();
  clearTimeout(timer);
  assert.equal(fired, false);
  assert.deepEqual(await (form.get("f") as File).bytes(), content(3 * MiB));
  // The second one does wait (the first one's memory may be freed then).
  timer = setTimeout(() => fired = true, 0);
  await read();
  clearTimeout(timer);
  assert.equal(fired, true);
});

Deno.test("in-memory file under 1 MiB does not wait for timers", async () => {
  let fired = false;
  const timer = setTimeout(() => fired = true, 0);
  const form = await parseFormData(requestWithFile(512 * 1024));
  clearTimeout(timer);
  assert.equal(fired, false);
  assert.equal((form.get("f") as File).size, 512 * 1024);
});

Deno.test("in-memory files at and around the block size come out byte for byte, in any chunking", async () => {
  const sizes = [
    1,
    FILE_BLOCK_SIZE - 1,
    FILE_BLOCK_SIZE,
    FILE_BLOCK_SIZE + 1,
    2 * FILE_BLOCK_SIZE,
    2 * FILE_BLOCK_SIZE + 12_345,
  ];
  // Chunks that end off every block edge, that divide the block, and one
  // larger than a block.
  const chunkSizes = [999, 64 * 1024, FILE_BLOCK_SIZE + 7, 3 * FILE_BLOCK_SIZE];
  for (const size of sizes) {
    for (const chunkSize of chunkSizes) {
      for (const byteStream of [false, true]) {
        const expected = content(size, size + chunkSize);
        const body = multipartBody([
          {
            name: "f",
            filename: "a.bin",
            type: "video/mp4",
            content: expected,
          },
        ]);
        const chunks = chunksOf(body, chunkSize);
        const form = await parseFormData(
          new Request("http://localhost/", {
            method: "POST",
            headers: { "content-type": CONTENT_TYPE },
            body: byteStream ? byteStreamOf(chunks) : streamOf(chunks),
          }),
          { maxFileSize: 4 * FILE_BLOCK_SIZE },
        );
        const file = form.get("f");
        const label = `size ${size}, chunks of ${chunkSize}, ${
          byteStream ? "byte stream" : "stream"
        }`;
        assert.ok(file instanceof File, label);
        assert.equal(file.name, "a.bin", label);
        assert.equal(file.type, "video/mp4", label);
        assert.equal(file.size, size, label);
        assert.deepEqual(await file.bytes(), expected, label);
      }
    }
  }
});

Deno.test("in-memory files keep their bytes when several share a form or parse at the same time (block reuse)", async () => {
  const size = 2 * FILE_BLOCK_SIZE + 100;
  const a = content(size, 1);
  const b = content(size, 2);
  const c = content(size, 3);
  const request = (parts: Uint8Array[]) =>
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": CONTENT_TYPE },
      body: byteStreamOf(chunksOf(
        multipartBody(parts.map((bytes, i) => ({
          name: `f${i}`,
          filename: `${i}.bin`,
          content: bytes,
        }))),
        64 * 1024,
      )),
    });
  const options = { maxFileSize: size };
  // Two parses interleave at every read; the first form has two files.
  const [one, two] = await Promise.all([
    parseFormData(request([a, b]), options),
    parseFormData(request([c]), options),
  ]);
  assert.deepEqual(await (one.get("f0") as File).bytes(), a);
  assert.deepEqual(await (one.get("f1") as File).bytes(), b);
  assert.deepEqual(await (two.get("f0") as File).bytes(), c);
});

Deno.test("an in-memory file is a real File: Response, FormData and slices read the same bytes", async () => {
  const expected = content(FILE_BLOCK_SIZE + 5000);
  const form = await parseFormData(requestWithFile(expected.length), {
    maxFileSize: 2 * FILE_BLOCK_SIZE,
  });
  const file = form.get("f") as File;
  assert.ok(file instanceof File);
  assert.deepEqual(await new Response(file).bytes(), expected);
  const copy = new FormData();
  copy.append("again", file);
  assert.deepEqual(await (copy.get("again") as File).bytes(), expected);
  assert.deepEqual(
    await file.slice(FILE_BLOCK_SIZE - 10, FILE_BLOCK_SIZE + 10).bytes(),
    expected.slice(FILE_BLOCK_SIZE - 10, FILE_BLOCK_SIZE + 10),
  );
});

Deno.test("maxFileSize holds for in-memory files on either side of a block edge", async () => {
  for (const max of [1000, FILE_BLOCK_SIZE, FILE_BLOCK_SIZE + 1]) {
    for (const chunkSize of [999, 64 * 1024, 3 * FILE_BLOCK_SIZE]) {
      const label = `maxFileSize ${max}, chunks of ${chunkSize}`;
      const fits = await parseFormData(requestWithFile(max, chunkSize), {
        maxFileSize: max,
      });
      assert.equal((fits.get("f") as File).size, max, label);
      const error = await rejection(
        parseFormData(requestWithFile(max + 1, chunkSize), {
          maxFileSize: max,
        }),
      );
      assert.ok(error instanceof MaxFileSizeExceededError, label);
      assert.equal(error.fieldName, "f", label);
      assert.equal(error.fileName, "a.bin", label);
    }
  }
});
