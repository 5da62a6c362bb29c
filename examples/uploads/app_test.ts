import assert from "node:assert/strict";
import {
  createLocalFileStorage,
  createMemoryFileStorage,
} from "@fetchkit/toolkit/file-storage";
import { createUploadsApp, formatSize } from "./app.ts";

function post(app: ReturnType<typeof createUploadsApp>, body: FormData) {
  return app.fetch(new Request("http://localhost/", { method: "POST", body }));
}

async function listPage(app: ReturnType<typeof createUploadsApp>) {
  return await (await app.fetch(new Request("http://localhost/"))).text();
}

Deno.test("uploads example: files stream into the storage, are listed and downloaded, and the limit gives 413", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const app = createUploadsApp({ directory, maxFileSize: 1024 });
    const body = new FormData();
    body.append(
      "files",
      new File(["hello <disk>"], "../../etc/passwd", { type: "text/plain" }),
    );
    body.append("files", new File([new Uint8Array(1000)], "zeros.bin"));
    const posted = await post(app, body);
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.get("location"), "/?uploaded=2");

    const saved = [...Deno.readDirSync(directory)].map((entry) => entry.name);
    assert.equal(saved.length, 2);
    assert.ok(
      saved.every((name) => /^[0-9a-f]{64}$/.test(name)),
      "client names never become paths",
    );

    const after = await (await app.fetch(
      new Request(`http://localhost${posted.headers.get("location")}`),
    )).text();
    assert.match(
      after,
      /<p class="notice" role="status">Uploaded 2 files\.<\/p>/,
    );
    const list = await listPage(app);
    assert.doesNotMatch(list, /Uploaded 2 files/);
    assert.match(
      list,
      /download>passwd<\/a> <span class="meta">\(12 bytes, text\/plain\)<\/span><\/li>/,
    );
    assert.match(list, /zeros\.bin<\/a> <span class="meta">\(1000 bytes/);

    // Downloads: the bytes, as an attachment, never rendered as a page.
    const href = /href="(\/files\/[^"]+)" download>passwd/
      .exec(list)![1];
    const download = await app.fetch(new Request(`http://localhost${href}`));
    assert.equal(download.status, 200);
    assert.equal(await download.text(), "hello <disk>");
    assert.equal(
      download.headers.get("content-type"),
      "application/octet-stream",
    );
    assert.match(
      download.headers.get("content-disposition")!,
      /^attachment; filename\*=UTF-8''\.\.%2F\.\.%2Fetc%2Fpasswd$/,
    );
    assert.equal(download.headers.get("x-content-type-options"), "nosniff");
    const missing = await app.fetch(
      new Request("http://localhost/files/0000000000-00000000/x"),
    );
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /That file is not here/);

    const big = new FormData();
    big.append("files", new File([new Uint8Array(2048)], "big.bin"));
    const refused = await post(app, big);
    assert.equal(refused.status, 413);
    const refusedPage = await refused.text();
    assert.match(
      refusedPage,
      /“big\.bin” is too large: the limit is 1 KiB a file\./,
    );
    assert.match(refusedPage, /zeros\.bin/, "the earlier uploads stay listed");
    assert.equal(
      [...Deno.readDirSync(directory)].length,
      2,
      "nothing of the refused file was kept",
    );
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("uploads example: a 0-byte file is listed; 1 byte is “1 byte”", async () => {
  const app = createUploadsApp({ storage: createMemoryFileStorage() });
  const body = new FormData();
  body.append("files", new File([], "empty.txt", { type: "text/plain" }));
  body.append("files", new File(["x"], "one.txt", { type: "text/plain" }));
  const posted = await post(app, body);
  assert.equal(posted.status, 303);
  assert.equal(posted.headers.get("location"), "/?uploaded=2");
  const list = await listPage(app);
  assert.match(
    list,
    /empty\.txt<\/a> <span class="meta">\(0 bytes, text\/plain\)/,
  );
  assert.match(
    list,
    /one\.txt<\/a> <span class="meta">\(1 byte, text\/plain\)/,
  );
});

