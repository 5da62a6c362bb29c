/**
 * The file access that `serveStatic()` and the disk upload handler need,
 * on Deno's own API where `Deno` is there (its file streams are what
 * `Deno.serve` sends fastest) and on `node:fs` elsewhere (Node, Bun),
 * loaded with `process.getBuiltinModule` when first used, so that merely
 * importing a module that may touch files loads nothing on runtimes
 * without a file system (workerd). There every call throws an error that
 * says so.
 *
 * @module
 */

import type * as NodeFs from "node:fs";
import type * as NodeOs from "node:os";

/** What a `stat` tells. */
export interface FileInfo {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly size: number;
  readonly mtime: Date | null;
}

/** A file open for reading, at a position. */
export interface ReadHandle {
  /** Reads into `buffer` from the position; `null` at the end. */
  readSync(buffer: Uint8Array): number | null;
  /**
   * The file from the position as a stream: `length` bytes, or to the end.
   * The stream closes the file at its end or when it is cancelled.
   */
  stream(length?: number): ReadableStream<Uint8Array>;
  close(): void;
}

/** A file open for writing. */
export interface WriteHandle {
  /** Writes all of `bytes`. */
  writeAllSync(bytes: Uint8Array): void;
  close(): void;
}

interface NodeProcess {
  getBuiltinModule?(name: string): unknown;
}

/** The file system API of the runtime: Deno's, or `node:fs`. */
type Backend =
  | { readonly kind: "deno"; readonly deno: typeof Deno }
  | {
    readonly kind: "node";
    readonly fs: typeof NodeFs;
    readonly os: typeof NodeOs;
  };

let backend: Backend | undefined;

/**
 * The runtime's file API, found on first use.
 *
 * @throws {Error} On a runtime without files (workerd, a browser), or a
 * Node older than 20.16 (no `process.getBuiltinModule`).
 */
function files(feature: string): Backend {
  if (backend !== undefined) return backend;
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (typeof deno?.openSync === "function") {
    return backend = { kind: "deno", deno };
  }
  const process = (globalThis as { process?: NodeProcess }).process;
  const fs = process?.getBuiltinModule?.("node:fs") as
    | typeof NodeFs
    | undefined;
  const os = process?.getBuiltinModule?.("node:os") as
    | typeof NodeOs
    | undefined;
  if (typeof fs?.openSync !== "function" || os === undefined) {
    throw new Error(
      `${feature} needs a file system: Deno, Node >= 20.16 or Bun ` +
        "(this runtime has neither Deno's file API nor " +
        "process.getBuiltinModule('node:fs'))",
    );
  }
  return backend = { kind: "node", fs, os };
}

/**
 * The path separator of the platform: `\\` on Windows, else `/`. Read here
 * rather than from `node:path`, so that a module that only may touch files
 * loads where there are no `node:` modules (workerd without
 * `nodejs_compat`).
 */
export function pathSeparator(): string {
  const deno = (globalThis as { Deno?: { build?: { os?: string } } }).Deno;
  const process = (globalThis as { process?: { platform?: string } }).process;
  return deno?.build?.os === "windows" || process?.platform === "win32"
    ? "\\"
    : "/";
}

/**
 * `root` and `segments` joined with the platform's separator; the segments
 * are single names (no separators, no `.` or `..`), as `static/_path.ts`
 * makes them.
 */
export function joinSegments(
  root: string,
  segments: readonly string[],
  separator: string,
): string {
  if (segments.length === 0) return root;
  const base = root.endsWith(separator) ? root : root + separator;
  return base + segments.join(separator);
}

/** Whether `error` says that a path (or one of its folders) is not there. */
export function isNotFound(error: unknown): boolean {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (
    deno?.errors !== undefined &&
    (error instanceof deno.errors.NotFound ||
      error instanceof deno.errors.NotADirectory)
  ) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** The absolute path with every symbolic link resolved. */
export function realPathSync(path: string | URL, feature: string): string {
  const api = files(feature);
  return api.kind === "deno"
    ? api.deno.realPathSync(path)
    : api.fs.realpathSync(path);
}

/** Follows symbolic links. */
export function statSync(path: string | URL, feature: string): FileInfo {
  const api = files(feature);
  if (api.kind === "deno") return api.deno.statSync(path);
  const stats = api.fs.statSync(path);
  return {
    isFile: stats.isFile(),
    isDirectory: stats.isDirectory(),
    size: stats.size,
    mtime: stats.mtime,
  };
}

/** Opens `path` for reading at byte `start`. */
export function openReadSync(
  path: string,
  start: number,
  feature: string,
): ReadHandle {
  const api = files(feature);
  if (api.kind === "deno") {
    const file = api.deno.openSync(path, { read: true });
    try {
      if (start > 0) file.seekSync(start, api.deno.SeekMode.Start);
    } catch (error) {
      file.close();
      throw error;
    }
    return {
      readSync: (buffer) => file.readSync(buffer),
      stream: (length) =>
        length === undefined ? file.readable : limit(file.readable, length),
      close: () => file.close(),
    };
  }
  const { fs } = api;
  const fd = fs.openSync(path, "r");
  let position = start;
  return {
    readSync(buffer) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, position);
      position += read;
      return read === 0 && buffer.length > 0 ? null : read;
    },
    stream: (length) => nodeStream(fs, fd, position, length),
    close: () => fs.closeSync(fd),
  };
}

