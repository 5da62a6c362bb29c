// serveStatic() and the disk upload handler through runtime/fs.ts: set up
// with node:fs only, so this file runs unchanged on Deno, Node and Bun.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import {
  createDiskUploadHandler,
  DiskFile,
  formData,
} from "@fetchkit/toolkit/form-data-middleware";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "fetchkit-files-"));
}

Deno.test("serveStatic: files, ranges, 304, HEAD and misses", async () => {
  const root = tempDir();
  try {
    const big = new Uint8Array(200_000).map((_, index) => index % 251);
    writeFileSync(join(root, "app.css"), "body { margin: 0 }");
    writeFileSync(join(root, "big.bin"), big);
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "index.html"), "<h1>docs</h1>");
    const router = createRouter({
      middleware: [serveStatic({ root, prefix: "/assets" })],
    });
    router.get("/", () => new Response("home"));
    const get = (path: string, headers?: HeadersInit) =>
      router.fetch(new Request(`http://localhost${path}`, { headers }));

    const css = await get("/assets/app.css");
    assert.equal(css.status, 200);
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(css.headers.get("content-length"), "18");
    assert.equal(await css.text(), "body { margin: 0 }");

    const whole = await get("/assets/big.bin");
    assert.equal(whole.headers.get("content-length"), "200000");
    assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), big);

    const range = await get("/assets/big.bin", { range: "bytes=70000-140001" });
    assert.equal(range.status, 206);
    assert.equal(
      range.headers.get("content-range"),
      "bytes 70000-140001/200000",
    );
    assert.deepEqual(
      new Uint8Array(await range.arrayBuffer()),
      big.subarray(70000, 140002),
    );

    const small = await get("/assets/big.bin", { range: "bytes=10-19" });
    assert.deepEqual(
      new Uint8Array(await small.arrayBuffer()),
      big.subarray(10, 20),
    );

    const etag = css.headers.get("etag")!;
    const cached = await get("/assets/app.css", { "if-none-match": etag });
    assert.equal(cached.status, 304);

    const head = await router.fetch(
      new Request("http://localhost/assets/app.css", { method: "HEAD" }),
    );
    assert.equal(head.headers.get("content-length"), "18");
    assert.equal(await head.text(), "");

    const dir = await get("/assets/docs");
    assert.equal(dir.status, 301);
    assert.equal(dir.headers.get("location"), "/assets/docs/");
    assert.equal(await (await get("/assets/docs/")).text(), "<h1>docs</h1>");

    assert.equal((await get("/assets/missing.txt")).status, 404);
    assert.equal((await get("/assets/..%2fetc/passwd")).status, 404);
    assert.equal(await (await get("/")).text(), "home");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("serveStatic: a root that is not there is a TypeError", () => {
  assert.throws(
    () => serveStatic({ root: join(tmpdir(), "fetchkit-no-such-dir-0") }),
    (error: Error) =>
      error instanceof TypeError && /cannot be read/.test(error.message),
  );
});

const bun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

Deno.test("disk uploads: on Bun, whose FormData copies files, a clear error", () => {
  if (!bun) return;
  assert.throws(
    () => createDiskUploadHandler(),
    (error: Error) => /FormData copies each File/.test(error.message),
  );
});

Deno.test({
  name: "disk uploads: files stream to the directory, DiskFile reads them back",
  ignore: bun,
}, async () => {
  const parent = tempDir();
  const directory = join(parent, "uploads"); // made on first upload
  try {
    const router = createRouter();
    let saved: DiskFile | undefined;
    router.post(
      "/upload",
      formData({ uploadHandler: createDiskUploadHandler({ directory }) }),
      (context) => {
        const file = context.get(FormData)?.get("file");
        assert.ok(file instanceof DiskFile);
        saved = file;
        return new Response(`${file.name} ${file.size}`);
      },
    );
    const content = "x".repeat(100_000) + "tail";
    const body = new FormData();
    body.set("file", new File([content], "notes.txt", { type: "text/plain" }));
    const response = await router.fetch(
      new Request("http://localhost/upload", { method: "POST", body }),
    );
    assert.equal(await response.text(), "notes.txt 100004");
    assert.ok(saved);
    assert.ok(saved.path.startsWith(directory));
    assert.equal(statSync(saved.path).size, 100_004);
    if (process.platform !== "win32") {
      assert.equal(statSync(saved.path).mode & 0o777, 0o600);
    }
    assert.equal(await saved.text(), content);
    assert.equal((await saved.bytes()).length, 100_004);
    assert.equal(await saved.slice(-4).text(), "tail");
    assert.equal(await new Response(saved.stream()).text(), content);

    const reopened = new DiskFile(saved.path, "again.txt");
    assert.equal(reopened.size, 100_004);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

Deno.test({
  name: "disk uploads: a body that fails to parse leaves no file behind",
  ignore: bun,
}, async () => {
  const directory = tempDir();
  try {
    const router = createRouter();
    router.post(
      "/upload",
      formData({
        maxFileSize: 10,
        uploadHandler: createDiskUploadHandler({ directory }),
      }),
      () => new Response("ok"),
    );
    const body = new FormData();
    body.set("file", new File(["x".repeat(1000)], "big.txt"));
    const response = await router.fetch(
      new Request("http://localhost/upload", { method: "POST", body }),
    );
    assert.equal(response.status, 413);
    await response.body?.cancel();
    assert.deepEqual(readdirSync(directory), []);
    assert.ok(existsSync(directory));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