Deno.test("uploads example: Upload with no file chosen says so (422), not a silent reload", async () => {
  const app = createUploadsApp({ storage: createMemoryFileStorage() });
  // What a browser sends for an empty file input.
  const body = new FormData();
  body.append("files", new File([], "", { type: "application/octet-stream" }));
  const response = await post(app, body);
  assert.equal(response.status, 422);
  const page = await response.text();
  assert.match(
    page,
    /<p class="alert" role="alert">Choose at least one file to upload\.<\/p>/,
  );
  assert.match(page, /Nothing uploaded yet\./);
  // And an empty body too.
  const empty = await post(app, new FormData());
  assert.equal(empty.status, 422);
  await empty.body?.cancel();
});

Deno.test("uploads example: 21 small files are over the file-count limit, not too large; sizes in KiB and MiB", async () => {
  const storage = createMemoryFileStorage();
  const app = createUploadsApp({ storage });
  const first = new FormData();
  first.append("files", new File([new Uint8Array(1536)], "notes.txt"));
  first.append("files", new File([new Uint8Array(3 * 2 ** 20)], "a.jpg"));
  const posted = await post(app, first);
  assert.equal(posted.status, 303);
  const list = await listPage(app);
  assert.match(list, /notes\.txt<\/a> <span class="meta">\(1\.5 KiB/);
  assert.match(list, /a\.jpg<\/a> <span class="meta">\(3 MiB/);
  assert.match(list, /Up to 20 files, 5 MiB each\./);

  const many = new FormData();
  for (let i = 0; i < 21; i++) {
    many.append("files", new File(["x"], `small-${i}.txt`));
  }
  const refused = await post(app, many);
  assert.equal(refused.status, 413);
  const page = await refused.text();
  assert.match(page, /Too many files: at most 20 files in one upload\./);
  assert.doesNotMatch(page, /too large/);
  assert.match(page, /notes\.txt/, "the earlier uploads stay listed");
  // The 20 that arrived before the 21st were removed with the request.
  for (let i = 0; i < 50; i++) {
    if ((await storage.list()).files.length === 2) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal((await storage.list()).files.length, 2);
});

Deno.test("uploads example: two apps on one local folder list each other's uploads", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const a = createUploadsApp({ storage: createLocalFileStorage(directory) });
    const b = createUploadsApp({ storage: createLocalFileStorage(directory) });
    const body = new FormData();
    body.append("files", new File(["from a"], "a.txt"));
    assert.equal((await post(a, body)).status, 303);
    assert.match(await listPage(b), /a\.txt<\/a>/);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("uploads example: an unknown path is a page (404) with the form", async () => {
  const app = createUploadsApp({ storage: createMemoryFileStorage() });
  const response = await app.fetch(new Request("http://localhost/nope"));
  assert.equal(response.status, 404);
  const page = await response.text();
  assert.match(page, /<html lang="en">/);
  assert.match(page, /<h1>Page not found<\/h1>/);
  assert.match(page, /<link rel="icon" href="data:,">/);
});

Deno.test("uploads example: sizes read as people write them", () => {
  assert.equal(formatSize(0), "0 bytes");
  assert.equal(formatSize(1), "1 byte");
  assert.equal(formatSize(2), "2 bytes");
  assert.equal(formatSize(1000), "1000 bytes");
  assert.equal(formatSize(1023), "1023 bytes");
  assert.equal(formatSize(1024), "1 KiB");
  assert.equal(formatSize(1536), "1.5 KiB");
  // Not "1024.0 KiB".
  assert.equal(formatSize(1024 * 1024 - 1), "1 MiB");
  assert.equal(formatSize(5 * 1024 * 1024), "5 MiB");
  assert.equal(formatSize(2 ** 30), "1 GiB");
  assert.equal(formatSize(2 ** 40 * 3), "3 TiB");
});
