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
      /<li>\.\.\/\.\.\/etc\/passwd \(12 bytes, text\/plain\)<\/li>/,
    );
    assert.match(list, /<li>zeros\.bin \(1000 bytes/);

    const big = new FormData();
    big.append("files", new File([new Uint8Array(2048)], "big.bin"));
    const refused = await app.fetch(
      new Request("http://localhost/", { method: "POST", body: big }),
    );
    assert.equal(refused.status, 413);
    assert.match(await refused.text(), /too large: the limit is 1 KiB\./);
    assert.equal(
      [...Deno.readDirSync(directory)].length,
      2,
      "the partial file was removed",
    );
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
