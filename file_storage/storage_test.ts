// The memory and local storages, and the upload handler on both (portable:
// node:fs for set-up, so it runs on Node and Bun too).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createLocalFileStorage,
  createMemoryFileStorage,
  createStorageUploadHandler,
  type FileStorage,
} from "@fetchkit/toolkit/file-storage";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { FileUpload, formData } from "@fetchkit/toolkit/form-data-middleware";
import { fileStorageSuite, isPattern, pattern } from "./_test_suite.ts";
import { formDataKeepsFiles } from "../runtime/form_data.ts";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "fetchkit-files-"));
}

Deno.test("memory file storage", async (t) => {
  await fileStorageSuite(t, createMemoryFileStorage());
});

Deno.test("local file storage", async (t) => {
  const dir = tempDir();
  try {
    await fileStorageSuite(t, createLocalFileStorage(join(dir, "made")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("local file storage: hostile keys never leave the directory", async () => {
  const parent = tempDir();
  const dir = join(parent, "store");
  try {
    const storage = createLocalFileStorage(dir);
    // A "." or ".." segment is refused by set() on every storage.
    for (
      const key of [
        "../outside",
        "../../../../../../tmp/fetchkit-escape",
        "..",
        ".",
        "a/../../outside2",
      ]
    ) {
      await assert.rejects(() => storage.set(key, new Blob([key])), TypeError);
    }
    const keys = [
      "/etc/passwd",
      `${parent}/abs`,
      "..\\..\\win",
      "...",
      "CON",
      "x".repeat(1024),
      "\u202e\u0000".slice(0, 1) + "rtl",
    ];
    for (const key of keys) await storage.set(key, new Blob([key]));
    // Only the store folder was made next to it; nothing else appeared.
    assert.deepEqual(readdirSync(parent), ["store"]);
    const names = readdirSync(dir);
    assert.equal(names.length, keys.length);
    for (const name of names) assert.match(name, /^[0-9a-f]{64}$/);
    for (const key of keys) {
      assert.equal(await (await storage.get(key))?.text(), key);
    }
    // A file put in the folder by hand is not a stored file: list skips it.
    writeFileSync(join(dir, "README"), "not a stored file");
    assert.equal((await storage.list()).files.length, keys.length);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

Deno.test("local file storage: a file replaced after get() is not mixed up", async () => {
  const dir = tempDir();
  try {
    const storage = createLocalFileStorage(dir);
    await storage.set("k", new Blob(["old bytes"]));
    const old = (await storage.get("k"))!;
    await storage.set("k", new Blob(["new"]));
    await assert.rejects(
      () => old.text(),
      /was replaced or removed after get\(\)/,
    );
    assert.equal(await (await storage.get("k"))!.text(), "new");
    // A failed set leaves the old file, and no temporary file.
    const failing = new ReadableStream({
      pull(controller) {
        controller.error(new Error("gone"));
      },
    });
    await assert.rejects(() => storage.set("k", failing), /gone/);
    assert.equal(await (await storage.get("k"))!.text(), "new");
    assert.equal(readdirSync(dir).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("local file storage: a directory that is not there lists empty", async () => {
  const dir = tempDir();
  try {
    const storage = createLocalFileStorage(join(dir, "never-made"));
    assert.deepEqual(await storage.list(), { files: [] });
    assert.equal(await storage.get("a"), null);
    assert.throws(() => createLocalFileStorage(""), TypeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A router that stores uploads of field "file" and answers their keys. */
function uploadApp(storage: FileStorage, maxFileSize = 10 * 1024 * 1024) {
  const router = createRouter();
  let n = 0;
  router.post(
    "/upload",
    formData({
      maxFileSize,
      maxTotalSize: 64 * 1024 * 1024,
      uploadHandler: createStorageUploadHandler(storage, {
        key: (upload) => `uploads/${upload.fieldName}-${++n}`,
      }),
    }),
    async (context) => {
      const files = context.get(FormData)!.getAll("file") as File[];
      const described = [];
      for (const file of files) {
        described.push({
          name: file.name,
          type: file.type,
          size: file.size,
          head: await file.slice(0, 4).text(),
        });
      }
      return Response.json(described);
    },
  );
  return router;
}

async function post(router: ReturnType<typeof uploadApp>, body: FormData) {
  return await router.fetch(
    new Request("http://localhost/upload", { method: "POST", body }),
  );
}

for (
  const [name, make] of [
    ["memory", () => ({ storage: createMemoryFileStorage(), done() {} })],
    ["local", () => {
      const dir = tempDir();
      return {
        storage: createLocalFileStorage(dir),
        done: () => rmSync(dir, { recursive: true, force: true }),
      };
    }],
  ] as const
) {
  Deno.test({
    name: `upload handler on ${name} storage: files stream in and read back`,
    ignore: !formDataKeepsFiles(),
    fn: async () => {
      const { storage, done } = make();
      try {
        const router = uploadApp(storage);
        const body = new FormData();
        body.append(
          "file",
          new File(["abcdef"], "a.txt", { type: "text/plain" }),
        );
        body.append("file", new File([pattern(2_000_000)], "big.bin"));
        body.append("file", new File([], "empty.txt", { type: "text/plain" }));
        const response = await post(router, body);
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), [
          { name: "a.txt", type: "text/plain", size: 6, head: "abcd" },
          {
            name: "big.bin",
            type: "application/octet-stream",
            size: 2_000_000,
            head: new TextDecoder().decode(pattern(4)),
          },
          { name: "empty.txt", type: "text/plain", size: 0, head: "" },
        ]);
        const listed = (await storage.list({ prefix: "uploads/" })).files;
        assert.deepEqual(listed.map((file) => file.size).sort(), [
          0,
          2_000_000,
          6,
        ]);
        const big = await storage.get("uploads/file-2");
        assert.ok(isPattern(await big!.bytes()));
      } finally {
        done();
      }
    },
  });

  Deno.test({
    name:
      `upload handler on ${name} storage: a file over the limit stores nothing`,
    ignore: !formDataKeepsFiles(),
    fn: async () => {
      const { storage, done } = make();
      try {
        const router = uploadApp(storage, 1000);
        const body = new FormData();
        body.append("file", new File(["small"], "ok.txt"));
        body.append("file", new File([pattern(5000)], "huge.bin"));
        const response = await post(router, body);
        assert.equal(response.status, 413);
        await response.body?.cancel();
        // The huge one was never kept, and the first was removed with it.
        for (let i = 0; i < 50; i++) {
          if ((await storage.list()).files.length === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.deepEqual((await storage.list()).files, []);
      } finally {
        done();
      }
    },
  });
}

Deno.test({
  name: "upload handler: keys are checked, and a bad one is a TypeError",
  ignore: !formDataKeepsFiles(),
  fn: async () => {
    const storage = createMemoryFileStorage();
    const handler = createStorageUploadHandler(storage, { key: () => "" });
    const upload = new FileUpload(
      { fieldName: "f", name: "x.txt", type: "text/plain" },
      new Blob(["x"]).stream(),
    );
    await assert.rejects(
      async () => await handler(upload),
      /a key must be a non-empty string/,
    );
    assert.deepEqual((await storage.list()).files, []);
    assert.throws(
      () => createStorageUploadHandler({} as FileStorage),
      /storage must be a FileStorage/,
    );
  },
});
