// createS3FileStorage against a real S3 server: Ceph's RADOS Gateway,
// started once for this file by _tools/ceph.ts (skipped with a notice when
// Ceph is not installed, an error under CI). Portable: node: APIs only, so
// it also runs on Node and Bun through _tools/runtimes/.
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import {
  createS3FileStorage,
  createStorageUploadHandler,
  S3Error,
  type S3FileStorage,
  type S3FileStorageOptions,
} from "@fetchkit/toolkit/file-storage";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";
import {
  createMetricsRegistry,
  metricsHandler,
} from "@fetchkit/toolkit/metrics";
import { type Ceph, cephOrSkip } from "../_tools/ceph.ts";
import { formDataKeepsFiles } from "../runtime/form_data.ts";
import {
  fileStorageSuite,
  isPattern,
  pattern,
  patternStream,
} from "./_test_suite.ts";

const MIB = 1024 * 1024;

function storageOn(
  ceph: Ceph,
  bucket: string,
  options: Partial<S3FileStorageOptions> = {},
): S3FileStorage {
  return createS3FileStorage({
    endpoint: ceph.endpoint,
    bucket,
    region: ceph.region,
    accessKeyId: ceph.accessKeyId,
    secretAccessKey: ceph.secretAccessKey,
    forcePathStyle: true,
    partSize: 5 * MIB,
    ...options,
  });
}

/**
 * A multipart/form-data body with one file of `size` pattern bytes, made
 * as it is read; `onSent(bytes)` is told how much of the file went out.
 */
function multipartBody(
  size: number,
  onSent: (bytes: number) => void = () => {},
): { body: ReadableStream<Uint8Array>; type: string } {
  const boundary = "----fetchkit" + crypto.randomUUID();
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const file = patternStream(size, 64 * 1024).getReader();
  let state: "head" | "file" | "tail" | "done" = "head";
  let sent = 0;
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (state === "head") {
          state = "file";
          return controller.enqueue(head);
        }
        if (state === "file") {
          const { value, done } = await file.read();
          if (!done) {
            sent += value.length;
            onSent(sent);
            return controller.enqueue(value);
          }
          state = "tail";
          return controller.enqueue(tail);
        }
        controller.close();
      },
    }, { highWaterMark: 0 }),
  };
}

function uploadRouter(storage: S3FileStorage, key: string) {
  const router = createRouter();
  router.post(
    "/upload",
    formData({
      maxFileSize: 2 * 1024 * MIB,
      maxTotalSize: 2 * 1024 * MIB,
      uploadHandler: createStorageUploadHandler(storage, { key: () => key }),
    }),
    (context) => {
      const file = context.get(FormData)?.get("file") as File;
      return Response.json({ size: file.size, name: file.name });
    },
  );
  router.get("/files/:key", async (context) => {
    const file = await storage.get(context.params.key);
    return file === null
      ? new Response("Not Found", { status: 404 })
      : new Response(file.stream());
  });
  return router;
}

async function postUpload(
  router: ReturnType<typeof uploadRouter>,
  size: number,
  onSent?: (bytes: number) => void,
): Promise<Response> {
  const { body, type } = multipartBody(size, onSent);
  return await router.fetch(
    new Request("http://localhost/upload", {
      method: "POST",
      body,
      headers: { "content-type": type },
      // @ts-ignore: Node needs duplex for a stream body.
      duplex: "half",
    }),
  );
}

async function waitFor(
  check: () => Promise<boolean>,
  ms: number,
): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return await check();
}

/** Runs `fn` with console.error collected (the router logs 5xx errors). */
async function quietly<T>(fn: () => T | Promise<T>): Promise<T> {
  const error = console.error;
  console.error = () => {};
  try {
    return await fn();
  } finally {
    console.error = error;
  }
}

