import assert from "node:assert/strict";
import { createUploadsApp, formatSize } from "./app.ts";

Deno.test("uploads example: files stream to disk, are listed, and the limit gives 413", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const app = createUploadsApp({ directory, maxFileSize: 1024 });
    const body = new FormData();
    body.append(
      "files",
      new File(["hello <disk>"], "../../etc/passwd", { type: "text/plain" }),
    );
    body.append("files", new File([new Uint8Array(1000)], "zeros.bin"));
    const posted = await app.fetch(
      new Request("http://localhost/", { method: "POST", body }),
    );
    assert.equal(posted.status, 303);
    assert.equal(posted.headers.get("location"), "/");

    const saved = [...Deno.readDirSync(directory)].map((entry) => entry.name);
    assert.equal(saved.length, 2);
    assert.ok(
      saved.every((name) => !name.includes("passwd")),
      "client names never become paths",
    );
    const contents = saved.map((name) =>
      Deno.readTextFileSync(`${directory}/${name}`)
    );
    assert.ok(contents.includes("hello <disk>"));

    const list = await (await app.fetch(new Request("http://localhost/")))
      .text();
    assert.match(
      list,
      /<li>\.\.\/\.\.\/etc\/passwd <span class="meta">\(12 bytes, text\/plain\)<\/span><\/li>/,
    );
    assert.match(list, /<li>zeros\.bin <span class="meta">\(1000 bytes/);

    const big = new FormData();
    big.append("files", new File([new Uint8Array(2048)], "big.bin"));
    const refused = await app.fetch(
      new Request("http://localhost/", { method: "POST", body: big }),
    );
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
      "the partial file was removed",
    );
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("uploads example: 21 small files are over the file-count limit, not too large; sizes in KiB and MiB", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const app = createUploadsApp({ directory });
    const first = new FormData();
    first.append("files", new File([new Uint8Array(1536)], "notes.txt"));
    first.append("files", new File([new Uint8Array(3 * 2 ** 20)], "a.jpg"));
    const posted = await app.fetch(
      new Request("http://localhost/", { method: "POST", body: first }),
    );
    assert.equal(posted.status, 303);
    const list = await (await app.fetch(new Request("http://localhost/")))
      .text();
    assert.match(list, /notes\.txt <span class="meta">\(1\.5 KiB/);
    assert.match(list, /a\.jpg <span class="meta">\(3 MiB/);
    assert.match(list, /Up to 20 files, 5 MiB each\./);

    const many = new FormData();
    for (let i = 0; i < 21; i++) {
      many.append("files", new File(["x"], `small-${i}.txt`));
    }
    const refused = await app.fetch(
      new Request("http://localhost/", { method: "POST", body: many }),
    );
    assert.equal(refused.status, 413);
    const page = await refused.text();
    assert.match(page, /Too many files: at most 20 files in one upload\./);
    assert.doesNotMatch(page, /too large/);
    assert.match(page, /notes\.txt/, "the earlier uploads stay listed");
    assert.equal([...Deno.readDirSync(directory)].length, 2);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("uploads example: an unknown path is a page (404) with the form", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const app = createUploadsApp({ directory });
    const response = await app.fetch(new Request("http://localhost/nope"));
    assert.equal(response.status, 404);
    const page = await response.text();
    assert.match(page, /<html lang="en">/);
    assert.match(page, /<h1>Page not found<\/h1>/);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("uploads example: sizes read as people write them", () => {
  assert.equal(formatSize(5 * 1024 * 1024), "5 MiB");
  assert.equal(formatSize(1024), "1 KiB");
  assert.equal(formatSize(1536), "1.5 KiB");
  assert.equal(formatSize(1000), "1000 bytes");
  assert.equal(formatSize(2 ** 30), "1 GiB");
});
