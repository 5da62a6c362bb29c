import assert from "node:assert/strict";
import { parseFormData } from "@fetchkit/toolkit/form-data-middleware";
import { BOUNDARY, multipartBody, streamOf } from "./_test_utils.ts";

const MiB = 1024 * 1024;

/** A body whose chunks are all ready: the parse never waits for I/O. */
function requestWithFile(size: number): Request {
  const content = new Uint8Array(size);
  for (let i = 0; i < size; i++) content[i] = (i * 7 + 3) & 0xff;
  const body = multipartBody([{ name: "f", filename: "a.bin", content }]);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < body.length; i += 64 * 1024) {
    chunks.push(body.subarray(i, i + 64 * 1024));
  }
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: streamOf(chunks),
  });
}

Deno.test("in-memory file over 1 MiB yields to the event loop once (frees old blob memory first)", async () => {
  let fired = false;
  const timer = setTimeout(() => fired = true, 0);
  const form = await parseFormData(requestWithFile(3 * MiB), {
    maxFileSize: 4 * MiB,
  });
  clearTimeout(timer);
  assert.ok(fired, "a timer due during the parse ran before it ended");
  const file = form.get("f") as File;
  assert.equal(file.size, 3 * MiB);
  const bytes = await file.bytes();
  assert.equal(bytes[12345], (12345 * 7 + 3) & 0xff);
  assert.equal(bytes[3 * MiB - 1], ((3 * MiB - 1) * 7 + 3) & 0xff);
});

Deno.test("in-memory file under 1 MiB does not wait for timers", async () => {
  let fired = false;
  const timer = setTimeout(() => fired = true, 0);
  const form = await parseFormData(requestWithFile(512 * 1024));
  clearTimeout(timer);
  assert.equal(fired, false);
  assert.equal((form.get("f") as File).size, 512 * 1024);
});
