/**
 * {@linkcode createMemoryFileStorage}: files kept in this process's
 * memory.
 *
 * @module
 */

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
import { lastModifiedOf, nameOf, streamOf, typeOf } from "./_stored_file.ts";

const OWNER = "createMemoryFileStorage()";

interface Entry {
  bytes: Uint8Array<ArrayBuffer>;
  name: string;
  type: string;
  lastModified: number;
}

/**
 * Makes a {@linkcode FileStorage} that keeps files in memory: for tests,
 * and for development. Its files are gone when the process ends, and one
 * process does not see another's: use `createLocalFileStorage()` or
 * `createS3FileStorage()` for files that must last or be shared.
 *
 * `get()` returns a new `File` holding a copy of the bytes, so changing
 * what was stored never changes what was returned earlier.
 *
 * @example
 * ```ts
 * import { createMemoryFileStorage } from "@fetchkit/toolkit/file-storage";
 *
 * const storage = createMemoryFileStorage();
 * await storage.set("notes/a.txt", new Blob(["hello"], { type: "text/plain" }), {
 *   name: "a.txt",
 * });
 * await storage.has("notes/a.txt"); // true
 * (await storage.list({ prefix: "notes/" })).files; // [{ key: "notes/a.txt", size: 5, type: "text/plain" }]
 * await (await storage.get("notes/a.txt"))?.text(); // "hello"
 * await storage.remove("notes/a.txt");
 * ```
 *
 * @returns An empty storage.
 */
export function createMemoryFileStorage(): FileStorage {
  const files = new Map<string, Entry>();
  return {
    async set(
      key: string,
      file: File | Blob | ReadableStream<Uint8Array>,
      options?: FileStorageSetOptions,
    ): Promise<void> {
      checkNewKey(key, OWNER);
      const type = typeOf(file, options?.type, OWNER);
      const bytes = new Uint8Array(
        await new Response(streamOf(file)).arrayBuffer(),
      );
      files.set(key, {
        bytes,
        name: nameOf(options?.name, key, file),
        type,
        lastModified: lastModifiedOf(file),
      });
    },
    // async (and nothing awaited): bad input rejects, as on the other
    // storages, instead of throwing.
    // deno-lint-ignore require-await
    async get(key: string): Promise<File | null> {
      checkKey(key, OWNER);
      const entry = files.get(key);
      return entry === undefined ? null : new File([entry.bytes], entry.name, {
        type: entry.type,
        lastModified: entry.lastModified,
      });
    },
    // deno-lint-ignore require-await
    async has(key: string): Promise<boolean> {
      checkKey(key, OWNER);
      return files.has(key);
    },
    // deno-lint-ignore require-await
    async remove(key: string): Promise<void> {
      checkKey(key, OWNER);
      files.delete(key);
    },
    // deno-lint-ignore require-await
    async list(
      options?: FileStorageListOptions,
    ): Promise<FileStorageListResult> {
      const limit = checkLimit(options?.limit, OWNER);
      const prefix = options?.prefix ?? "";
      const keys = [...files.keys()]
        .filter((key) =>
          key.startsWith(prefix) &&
          (options?.cursor === undefined ||
            compareKeys(key, options.cursor) > 0)
        )
        .sort(compareKeys);
      return pageOf(keys, limit, (key) => {
        const entry = files.get(key)!;
        return { key, size: entry.bytes.length, type: entry.type };
      });
    },
  };
}

/** The first `limit` of sorted `keys`, with a cursor when more follow. */
export function pageOf(
  keys: readonly string[],
  limit: number,
  entry: (key: string) => { key: string; size: number; type: string },
): FileStorageListResult {
  const page = keys.slice(0, limit).map(entry);
  return keys.length > limit ? { files: page, cursor: page.at(-1)!.key } : {
    files: page,
  };
}
