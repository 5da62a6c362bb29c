/**
 * {@linkcode createLocalFileStorage}: files kept in a directory.
 *
 * @module
 */

import type * as NodeFsPromises from "node:fs/promises";
import {
  checkKey,
  checkLimit,
  checkNewKey,
  compareKeys,
  type FileStorage,
  type FileStorageListOptions,
  type FileStorageListResult,
  type FileStorageSetOptions,
} from "./types.ts";
import {
  lastModifiedOf,
  nameOf,
  StoredFile,
  streamOf,
  typeOf,
} from "./_stored_file.ts";
import { pageOf } from "./memory.ts";
import { takingLentChunks } from "./_lent.ts";

const OWNER = "createLocalFileStorage()";
/** "fkfs" and a format version, at the start of every stored file. */
const MAGIC = new Uint8Array([0x66, 0x6b, 0x66, 0x73, 1]);
const HEADER_FIXED = MAGIC.length + 4;
const READ_CHUNK = 64 * 1024;

/** What a stored file's header says. */
interface Meta {
  key: string;
  name: string;
  type: string;
  size: number;
  lastModified: number;
  /** Changes with every `set()`, so a read notices a replaced file. */
  id: string;
}

type Fs = typeof NodeFsPromises;
let fsPromises: Fs | undefined;

function fs(): Fs {
  if (fsPromises !== undefined) return fsPromises;
  const process = (globalThis as {
    process?: { getBuiltinModule?(name: string): unknown };
  }).process;
  const loaded = process?.getBuiltinModule?.("node:fs/promises") as
    | Fs
    | undefined;
  if (loaded === undefined) {
    throw new Error(
      `${OWNER} needs a file system: Deno, Node >= 20.16 or Bun ` +
        "(this runtime has no process.getBuiltinModule('node:fs/promises'))",
    );
  }
  return fsPromises = loaded;
}

/**
 * Makes a {@linkcode FileStorage} that keeps each file in `directory` (made
 * when missing), as one file holding a small header (key, name, type) and
 * the bytes.
 *
 * Keys never become paths: each file is named by the SHA-256 of its key,
 * so a key such as `/etc/passwd`, `C:\x` or `..\x` stays a name
 * inside `directory`, and two keys never share a file (`set()` refuses
 * `.` and `..` segments, as every storage does). `set()`
 * streams into a temporary file in `directory` and renames it over the
 * old one, so a reader sees the old file or the new one, never half of
 * one; a file read after being replaced throws an `Error` saying it
 * changed. `list()` reads the header of every file in `directory`: fine
 * for thousands of files; for more, use an object store.
 *
 * Runs on Deno (needs `--allow-read` and `--allow-write` for `directory`),
 * Node >= 20.16 and Bun, through `node:fs/promises`.
 *
 * @example
 * ```ts
 * import { createLocalFileStorage } from "@fetchkit/toolkit/file-storage";
 *
 * const directory = await Deno.makeTempDir(); // "./data/files" in an app
 * const storage = createLocalFileStorage(directory);
 * await storage.set("/etc/escape?.txt", new Blob(["stays inside"]));
 * const file = await storage.get("/etc/escape?.txt");
 * file?.name; // "/etc/escape?.txt" (the key: no name was given)
 * await file?.slice(0, 5).text(); // "stays"
 * await Deno.remove(directory, { recursive: true });
 * ```
 *
 * @param directory Where the files go.
 * @returns The storage.
 */
