// What every FileStorage must do, run as steps of a test; each backend's
// test file calls `fileStorageSuite` with a fresh storage. Types are not
// text/*: Bun adds ";charset=utf-8" to those in new File().
import assert from "node:assert/strict";
import type { FileStorage } from "@fetchkit/toolkit/file-storage";

/** Deterministic bytes: byte i is (i * 31 + seed) & 255. */
export function pattern(length: number, seed = 7): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 255;
  return bytes;
}

/** A stream of `length` pattern bytes in chunks of `chunk`. */
export function patternStream(
  length: number,
  chunk = 64 * 1024,
  seed = 7,
): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= length) return controller.close();
      const size = Math.min(chunk, length - sent);
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = ((sent + i) * 31 + seed) & 255;
      sent += size;
      controller.enqueue(bytes);
    },
  });
}

/** Whether `bytes` are `pattern(bytes.length)` from `offset`. */
export function isPattern(bytes: Uint8Array, offset = 0, seed = 7): boolean {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== (((offset + i) * 31 + seed) & 255)) return false;
  }
  return true;
}

/** Runs the behavior every storage shares, as steps of `t`. */
export async function fileStorageSuite(
  t: Deno.TestContext,
  storage: FileStorage,
): Promise<void> {
  await t.step("set, get, has, remove", async () => {
    assert.equal(await storage.get("suite/missing"), null);
    assert.equal(await storage.has("suite/missing"), false);
    await storage.set(
      "suite/a.txt",
      new File(["hello"], "ignored.txt", { type: "application/x-note" }),
      { name: "hello.txt" },
    );
    assert.equal(await storage.has("suite/a.txt"), true);
    const file = await storage.get("suite/a.txt");
    assert.ok(file instanceof File);
    assert.equal(file.name, "hello.txt");
    assert.equal(file.type, "application/x-note");
    assert.equal(file.size, 5);
    assert.equal(await file.text(), "hello");
    await storage.remove("suite/a.txt");
    assert.equal(await storage.has("suite/a.txt"), false);
    assert.equal(await storage.get("suite/a.txt"), null);
    // Removing what is not there is no error.
    await storage.remove("suite/a.txt");
  });

  await t.step(
    "names: the name option, else the key; types: the option, then the Blob's",
    async () => {
      await storage.set("suite/n1", new Blob(["x"]));
      let file = await storage.get("suite/n1");
      assert.equal(file?.name, "suite/n1");
      assert.equal(file?.type, "application/octet-stream");
      await storage.set("suite/n2", new Blob(["x"], { type: "image/png" }), {
        name: "ünïcode näme.png",
      });
      file = await storage.get("suite/n2");
      assert.equal(file?.name, "ünïcode näme.png");
      assert.equal(file?.type, "image/png");
      // The options win over a File's own name and type.
      await storage.set(
        "suite/n3",
        new File(["x"], "f.txt", { type: "image/gif" }),
        { type: "application/x-csv", name: "given.csv" },
      );
      file = await storage.get("suite/n3");
      assert.equal(file?.name, "given.csv");
      assert.equal(file?.type, "application/x-csv");
      for (const key of ["suite/n1", "suite/n2", "suite/n3"]) {
        await storage.remove(key);
      }
    },
  );

  await t.step(
    "a File keeps its own name, type and lastModified",
    async () => {
      const lastModified = Date.UTC(2023, 10, 14, 22, 13, 20, 123);
      await storage.set(
        "suite/own",
        new File(["photo"], "holiday photo.png", {
          type: "image/png",
          lastModified,
        }),
      );
      const file = await storage.get("suite/own");
      assert.equal(file?.name, "holiday photo.png");
      assert.equal(file?.type, "image/png");
      assert.equal(file?.lastModified, lastModified);
      assert.equal(await file?.text(), "photo");
      // A Blob has no name or date: the key, and the time it was stored.
      const before = Date.now() - 2000;
      await storage.set("suite/own", new Blob(["x"]));
      const blob = await storage.get("suite/own");
      assert.equal(blob?.name, "suite/own");
      assert.ok(blob!.lastModified >= before, `${blob?.lastModified}`);
      await storage.remove("suite/own");
    },
  );

  await t.step(
    "a type that is not a printable-ASCII media type: a TypeError from the option",
    async () => {
      for (const type of ["text/€", "text/html\r\nX-Evil: 1", "no slash"]) {
        await assert.rejects(
          async () =>
            await storage.set("suite/type", new Blob(["x"]), { type }),
          (error: unknown) => {
            assert.ok(error instanceof TypeError, String(error));
            assert.match(error.message, /type must be a media type/);
            return true;
          },
        );
      }
      assert.equal(await storage.has("suite/type"), false);
    },
  );

  await t.step("a set replaces; an empty file is kept", async () => {
    await storage.set("suite/r", new Blob(["first version"]));
    await storage.set("suite/r", new Blob(["second"]));
    assert.equal(await (await storage.get("suite/r"))?.text(), "second");
    await storage.set("suite/empty", new Blob([]));
    const empty = await storage.get("suite/empty");
    assert.equal(empty?.size, 0);
    assert.equal((await empty!.bytes()).length, 0);
    assert.deepEqual((await storage.list({ prefix: "suite/empty" })).files, [
      { key: "suite/empty", size: 0, type: "application/octet-stream" },
    ]);
    await storage.remove("suite/r");
    await storage.remove("suite/empty");
  });

  await t.step("a stream of unknown length, read back and sliced", async () => {
    const length = 300_000 + 17;
    await storage.set("suite/stream.bin", patternStream(length, 10_000), {
      type: "application/x-test",
    });
    const file = (await storage.get("suite/stream.bin"))!;
    assert.equal(file.size, length);
    assert.ok(isPattern(await file.bytes()));
    const slice = file.slice(1000, 1100);
    assert.equal(slice.size, 100);
    assert.ok(isPattern(await slice.bytes(), 1000));
    assert.ok(isPattern(await file.slice(-10).bytes(), length - 10));
    const nested = file.slice(200_000).slice(5, 25);
    assert.ok(isPattern(await nested.bytes(), 200_005));
    assert.equal(await file.slice(50, 10).text(), "");
    // A stream reads the same bytes.
    const chunks = [];
    for await (const chunk of file.stream()) chunks.push(chunk);
    const joined = new Uint8Array(await new Blob(chunks).arrayBuffer());
    assert.equal(joined.length, length);
    assert.ok(isPattern(joined));
    await storage.remove("suite/stream.bin");
  });

  await t.step("a stream that fails stores nothing", async () => {
    let sent = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 3) controller.error(new Error("client went away"));
        else controller.enqueue(new Uint8Array(1000));
      },
    });
    await assert.rejects(
      () => storage.set("suite/failing", failing),
      /client went away/,
    );
    assert.equal(await storage.has("suite/failing"), false);
  });

  await t.step("list: key order, prefixes, pages with a cursor", async () => {
    const keys = [
      "list/b/2.txt",
      "list/a/1.txt",
      "list/a/2.txt",
      "list/a/10.txt",
      "list/c",
      "list/é",
      "list/z",
      "other/x",
    ];
    for (const key of keys) {
      await storage.set(key, new Blob([key], { type: "application/x-note" }));
    }
    const all = await storage.list({ prefix: "list/" });
    assert.deepEqual(all.files.map((file) => file.key), [
      "list/a/1.txt",
      "list/a/10.txt",
      "list/a/2.txt",
      "list/b/2.txt",
      "list/c",
      "list/z",
      "list/é",
    ]);
    assert.equal(all.cursor, undefined);
    assert.deepEqual(all.files[0], {
      key: "list/a/1.txt",
      size: "list/a/1.txt".length,
      type: "application/x-note",
    });
    const a = await storage.list({ prefix: "list/a/" });
    assert.equal(a.files.length, 3);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await storage.list({ prefix: "list/", limit: 3, cursor });
      assert.ok(page.files.length <= 3);
      seen.push(...page.files.map((file) => file.key));
      cursor = page.cursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    assert.deepEqual(seen, all.files.map((file) => file.key));
    assert.equal(pages, 3);
    assert.deepEqual((await storage.list({ prefix: "nothing/" })).files, []);
    for (const key of keys) await storage.remove(key);
  });

  await t.step(
    "bad input: every method returns a rejected promise, never throws",
    async () => {
      const calls: [string, () => Promise<unknown>][] = [
        ["set", () => storage.set("", new Blob(["x"]))],
        ["set ..", () => storage.set("..", new Blob(["x"]))],
        ["get", () => storage.get("")],
        ["has", () => storage.has("")],
        ["remove", () => storage.remove("")],
        ["list", () => storage.list({ limit: 0 })],
      ];
      for (const [name, call] of calls) {
        let result: Promise<unknown> | undefined;
        assert.doesNotThrow(() => {
          result = call();
        }, name);
        assert.ok(result instanceof Promise, name);
        await assert.rejects(result, TypeError, name);
      }
    },
  );

  await t.step("bad keys and limits are TypeErrors", async () => {
    for (const key of ["", "a\0b", "x".repeat(1025), 42]) {
      await assert.rejects(
        async () => await storage.set(key as string, new Blob(["x"])),
        TypeError,
      );
      await assert.rejects(
        async () => await storage.get(key as string),
        TypeError,
      );
    }
    // 1024 bytes is allowed; 342 three-byte characters are 1026.
    await assert.rejects(
      async () => await storage.has("€".repeat(342)),
      /at most 1024 UTF-8 bytes \(this one is 1026\)/,
    );
    for (const limit of [0, 1001, 1.5, -1]) {
      await assert.rejects(
        async () => await storage.list({ limit }),
        /limit must be an integer from 1 to 1000/,
      );
    }
  });

  await t.step(
    "keys with a . or .. segment are refused by set() with a TypeError",
    async () => {
      for (
        const key of [
          ".",
          "..",
          "./dot",
          "../escape.txt",
          "a/../../b",
          "a/.",
          "x/../y",
        ]
      ) {
        await assert.rejects(
          async () => await storage.set(key, new Blob(["x"])),
          (error: unknown) => {
            assert.ok(error instanceof TypeError, `${key}: ${error}`);
            assert.match(error.message, /"\.\.?" segment/);
            return true;
          },
        );
        assert.equal(await storage.has(key), false);
      }
    },
  );

  await t.step("keys that look like paths stay keys", async () => {
    const keys = [
      "..x/.../y.",
      ".hidden/a..b",
      "/absolute",
      "back\\slash\\..\\x",
      "a//b",
      "spaces and + and %2F and ?#&=",
      "ünïcode/ключ/鍵",
    ];
    for (const key of keys) {
      await storage.set(key, new Blob([`value of ${key}`]));
    }
    for (const key of keys) {
      assert.equal(
        await (await storage.get(key))?.text(),
        `value of ${key}`,
        key,
      );
    }
    const listed = (await storage.list()).files.map((file) => file.key);
    for (const key of keys) assert.ok(listed.includes(key), key);
    for (const key of keys) await storage.remove(key);
  });
}
