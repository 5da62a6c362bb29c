import assert from "node:assert/strict";
import {
  createDiskUploadHandler,
  DiskFile,
  MaxFilesExceededError,
  MaxFileSizeExceededError,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";
import {
  BOUNDARY,
  concat,
  multipartBody,
  multipartRequest,
  rejection,
} from "./_test_utils.ts";

const encoder = new TextEncoder();
const MiB = 1024 * 1024;

async function sha256(bytes: BufferSource): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names.sort();
}

/** A deterministic pseudo-random file in 64 KiB chunks, never all in memory at once. */
function fileChunks(size: number, chunkSize = 65536): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let seed = 12345;
  for (let offset = 0; offset < size; offset += chunkSize) {
    const chunk = new Uint8Array(Math.min(chunkSize, size - offset));
    for (let i = 0; i < chunk.length; i += 4) {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      chunk[i] = seed;
      chunk[i + 1] = seed >>> 8;
      chunk[i + 2] = seed >>> 16;
      chunk[i + 3] = seed >>> 24;
    }
    chunks.push(chunk);
  }
  return chunks;
}

Deno.test("a large file streams to disk and comes back byte for byte", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const size = 24 * MiB + 123;
    const content = fileChunks(size);
    const head = encoder.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="video"; filename="../../etc/passwd"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const tail = encoder.encode(
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nHoliday\r\n--${BOUNDARY}--\r\n`,
    );
    const form = await parseFormData(
      multipartRequest([head, ...content, tail]),
      {
        maxFileSize: 32 * MiB,
        maxTotalSize: 33 * MiB,
        uploadHandler: createDiskUploadHandler({ directory, prefix: "up-" }),
      },
    );
    const file = form.get("video");
    assert.ok(file instanceof DiskFile);
    assert.ok(file instanceof File);
    assert.equal(file.name, "../../etc/passwd");
    assert.equal(file.type, "video/mp4");
    assert.equal(file.size, size);
    // Saved under a random name inside the directory, never the client's.
    const names = await listDir(directory);
    assert.equal(names.length, 1);
    assert.match(names[0], /^up-/);
    assert.equal(file.path, `${directory}/${names[0]}`);
    assert.equal((await Deno.stat(file.path)).size, size);
    const expected = await sha256(concat(content));
    assert.equal(await sha256(await file.arrayBuffer()), expected);
    assert.equal(
      await sha256(await new Response(file.stream()).arrayBuffer()),
      expected,
    );
    assert.equal(form.get("title"), "Holiday");
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("DiskFile reads text, bytes and slices from disk", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, "hello, disk");
    const file = new DiskFile(path, "h.txt", { type: "text/plain" });
    assert.equal(file.size, 11);
    assert.equal(await file.text(), "hello, disk");
    assert.equal(new TextDecoder().decode(await file.bytes()), "hello, disk");
    assert.equal(await file.slice(7).text(), "disk");
    assert.equal(await file.slice(-4, -1).text(), "dis");
    assert.equal(await file.slice(5, 2).text(), "");
    assert.equal(file.slice(0, 5, "text/x").type, "text/x");
    const form = new FormData();
    form.append("f", file);
    assert.equal(form.get("f"), file, "FormData keeps the DiskFile itself");
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("files saved for a request are removed when a later part fails", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const error = await rejection(
      parseFormData(
        multipartRequest(multipartBody([
          { name: "a", filename: "a.bin", content: "first file" },
          { name: "b", filename: "b.bin", content: "second file" },
        ])),
        { maxFiles: 1, uploadHandler: createDiskUploadHandler({ directory }) },
      ),
    );
    assert.ok(error instanceof MaxFilesExceededError);
    assert.deepEqual(await listDir(directory), []);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("a file over maxFileSize is not left half-written on disk", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const error = await rejection(
      parseFormData(
        multipartRequest(
          multipartBody([{
            name: "a",
            filename: "a.bin",
            content: new Uint8Array(300_000),
          }]),
        ),
        {
          maxFileSize: 100_000,
          uploadHandler: createDiskUploadHandler({ directory }),
        },
      ),
    );
    assert.ok(error instanceof MaxFileSizeExceededError);
    assert.equal(error.fileName, "a.bin");
    assert.deepEqual(await listDir(directory), []);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("the handler creates a missing directory", async () => {
  const parent = await Deno.makeTempDir();
  try {
    const directory = `${parent}/nested/uploads`;
    const form = await parseFormData(
      multipartRequest(
        multipartBody([{ name: "a", filename: "a.txt", content: "x" }]),
      ),
      { uploadHandler: createDiskUploadHandler({ directory }) },
    );
    const file = form.get("a") as DiskFile;
    assert.ok(file.path.startsWith(directory + "/"));
    assert.equal(await file.text(), "x");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("the handler makes its directory again after it is removed", async () => {
  const parent = await Deno.makeTempDir();
  try {
    const directory = `${parent}/uploads`;
    const uploadHandler = createDiskUploadHandler({ directory });
    const upload = () =>
      parseFormData(
        multipartRequest(
          multipartBody([{ name: "a", filename: "a.txt", content: "x" }]),
        ),
        { uploadHandler },
      );
    await upload();
    // A temp cleaner or a deploy step removes it while the app runs.
    await Deno.remove(directory, { recursive: true });
    const file = (await upload()).get("a") as DiskFile;
    assert.ok(file.path.startsWith(directory + "/"));
    assert.equal(await file.text(), "x");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("a failed mkdir is not remembered: the next upload tries again", async () => {
  const parent = await Deno.makeTempDir();
  try {
    // A file where a directory on the path should be: mkdir fails.
    await Deno.writeTextFile(`${parent}/blocked`, "");
    const directory = `${parent}/blocked/uploads`;
    const uploadHandler = createDiskUploadHandler({ directory });
    const upload = () =>
      parseFormData(
        multipartRequest(
          multipartBody([{ name: "a", filename: "a.txt", content: "x" }]),
        ),
        { uploadHandler },
      );
    await assert.rejects(upload());
    await Deno.remove(`${parent}/blocked`);
    const file = (await upload()).get("a") as DiskFile;
    assert.ok(file.path.startsWith(directory + "/"));
    assert.equal(await file.text(), "x");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
