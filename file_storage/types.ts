/**
 * The {@linkcode FileStorage} interface every backend implements, and the
 * key rules they share.
 *
 * @module
 */

/** Options of {@linkcode FileStorage.set}. */
export interface FileStorageSetOptions {
  /**
   * The media type to store: `type/subtype` with optional parameters, in
   * printable ASCII (else a `TypeError`). Default: the `type` of a `File`
   * or `Blob` when it is such a media type (a client's type that is not,
   * such as one with `€`, is dropped), else `application/octet-stream`.
   */
  type?: string;
  /**
   * The file name `get()` gives the `File` back with. Default: a `File`'s
   * own name, else the key.
   */
  name?: string;
}

/** Options of {@linkcode FileStorage.list}. */
export interface FileStorageListOptions {
  /** Only keys that start with this. */
  prefix?: string;
  /** Where the previous page ended: its result's `cursor`. */
  cursor?: string;
  /** Most files on one page. Default (and maximum) 1000. */
  limit?: number;
}

/** One file of a {@linkcode FileStorageListResult}. */
export interface FileStorageEntry {
  /** Its key. */
  key: string;
  /** Its size in bytes. */
  size: number;
  /** Its media type. */
  type: string;
}

/** One page of {@linkcode FileStorage.list}. */
export interface FileStorageListResult {
  /** The files, in the order of their keys (UTF-8 bytes). */
  files: FileStorageEntry[];
  /** Present when there are more files: pass it back to get them. */
  cursor?: string;
}

/**
 * Files kept under string keys, in memory, on disk or in an S3-compatible
 * object store. Every backend takes the same keys: non-empty strings of at
 * most 1024 UTF-8 bytes without NUL, and `set()` refuses a key with a
 * segment (between `/`) that is exactly `.` or `..`, which URL paths
 * resolve away (a `TypeError` otherwise). Every method reports bad input
 * as a rejected promise, never by throwing.
 *
 * @example Any backend, one interface
 * ```ts
 * import {
 *   createMemoryFileStorage,
 *   type FileStorage,
 * } from "@fetchkit/toolkit/file-storage";
 *
 * async function keep(storage: FileStorage, file: File): Promise<string> {
 *   const key = `uploads/${crypto.randomUUID()}`;
 *   await storage.set(key, file, { name: file.name });
 *   return key;
 * }
 * const storage = createMemoryFileStorage();
 * const key = await keep(storage, new File(["hi"], "hi.txt", { type: "text/plain" }));
 * const file = await storage.get(key);
 * file?.name; // "hi.txt"
 * await file?.text(); // "hi"
 * ```
 */
export interface FileStorage {
  /**
   * Stores `file` under `key`, replacing what was there. A stream is read
   * to its end; when reading it fails, nothing is stored.
   */
  set(
    key: string,
    file: File | Blob | ReadableStream<Uint8Array>,
    options?: FileStorageSetOptions,
  ): Promise<void>;
  /**
   * The file under `key`, or `null`: a `File` named by `set()`'s `name`
   * (else the stored `File`'s own name, else the key), with the stored type
   * and the stored `File`'s `lastModified` (else the time it was stored).
   * Its bytes are read when asked for
   * (`stream()`, `bytes()`, `text()`...), and `slice()` reads only its
   * range.
   */
  get(key: string): Promise<File | null>;
  /** Whether a file is stored under `key`. */
  has(key: string): Promise<boolean>;
  /** Removes the file under `key`; nothing happens when there is none. */
  remove(key: string): Promise<void>;
  /** A page of the stored files, in key order. */
  list(options?: FileStorageListOptions): Promise<FileStorageListResult>;
}

const encoder = new TextEncoder();

/** Longest key, in UTF-8 bytes (S3's limit). */
export const MAX_KEY_BYTES = 1024;

/**
 * Checks a key: a non-empty string of at most 1024 UTF-8 bytes without
 * NUL.
 *
 * @param key The key to check.
 * @param owner The function checking, for the message.
 * @returns The key.
 * @throws {TypeError} Naming what is wrong with it.
 */
export function checkKey(key: unknown, owner: string): string {
  if (typeof key !== "string" || key === "") {
    throw new TypeError(`${owner}: a key must be a non-empty string`);
  }
  if (key.includes("\0")) {
    throw new TypeError(`${owner}: a key cannot contain NUL`);
  }
  const bytes = encoder.encode(key).length;
  if (bytes > MAX_KEY_BYTES) {
    throw new TypeError(
      `${owner}: a key is at most ${MAX_KEY_BYTES} UTF-8 bytes (this one is ${bytes})`,
    );
  }
  return key;
}

/**
 * Checks a key for `set()`: {@linkcode checkKey}'s rules, and no segment
 * (between `/`) that is exactly `.` or `..`: URL paths resolve those away,
 * so S3 would store another key or refuse it.
 * @param key The key to check.
 * @param owner The function checking, for the message.
 * @returns The key.
 * @throws {TypeError} When it breaks a rule.
 */
export function checkNewKey(key: unknown, owner: string): string {
  checkKey(key, owner);
  const segment = (key as string).split("/").find((part) =>
    part === "." || part === ".."
  );
  if (segment !== undefined) {
    throw new TypeError(
      `${owner}: a key cannot have a "${segment}" segment (got ${
        JSON.stringify(key)
      }); URL paths resolve it away`,
    );
  }
  return key as string;
}

// RFC 9110 media type: token "/" token, then parameters, printable ASCII.
const MEDIA_TYPE =
  /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*;[\x20-\x7e\t]*)?$/;

/**
 * Whether `type` is a media type a header can carry: `type/subtype` with
 * optional parameters, printable ASCII, at most 255 characters.
 */
export function isMediaType(type: string): boolean {
  return type.length <= 255 && MEDIA_TYPE.test(type);
}

/**
 * Checks a media type given by the caller.
 * @param type The type.
 * @param owner The function checking, for the message.
 * @returns The type.
 * @throws {TypeError} When it is not a media type a header can carry.
 */
export function checkType(type: unknown, owner: string): string {
  if (typeof type !== "string" || !isMediaType(type)) {
    throw new TypeError(
      `${owner}: type must be a media type such as "image/png" (type/subtype, printable ASCII, at most 255 characters), got ${
        JSON.stringify(type)
      }`,
    );
  }
  return type;
}

/**
 * Checks `list()`'s `limit`: an integer from 1 to 1000.
 *
 * @param limit The option's value.
 * @param owner The function checking, for the message.
 * @returns The limit, 1000 when not given.
 * @throws {TypeError} When it is out of range.
 */
export function checkLimit(limit: unknown, owner: string): number {
  if (limit === undefined) return 1000;
  if (
    typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 ||
    limit > 1000
  ) {
    throw new TypeError(
      `${owner}: list() limit must be an integer from 1 to 1000, got ${
        String(limit)
      }`,
    );
  }
  return limit;
}

/**
 * Compares keys by their UTF-8 bytes, the order S3 lists them in (JS's `<`
 * compares UTF-16 units, which differs above U+FFFF).
 */
export function compareKeys(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}
