// Presigned uploads and downloads that say what they allow, against Ceph's
// RADOS Gateway (started once for this file by _tools/ceph.ts; skipped
// with a notice when Ceph is not installed, an error under CI): a PUT signs
// its Content-Type (and its length when given), a POST policy bounds the
// size, a GET can make the browser download instead of render; and a
// client-given type that is not ASCII never reaches the signer. Portable:
// node: APIs only, so it also runs on Node and Bun through
// _tools/runtimes/.
import assert from "node:assert/strict";
import {
  createS3FileStorage,
  createStorageUploadHandler,
  type S3FileStorage,
} from "@fetchkit/toolkit/file-storage";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { type Ceph, cephOrSkip } from "../_tools/ceph.ts";
import { formDataKeepsFiles } from "../runtime/form_data.ts";

function storageOn(ceph: Ceph, bucket: string): S3FileStorage {
  return createS3FileStorage({
    endpoint: ceph.endpoint,
    bucket,
    region: ceph.region,
    accessKeyId: ceph.accessKeyId,
    secretAccessKey: ceph.secretAccessKey,
    forcePathStyle: true,
  });
}

async function status(response: Response): Promise<number> {
  await response.body?.cancel();
  return response.status;
}

Deno.test("S3 presigned URLs and client types on Ceph's RADOS Gateway", async (t) => {
  const ceph = await cephOrSkip("S3 presign tests");
  if (ceph === undefined) return;
  try {
    await ceph.createBucket("presign");
    const storage = storageOn(ceph, "presign");

    await t.step(
      "a presigned PUT signs its Content-Type: text/html refused",
      async () => {
        const put = await storage.presign("avatars/1.png", {
          method: "PUT",
          expiresIn: 60,
          type: "image/png",
        });
        const bytes = new Uint8Array([137, 80, 78, 71]);
        for (const type of ["text/html", "image/svg+xml"]) {
          assert.equal(
            await status(
              await fetch(put, {
                method: "PUT",
                body: bytes,
                headers: { "Content-Type": type },
              }),
            ),
            403,
            type,
          );
        }
        assert.equal(
          await status(await fetch(put, { method: "PUT", body: bytes })),
          403,
          "no Content-Type",
        );
        assert.equal(
          await status(
            await fetch(put, {
              method: "PUT",
              body: bytes,
              headers: { "Content-Type": "image/png" },
            }),
          ),
          200,
        );
        assert.equal((await storage.get("avatars/1.png"))?.type, "image/png");

        // Without a type: application/octet-stream, which browsers download.
        const plain = await storage.presign("plain.bin", {
          method: "PUT",
          expiresIn: 60,
        });
        assert.equal(
          await status(
            await fetch(plain, {
              method: "PUT",
              body: "<script>alert(1)</script>",
              headers: { "Content-Type": "text/html" },
            }),
          ),
          403,
        );
        assert.equal(
          await status(
            await fetch(plain, {
              method: "PUT",
              body: "data",
              headers: { "Content-Type": "application/octet-stream" },
            }),
          ),
          200,
        );
      },
    );

    await t.step(
      "a presigned PUT with size takes that many bytes only",
      async () => {
        const put = await storage.presign("sized.bin", {
          method: "PUT",
          expiresIn: 60,
          type: "application/octet-stream",
          size: 10,
        });
        const send = (length: number) =>
          fetch(put, {
            method: "PUT",
            body: new Uint8Array(length),
            headers: { "Content-Type": "application/octet-stream" },
          });
        assert.equal(await status(await send(11)), 403);
        assert.equal(await status(await send(1_000_000)), 403);
        assert.equal(await status(await send(10)), 200);
        assert.equal((await storage.get("sized.bin"))?.size, 10);
      },
    );

    await t.step(
      "presignPost(): a browser form upload of at most maxBytes, of the signed type",
      async () => {
        const post = await storage.presignPost("forms/upload.png", {
          expiresIn: 60,
          type: "image/png",
          maxBytes: 100,
          name: "my photo.png",
        });
        const send = (size: number, fields = post.fields) => {
          const form = new FormData();
          for (const [name, value] of Object.entries(fields)) {
            form.append(name, value);
          }
          form.append("file", new Blob([new Uint8Array(size)]), "x.png");
          return fetch(post.url, { method: "POST", body: form });
        };
        const tooLarge = await send(101);
        assert.equal(tooLarge.status, 400);
        assert.match(await tooLarge.text(), /EntityTooLarge/);
        assert.equal(await storage.has("forms/upload.png"), false);
        // The type and the key are in the policy: changed, refused.
        assert.equal(
          await status(
            await send(10, { ...post.fields, "Content-Type": "text/html" }),
          ),
          403,
        );
        assert.equal(
          await status(await send(10, { ...post.fields, key: "forms/other" })),
          403,
        );
        assert.ok([200, 201, 204].includes(await status(await send(100))));
        const file = await storage.get("forms/upload.png");
        assert.equal(file?.size, 100);
        assert.equal(file?.type, "image/png");
        assert.equal(file?.name, "my photo.png");
        await assert.rejects(
          () =>
            storage.presignPost("x", {
              expiresIn: 60,
              maxBytes: 0,
            }),
          /maxBytes must be a whole number of bytes from 1/,
        );
      },
    );

    await t.step(
      "a presigned GET can ask for a download and the stored type",
      async () => {
        await storage.set(
          "page.html",
          new Blob(["<script>alert(1)</script>"], { type: "text/html" }),
        );
        const get = await storage.presign("page.html", {
          method: "GET",
          expiresIn: 60,
          attachment: "report ü.html",
          type: "text/plain",
        });
        const response = await fetch(get);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "text/plain");
        assert.equal(
          response.headers.get("content-disposition"),
          `attachment; filename="report _.html"; filename*=UTF-8''report%20%C3%BC.html`,
        );
        await response.body?.cancel();
        // The overrides are signed: changing one is refused.
        const changed = get.replace(
          /response-content-type=[^&]+/,
          "response-content-type=text%2Fhtml",
        );
        assert.notEqual(changed, get);
        assert.equal(await status(await fetch(changed)), 403);
        // attachment: true takes the stored name.
        const plain = await fetch(
          await storage.presign("page.html", {
            method: "GET",
            expiresIn: 60,
            attachment: true,
          }),
        );
        assert.match(
          plain.headers.get("content-disposition") ?? "",
          /^attachment; filename="page.html"/,
        );
        await plain.body?.cancel();
        await assert.rejects(
          () =>
            storage.presign("x", {
              method: "GET",
              expiresIn: 60,
              type: "text/€",
            }),
          /type must be a media type/,
        );
      },
    );

    await t.step({
      name:
        "an upload whose client type is not ASCII is stored as application/octet-stream, never a 503",
      ignore: !formDataKeepsFiles(),
      fn: async () => {
        const router = createRouter();
        router.post(
          "/upload",
          formData({
            uploadHandler: createStorageUploadHandler(storage, {
              key: () => "uploads/euro",
            }),
          }),
          (context) => {
            const file = context.get(FormData)?.get("file") as File;
            return Response.json({ type: file.type, name: file.name });
          },
        );
        const boundary = "----fetchkit-euro";
        const body = new TextEncoder().encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n` +
            `Content-Type: text/€\r\n\r\nhello\r\n--${boundary}--\r\n`,
        );
        const response = await router.fetch(
          new Request("http://localhost/upload", {
            method: "POST",
            body,
            headers: {
              "content-type": `multipart/form-data; boundary=${boundary}`,
            },
          }),
        );
        assert.equal(response.status, 200, await response.clone().text());
        assert.deepEqual(await response.json(), {
          type: "application/octet-stream",
          name: "a.txt",
        });
        assert.equal(
          (await storage.get("uploads/euro"))?.type,
          "application/octet-stream",
        );
      },
    });
  } finally {
    await ceph.stop();
  }
});