const CHUNK = 64 * 1024;

function nodeStream(
  fs: typeof NodeFs,
  fd: number,
  start: number,
  length: number | undefined,
): ReadableStream<Uint8Array> {
  let position = start;
  let remaining = length ?? Infinity;
  let closed = false;
  const close = () => {
    if (!closed) {
      closed = true;
      fs.close(fd, () => {});
    }
  };
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const buffer = new Uint8Array(Math.min(CHUNK, remaining));
      return new Promise<void>((resolve, reject) => {
        fs.read(fd, buffer, 0, buffer.length, position, (error, read) => {
          if (error) {
            close();
            reject(error);
            return;
          }
          position += read;
          remaining -= read;
          if (read > 0) controller.enqueue(buffer.subarray(0, read));
          // A file that shrank since stat(): send what there is.
          if (read === 0 || remaining <= 0) {
            close();
            controller.close();
          }
          resolve();
        });
      });
    },
    cancel() {
      close();
    },
  });
}

/** The first `length` bytes of `stream`; cancels the rest. */
function limit(
  stream: ReadableStream<Uint8Array>,
  length: number,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let remaining = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) {
        controller.close(); // the file shrank since stat(): send what there is
        return;
      }
      if (value.byteLength >= remaining) {
        controller.enqueue(value.subarray(0, remaining));
        remaining = 0;
        controller.close();
        await reader.cancel();
        return;
      }
      remaining -= value.byteLength;
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Opens `path` for writing, truncating it. */
export function openWriteSync(path: string, feature: string): WriteHandle {
  const api = files(feature);
  if (api.kind === "deno") {
    const file = api.deno.openSync(path, { write: true, truncate: true });
    return {
      writeAllSync(bytes) {
        let written = 0;
        while (written < bytes.length) {
          written += file.writeSync(bytes.subarray(written));
        }
      },
      close: () => file.close(),
    };
  }
  const { fs } = api;
  const fd = fs.openSync(path, "w");
  return {
    writeAllSync(bytes) {
      let written = 0;
      while (written < bytes.length) {
        written += fs.writeSync(fd, bytes, written, bytes.length - written);
      }
    },
    close: () => fs.closeSync(fd),
  };
}

/** Makes `path` and its missing parents. */
export async function mkdir(path: string, feature: string): Promise<void> {
  const api = files(feature);
  if (api.kind === "deno") {
    await api.deno.mkdir(path, { recursive: true });
  } else {
    await api.fs.promises.mkdir(path, { recursive: true });
  }
}

/**
 * Creates an empty file with a random name in `dir` (the system temp
 * directory by default), readable and writable by its owner only.
 */
export async function makeTempFile(
  options: { dir?: string; prefix: string },
  feature: string,
): Promise<string> {
  const api = files(feature);
  if (api.kind === "deno") return await api.deno.makeTempFile(options);
  const dir = options.dir ?? api.os.tmpdir();
  const random = crypto.getRandomValues(new Uint8Array(8));
  const name = options.prefix +
    Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
  const path = `${dir.replace(/[\\/]+$/, "")}/${name}`;
  await api.fs.promises.writeFile(path, "", { flag: "wx", mode: 0o600 });
  return path;
}

/** Removes a file. */
export function removeSync(path: string, feature: string): void {
  const api = files(feature);
  if (api.kind === "deno") api.deno.removeSync(path);
  else api.fs.unlinkSync(path);
}

/** Reads a whole file. */
export async function readFile(
  path: string,
  feature: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const api = files(feature);
  if (api.kind === "deno") {
    return await api.deno.readFile(path) as Uint8Array<ArrayBuffer>;
  }
  const buffer = await api.fs.promises.readFile(path);
  return new Uint8Array(
    buffer.buffer,
    buffer.byteOffset,
    buffer.byteLength,
  ) as Uint8Array<ArrayBuffer>;
}