export function createLocalFileStorage(directory: string): FileStorage {
  if (typeof directory !== "string" || directory === "") {
    throw new TypeError(`${OWNER}: directory must be a non-empty path`);
  }
  const base = directory.endsWith("/") ? directory : `${directory}/`;
  let made: Promise<unknown> | undefined;
  const ready = () =>
    made ??= fs().mkdir(directory, { recursive: true }).catch((error) => {
      made = undefined;
      throw error;
    });
  const pathOf = async (key: string) => base + await hashKey(key);

  // Each chunk is written before the next is read: lent chunks are safe.
  return takingLentChunks({
    async set(
      key: string,
      file: File | Blob | ReadableStream<Uint8Array>,
      options?: FileStorageSetOptions,
    ): Promise<void> {
      checkNewKey(key, OWNER);
      const type = typeOf(file, options?.type, OWNER);
      await ready();
      const path = await pathOf(key);
      const temp = `${base}.tmp-${crypto.randomUUID()}`;
      const meta: Omit<Meta, "size"> = {
        key,
        name: nameOf(options?.name, key, file),
        type,
        lastModified: lastModifiedOf(file),
        id: crypto.randomUUID(),
      };
      const handle = await fs().open(temp, "wx", 0o600);
      try {
        // The size goes in the header, which is written again at the end.
        const header = encodeHeader({ ...meta, size: 0 }, 20);
        await handle.write(header, 0, header.length, 0);
        let size = 0;
        let position = header.length;
        for await (const chunk of streamOf(file)) {
          await handle.write(chunk, 0, chunk.length, position);
          position += chunk.length;
          size += chunk.length;
        }
        const final = encodeHeader({ ...meta, size }, 20);
        if (final.length !== header.length) {
          throw new Error("header length changed"); // padded: cannot happen
        }
        await handle.write(final, 0, final.length, 0);
        await handle.close();
        await fs().rename(temp, path);
      } catch (error) {
        await handle.close().catch(() => {});
        await fs().rm(temp, { force: true }).catch(() => {});
        throw error;
      }
    },
    async get(key: string): Promise<File | null> {
      checkKey(key, OWNER);
      const path = await pathOf(key);
      const found = await readHeader(path);
      if (found === null) return null;
      const { meta, length } = found;
      const open = async (start: number, end: number) => {
        // The header is read again from the handle the bytes come from, so
        // a file replaced since get() is noticed, not mixed in.
        const handle = await fs().open(path, "r").catch(() => undefined);
        const again = handle && await readHeaderFrom(handle).catch(() => null);
        if (handle === undefined || again?.meta.id !== meta.id) {
          await handle?.close();
          throw new Error(
            `${OWNER}: the file "${key}" was replaced or removed after get()`,
          );
        }
        return readRange(handle, length + start, end - start);
      };
      return new StoredFile(open, {
        name: meta.name,
        type: meta.type,
        size: meta.size,
        lastModified: meta.lastModified,
      });
    },
    async has(key: string): Promise<boolean> {
      checkKey(key, OWNER);
      return (await readHeader(await pathOf(key))) !== null;
    },
    async remove(key: string): Promise<void> {
      checkKey(key, OWNER);
      await fs().rm(await pathOf(key), { force: true });
    },
    async list(
      options?: FileStorageListOptions,
    ): Promise<FileStorageListResult> {
      const limit = checkLimit(options?.limit, OWNER);
      const prefix = options?.prefix ?? "";
      let names: string[];
      try {
        names = await fs().readdir(directory);
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") {
          return { files: [] };
        }
        throw error;
      }
      const metas = new Map<string, Meta>();
      for (const name of names) {
        if (!/^[0-9a-f]{64}$/.test(name)) continue;
        const found = await readHeader(base + name);
        if (found === null) continue;
        const { key } = found.meta;
        if (
          key.startsWith(prefix) &&
          (options?.cursor === undefined ||
            compareKeys(key, options.cursor) > 0)
        ) metas.set(key, found.meta);
      }
      const keys = [...metas.keys()].sort(compareKeys);
      return pageOf(keys, limit, (key) => {
        const meta = metas.get(key)!;
        return { key, size: meta.size, type: meta.type };
      });
    },
  });
}

async function hashKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(key),
  );
  return Array.from(
    new Uint8Array(digest),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * MAGIC, the JSON's length (4 bytes, big-endian), the JSON, padded with
 * spaces so that the size can be rewritten in place.
 */
function encodeHeader(meta: Meta, sizeDigits: number): Uint8Array {
  const json = JSON.stringify({ ...meta, size: 0 }).replace(
    '"size":0',
    `"size":${String(meta.size).padStart(sizeDigits, " ")}`,
  );
  const body = new TextEncoder().encode(json);
  const header = new Uint8Array(HEADER_FIXED + body.length);
  header.set(MAGIC);
  new DataView(header.buffer).setUint32(MAGIC.length, body.length);
  header.set(body, HEADER_FIXED);
  return header;
}

async function readHeader(
  path: string,
): Promise<{ meta: Meta; length: number } | null> {
  let handle;
  try {
    handle = await fs().open(path, "r");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return null;
    throw error;
  }
  try {
    return await readHeaderFrom(handle);
  } finally {
    await handle.close();
  }
}

async function readHeaderFrom(
  handle: NodeFsPromises.FileHandle,
): Promise<{ meta: Meta; length: number }> {
  const fixed = new Uint8Array(HEADER_FIXED);
  await readFully(handle, fixed, 0);
  if (!MAGIC.every((byte, i) => fixed[i] === byte)) {
    throw new Error(`${OWNER}: not a stored file`);
  }
  const length = new DataView(fixed.buffer).getUint32(MAGIC.length);
  const json = new Uint8Array(length);
  await readFully(handle, json, HEADER_FIXED);
  const meta = JSON.parse(new TextDecoder().decode(json)) as Meta;
  return { meta, length: HEADER_FIXED + length };
}

async function readFully(
  handle: NodeFsPromises.FileHandle,
  buffer: Uint8Array,
  position: number,
): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesRead } = await handle.read(
      buffer,
      offset,
      buffer.length - offset,
      position + offset,
    );
    if (bytesRead === 0) {
      throw new Error(`${OWNER}: a stored file is cut short`);
    }
    offset += bytesRead;
  }
}

function readRange(
  handle: NodeFsPromises.FileHandle,
  start: number,
  length: number,
): ReadableStream<Uint8Array> {
  let position = start;
  let left = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left === 0) {
        await handle.close();
        return controller.close();
      }
      const buffer = new Uint8Array(Math.min(READ_CHUNK, left));
      const { bytesRead } = await handle.read(
        buffer,
        0,
        buffer.length,
        position,
      );
      if (bytesRead === 0) {
        await handle.close();
        return controller.close();
      }
      position += bytesRead;
      left -= bytesRead;
      controller.enqueue(buffer.subarray(0, bytesRead));
    },
    async cancel() {
      await handle.close();
    },
  });
}