Deno.test("S3 file storage on Ceph's RADOS Gateway", async (t) => {
  const ceph = await cephOrSkip("S3 file storage tests");
  if (ceph === undefined) return;
  const canUpload = formDataKeepsFiles();
  try {
    await ceph.createBucket("suite");
    await ceph.createBucket("big");
    await ceph.createBucket("outage");
    // Made before the gateway is killed mid-upload below: a bucket made
    // after the restart took 23 s (most likely the creation's notify
    // waiting for the killed gateway's watch to time out).
    await ceph.createBucket("metrics");
    const storage = storageOn(ceph, "suite");

    await t.step("the storage suite", async (t) => {
      await fileStorageSuite(t, storage);
    });

    await t.step(
      "a stream over partSize goes up in parts, none left open",
      async () => {
        const big = storageOn(ceph, "big");
        const size = 12 * MIB + 12345;
        await big.set("parts.bin", patternStream(size, 100_000), {
          type: "application/x-parts",
        });
        const file = (await big.get("parts.bin"))!;
        assert.equal(file.size, size);
        assert.equal(file.type, "application/x-parts");
        assert.ok(isPattern(await file.bytes()));
        // A Blob of a known size over partSize, too.
        await big.set("blob.bin", new Blob([pattern(6 * MIB)]));
        assert.equal((await big.get("blob.bin"))?.size, 6 * MIB);
        assert.deepEqual(await ceph.listMultipartUploads("big"), []);
        await big.remove("parts.bin");
        await big.remove("blob.bin");

        // A source that fails after two parts went up (a client that went
        // away): the upload is aborted, nothing is stored, no part stays.
        const source = patternStream(20 * MIB, 256 * 1024).getReader();
        let sent = 0;
        const failing = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent >= 11 * MIB) {
              return controller.error(new Error("client went away"));
            }
            const { value } = await source.read();
            sent += value!.length;
            controller.enqueue(value!);
          },
        });
        await assert.rejects(
          () => big.set("failed.bin", failing),
          /client went away/,
        );
        assert.equal(await big.has("failed.bin"), false);
        assert.deepEqual(await ceph.listMultipartUploads("big"), []);
      },
    );

    await t.step("slice() reads its range only", async () => {
      await storage.set("range.bin", patternStream(8 * MIB));
      const file = (await storage.get("range.bin"))!;
      const seen: { range: string | null; length: string | null }[] = [];
      const realFetch = globalThis.fetch;
      globalThis.fetch = async (input, init) => {
        const response = await realFetch(input, init);
        const headers = new Headers(init?.headers);
        if ((init?.method ?? "GET") === "GET") {
          seen.push({
            range: headers.get("range"),
            length: response.headers.get("content-length"),
          });
        }
        return response;
      };
      try {
        const slice = file.slice(3 * MIB + 5, 3 * MIB + 105);
        assert.ok(isPattern(await slice.bytes(), 3 * MIB + 5));
      } finally {
        globalThis.fetch = realFetch;
      }
      assert.deepEqual(seen, [{
        range: `bytes=${3 * MIB + 5}-${3 * MIB + 104}`,
        length: "100",
      }]);
      // Replaced since get(): the old File's reads refuse (If-Match).
      await storage.set("range.bin", new Blob(["other"]));
      await assert.rejects(
        () => file.slice(0, 10).text(),
        /replaced or removed after get\(\)/,
      );
      await storage.remove("range.bin");
    });

    await t.step(
      "presigned GET and PUT; changed or expired ones refused",
      async () => {
        await storage.set(
          "presigned.txt",
          new Blob(["for your eyes"], { type: "text/plain" }),
        );
        const get = await storage.presign("presigned.txt", {
          method: "GET",
          expiresIn: 60,
        });
        let response = await fetch(get);
        assert.equal(response.status, 200);
        assert.equal(await response.text(), "for your eyes");

        const put = await storage.presign("uploaded/by-browser.txt", {
          method: "PUT",
          expiresIn: 60,
        });
        response = await fetch(put, {
          method: "PUT",
          body: new TextEncoder().encode("direct"),
          // Signed: the URL's type (application/octet-stream by default).
          headers: { "Content-Type": "application/octet-stream" },
        });
        assert.equal(response.status, 200);
        await response.body?.cancel();
        assert.equal(
          await (await storage.get("uploaded/by-browser.txt"))?.text(),
          "direct",
        );

        // Another key, a longer expiry, a changed signature: all refused.
        for (
          const tampered of [
            get.replace("presigned.txt", "uploaded/by-browser.txt"),
            get.replace("X-Amz-Expires=60", "X-Amz-Expires=600"),
            get.replace(
              /X-Amz-Signature=([0-9a-f])/,
              (_, c) => `X-Amz-Signature=${c === "a" ? "b" : "a"}`,
            ),
          ]
        ) {
          assert.notEqual(tampered, get);
          response = await fetch(tampered);
          assert.equal(response.status, 403, tampered);
          await response.body?.cancel();
        }
        // A GET URL does not allow a PUT.
        response = await fetch(get, { method: "PUT", body: new Uint8Array(1) });
        assert.equal(response.status, 403);
        await response.body?.cancel();

        const soon = await storage.presign("presigned.txt", {
          method: "GET",
          expiresIn: 1,
        });
        await new Promise((resolve) => setTimeout(resolve, 2100));
        response = await fetch(soon);
        assert.equal(response.status, 403);
        await response.body?.cancel();

        await assert.rejects(
          () => storage.presign("x", { method: "GET", expiresIn: 604801 }),
          /expiresIn must be whole seconds from 1 to 604800/,
        );
        await assert.rejects(
          () =>
            storage.presign("x", { method: "DELETE" as "GET", expiresIn: 5 }),
          /method must be "GET" or "PUT"/,
        );
        await storage.remove("presigned.txt");
        await storage.remove("uploaded/by-browser.txt");
      },
    );

    await t.step(
      "wrong credentials: an S3Error (403), a 502 through the router",
      async () => {
        const wrong = storageOn(ceph, "suite", {
          secretAccessKey: "not-the-secret",
        });
        const unknown = storageOn(ceph, "suite", { accessKeyId: "NOSUCHKEY" });
        await assert.rejects(
          () => wrong.set("x", new Blob(["x"])),
          (error: unknown) => {
            assert.ok(error instanceof S3Error);
            assert.equal(error.s3Status, 403);
            assert.equal(error.code, "SignatureDoesNotMatch");
            assert.match(
              error.message,
              /S3 refused to store "x": 403 SignatureDoesNotMatch.*check secretAccessKey/,
            );
            return true;
          },
        );
        await assert.rejects(() => unknown.list(), (error: unknown) => {
          assert.ok(error instanceof S3Error);
          assert.equal(error.code, "InvalidAccessKeyId");
          return true;
        });
        await assert.rejects(() => wrong.get("x"), (error: unknown) => {
          assert.ok(error instanceof S3Error);
          assert.match(
            error.message,
            /403 Forbidden: the credentials were refused/,
          );
          return true;
        });
        const missing = storageOn(ceph, "no-such-bucket");
        await assert.rejects(
          () => missing.set("x", new Blob(["x"])),
          /NoSuchBucket: create the bucket first/,
        );

        const logged: unknown[] = [];
        const error = console.error;
        console.error = (...args: unknown[]) => logged.push(args);
        try {
          const router = createRouter();
          router.get(
            "/",
            async () => new Response(await (await wrong.get("x"))?.text()),
          );
          const response = await router.fetch(new Request("http://localhost/"));
          assert.equal(response.status, 502);
          assert.doesNotMatch(await response.text(), /secret|403|S3/);
        } finally {
          console.error = error;
        }
      },
    );

    await t.step({
      name: "64 MiB streamed through formData() in parts, read back in ranges",
      ignore: !canUpload,
      fn: async () => {
        // Memory under three part sizes, with the server in its own
        // process: s3_server_test.ts.
        const big = storageOn(ceph, "big", { partSize: 8 * MIB });
        const router = uploadRouter(big, "upload-64");
        const response = await postUpload(router, 64 * MIB);
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), {
          size: 64 * MIB,
          name: "big.bin",
        });
        const file = (await big.get("upload-64"))!;
        assert.equal(file.size, 64 * MIB);
        assert.ok(
          isPattern(
            await file.slice(40 * MIB - 10, 40 * MIB + 4096).bytes(),
            40 * MIB - 10,
          ),
        );
        assert.ok(isPattern(await file.slice(-4096).bytes(), 64 * MIB - 4096));
        const served = await router.fetch(
          new Request("http://localhost/files/upload-64"),
        );
        let length = 0;
        for await (const chunk of served.body!) length += chunk.length;
        assert.equal(length, 64 * MIB);
        assert.deepEqual(await ceph.listMultipartUploads("big"), []);
        await big.remove("upload-64");
      },
    });

    await t.step({
      name:
        "the gateway stopped mid-upload: 503, and no multipart upload left after it is back",
      ignore: !canUpload,
      fn: async () => {
        const outage = storageOn(ceph, "outage", { timeout: 3000 });
        const router = uploadRouter(outage, "interrupted.bin");
        let stopping: Promise<void> | undefined;
        const response = await quietly(() =>
          postUpload(router, 64 * MIB, (sent) => {
            // Stop once two parts went up and the third is filling.
            if (sent >= 12 * MIB && stopping === undefined) {
              stopping = ceph.stopGateway();
            }
          })
        );
        await stopping;
        assert.equal(response.status, 503);
        assert.equal(response.headers.get("retry-after"), "5");
        assert.equal(await response.text(), "Service Unavailable");
        // While it is down, every call is a StoreUnavailableError.
        await assert.rejects(
          () => outage.has("interrupted.bin"),
          StoreUnavailableError,
        );

        await ceph.startGateway();
        // The abort that could not reach the gateway is retried.
        assert.ok(
          await waitFor(
            async () =>
              (await ceph.listMultipartUploads("outage")).length === 0,
            20_000,
          ),
          "a multipart upload was left behind",
        );
        assert.equal(await outage.has("interrupted.bin"), false);
        // And the storage works again.
        await outage.set("after.txt", new Blob(["back"]));
        assert.equal(await (await outage.get("after.txt"))?.text(), "back");
        await outage.remove("after.txt");
      },
    });

    await t.step(
      "a gateway that does not answer: 503 after the timeout",
      async () => {
        // A listener that takes connections and never answers.
        const sockets: Socket[] = [];
        const silent = createServer((socket) => void sockets.push(socket));
        await new Promise<void>((resolve) =>
          silent.listen(0, "127.0.0.1", resolve)
        );
        const { port } = silent.address() as { port: number };
        const slow = createS3FileStorage({
          endpoint: `http://127.0.0.1:${port}`,
          bucket: "suite",
          region: ceph.region,
          accessKeyId: ceph.accessKeyId,
          secretAccessKey: ceph.secretAccessKey,
          forcePathStyle: true,
          timeout: 500,
        });
        try {
          const started = Date.now();
          await assert.rejects(() => slow.get("slow.txt"), (error: unknown) => {
            assert.ok(error instanceof StoreUnavailableError);
            assert.match(
              error.message,
              /S3 did not answer within 500 ms \(read "slow.txt"\)/,
            );
            return true;
          });
          assert.ok(Date.now() - started < 3000);
          await assert.rejects(
            () => slow.set("slow.txt", new Blob(["x"])),
            StoreUnavailableError,
          );
          const router = createRouter();
          router.get(
            "/",
            async () =>
              new Response(await (await slow.get("slow.txt"))?.text()),
          );
          const response = await quietly(() =>
            router.fetch(new Request("http://localhost/"))
          );
          assert.equal(response.status, 503);
          assert.equal(response.headers.get("retry-after"), "5");
          await response.body?.cancel();
        } finally {
          for (const socket of sockets) socket.destroy();
          await new Promise((resolve) => silent.close(resolve));
        }
      },
    );

    await t.step(
      "metrics: store_operations_total counts each S3 action and how it ended",
      async () => {
        const registry = createMetricsRegistry();
        const scrape = metricsHandler({ registry, process: false });
        try {
          const storage = storageOn(ceph, "metrics");
          await storage.set("one.txt", new Blob(["one"]));
          // Over partSize (5 MiB): a multipart upload of two parts.
          await storage.set("two.bin", new Blob([pattern(6 * MIB)]));
          assert.equal(await (await storage.get("one.txt"))?.text(), "one");
          assert.equal(await storage.has("none.txt"), false);
          const { files } = await storage.list();
          assert.equal(files.length, 2);
          await storage.remove("one.txt");
          await storage.remove("two.bin");
          // Refused: a wrong secret (403), a bucket that does not exist (404).
          const wrongSecret = storageOn(ceph, "metrics", {
            secretAccessKey: "not-the-secret",
          });
          await assert.rejects(
            () => wrongSecret.set("x.txt", new Blob(["x"])),
            (error) => error instanceof S3Error && error.s3Status === 403,
          );
          await assert.rejects(
            () => storageOn(ceph, "no-such-bucket").list(),
            (error) => error instanceof S3Error && error.s3Status === 404,
          );
          // Nothing listens on the port: unavailable.
          const closed = createServer();
          await new Promise<void>((resolve) =>
            closed.listen(0, "127.0.0.1", resolve)
          );
          const { port } = closed.address() as { port: number };
          await new Promise((resolve) => closed.close(resolve));
          await assert.rejects(
            () =>
              storageOn(ceph, "metrics", {
                endpoint: `http://127.0.0.1:${port}`,
              }).has("x.txt"),
            StoreUnavailableError,
          );
          const text = await scrape(new Request("http://localhost/metrics"))
            .text();
          const lines = text.split("\n").filter((line) =>
            line.startsWith("store_operations_total{") &&
            line.includes('store="S3"')
          ).sort();
          assert.deepEqual(lines, [
            'store_operations_total{store="S3",operation="CompleteMultipartUpload",outcome="ok"} 1',
            'store_operations_total{store="S3",operation="CreateMultipartUpload",outcome="ok"} 1',
            'store_operations_total{store="S3",operation="DeleteObject",outcome="ok"} 2',
            'store_operations_total{store="S3",operation="GetObject",outcome="ok"} 1',
            // get(), has(), and one per listed file.
            'store_operations_total{store="S3",operation="HeadObject",outcome="ok"} 4',
            'store_operations_total{store="S3",operation="HeadObject",outcome="unavailable"} 1',
            'store_operations_total{store="S3",operation="ListObjectsV2",outcome="error"} 1',
            'store_operations_total{store="S3",operation="ListObjectsV2",outcome="ok"} 1',
            'store_operations_total{store="S3",operation="PutObject",outcome="error"} 1',
            'store_operations_total{store="S3",operation="PutObject",outcome="ok"} 1',
            'store_operations_total{store="S3",operation="UploadPart",outcome="ok"} 2',
          ]);
          assert.match(
            text,
            /^store_operation_duration_seconds_count\{store="S3",operation="UploadPart"\} 2$/m,
          );
        } finally {
          registry.close();
        }
      },
    );
  } finally {
    await ceph.stop();
  }
});
