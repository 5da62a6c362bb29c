// An upload server in a process of its own, so that its memory can be read
// from /proc: POST /upload takes a multipart/form-data body and streams its
// file field into S3. Used by s3_memory_test.ts and bench/file_storage/.
//
// MODE=fetchkit: formData() + createStorageUploadHandler(createS3FileStorage)
// MODE=drain: the same formData() parsing, the bytes read and dropped.
// MODE=aws4fetch: the same formData() parsing, with an upload handler that
//   sends the parts by hand through aws4fetch's AwsClient (its own SigV4).
// Env: S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID,
// S3_SECRET_ACCESS_KEY, PART_SIZE (bytes). Prints "listening <port>".
import { AwsClient } from "aws4fetch";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  type FileUpload,
  formData,
} from "@fetchkit/toolkit/form-data-middleware";
import { borrowChunks } from "../../form_data/file_upload.ts";
import {
  createS3FileStorage,
  createStorageUploadHandler,
} from "@fetchkit/toolkit/file-storage";

const env = (name: string) => Deno.env.get(name)!;
const mode = env("MODE");
const partSize = Number(env("PART_SIZE"));
const endpoint = env("S3_ENDPOINT");
const bucket = env("S3_BUCKET");

const storage = createS3FileStorage({
  endpoint,
  bucket,
  region: env("S3_REGION"),
  accessKeyId: env("S3_ACCESS_KEY_ID"),
  secretAccessKey: env("S3_SECRET_ACCESS_KEY"),
  forcePathStyle: true,
  partSize,
});

const aws = new AwsClient({
  accessKeyId: env("S3_ACCESS_KEY_ID"),
  secretAccessKey: env("S3_SECRET_ACCESS_KEY"),
  region: env("S3_REGION"),
  service: "s3",
});

/** A multipart upload by hand: parts of partSize, one at a time. */
async function aws4fetchUpload(upload: FileUpload): Promise<string> {
  const key = `aws4fetch-${crypto.randomUUID()}`;
  const url = `${endpoint}/${bucket}/${key}`;
  const created = await aws.fetch(`${url}?uploads`, { method: "POST" });
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(
    await created.text(),
  )![1];
  const etags: string[] = [];
  let chunks: Uint8Array[] = [];
  let length = 0;
  const send = async () => {
    const part = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      part.set(chunk, offset);
      offset += chunk.length;
    }
    chunks = [];
    length = 0;
    const response = await aws.fetch(
      `${url}?partNumber=${etags.length + 1}&uploadId=${uploadId}`,
      { method: "PUT", body: part },
    );
    if (!response.ok) throw new Error(`part: ${response.status}`);
    await response.body?.cancel();
    etags.push(response.headers.get("etag")!);
  };
  for await (const chunk of upload) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= partSize) await send();
  }
  if (length > 0 || etags.length === 0) await send();
  const done = await aws.fetch(`${url}?uploadId=${uploadId}`, {
    method: "POST",
    body: "<CompleteMultipartUpload>" +
      etags.map((etag, i) =>
        `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`
      ).join("") + "</CompleteMultipartUpload>",
  });
  if (!done.ok) throw new Error(`complete: ${done.status}`);
  await done.body?.cancel();
  return key;
}

/** Reads the file and drops it: what the server costs without S3. */
async function drain(upload: FileUpload): Promise<null> {
  for await (const _ of borrowChunks(upload));
  return null;
}

const router = createRouter();
router.post(
  "/upload",
  formData({
    maxFileSize: 4 * 1024 ** 3,
    maxTotalSize: 4 * 1024 ** 3,
    uploadHandler: mode === "fetchkit"
      ? createStorageUploadHandler(storage)
      : mode === "drain"
      ? drain
      : aws4fetchUpload,
  }),
  async (context) => {
    const value = context.get(FormData)?.get("file");
    // Removed at once: the gateway keeps objects in memory.
    if (value instanceof File) {
      const size = value.size;
      const key = (await storage.list({ prefix: "" })).files.map((f) => f.key);
      for (const each of key) await storage.remove(each);
      return Response.json({ size });
    }
    if (typeof value === "string") await storage.remove(value);
    return Response.json({ key: value ?? null });
  },
);

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);
Deno.addSignalListener("SIGTERM", () => server.shutdown());
