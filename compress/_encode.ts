/**
 * The encoders: a body stream in, its compressed stream out, flushed after
 * every chunk the body yields, so that a server-sent event or the head of
 * a streamed page leaves at once instead of waiting in the compressor.
 *
 * - gzip and deflate: Deno's `CompressionStream`, which flushes each chunk
 *   (Node's and Bun's do not, so there `node:zlib` with `Z_SYNC_FLUSH` is
 *   used; `CompressionStream` remains the fallback where `node:zlib` is
 *   missing, such as workerd without `nodejs_compat`).
 * - br and zstd: `node:zlib` (Deno, Node, Bun; zstd from Node 22.15 and
 *   Deno 2.3), found with `process.getBuiltinModule` when first needed, so
 *   that importing the module loads nothing.
 */

import type * as NodeZlib from "node:zlib";
import type { ContentCoding } from "./_negotiate.ts";

/** Compression levels by coding. */
export interface Levels {
  br: number;
  zstd: number;
  gzip: number | undefined;
  deflate: number | undefined;
}

interface ZlibEngine {
  write(chunk: Uint8Array): boolean;
  flush(kind: number, callback: () => void): void;
  end(): void;
  destroy(): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: "end", listener: () => void): this;
}

interface NodeProcess {
  getBuiltinModule?(name: string): unknown;
}

let zlibModule: typeof NodeZlib | null | undefined;

/** `node:zlib`, or `null` on a runtime without it. */
export function nodeZlib(): typeof NodeZlib | null {
  if (zlibModule !== undefined) return zlibModule;
  const process = (globalThis as { process?: NodeProcess }).process;
  let module: typeof NodeZlib | undefined;
  try {
    module = process?.getBuiltinModule?.("node:zlib") as
      | typeof NodeZlib
      | undefined;
  } catch {
    module = undefined;
  }
  return zlibModule = typeof module?.createGzip === "function" ? module : null;
}

/** Whether `CompressionStream` flushes each chunk (it does in Deno). */
function nativeFlushes(): boolean {
  const deno = (globalThis as { Deno?: { version?: { deno?: string } } })
    .Deno;
  return typeof deno?.version?.deno === "string";
}

/** The codings this runtime can produce, most preferred first. */
export function availableCodings(): ContentCoding[] {
  const zlib = nodeZlib();
  const codings: ContentCoding[] = [];
  if (typeof zlib?.createBrotliCompress === "function") codings.push("br");
  if (
    typeof (zlib as { createZstdCompress?: unknown } | null)
      ?.createZstdCompress === "function"
  ) {
    codings.push("zstd");
  }
  if (zlib !== null || typeof CompressionStream === "function") {
    codings.push("gzip", "deflate");
  }
  return codings;
}

/** `body` compressed with `coding`, flushed after each of its chunks. */
export function encode(
  body: ReadableStream<Uint8Array>,
  coding: ContentCoding,
  levels: Levels,
): ReadableStream<Uint8Array> {
  const zlib = nodeZlib();
  if (coding === "gzip" || coding === "deflate") {
    const level = levels[coding];
    if (
      typeof CompressionStream === "function" &&
      (zlib === null || (nativeFlushes() && level === undefined))
    ) {
      return body.pipeThrough(
        new CompressionStream(coding) as TransformStream<
          Uint8Array,
          Uint8Array
        >,
      );
    }
  }
  // availableCodings() offered nothing else without node:zlib.
  const z = zlib as typeof NodeZlib;
  const c = z.constants;
  switch (coding) {
    case "br":
      return throughZlib(
        body,
        z.createBrotliCompress({
          params: { [c.BROTLI_PARAM_QUALITY]: levels.br },
        }) as unknown as ZlibEngine,
        c.BROTLI_OPERATION_FLUSH,
      );
    case "zstd": {
      const zstd = z as unknown as {
        createZstdCompress(
          options: { params: Record<number, number> },
        ): ZlibEngine;
        constants: Record<string, number>;
      };
      return throughZlib(
        body,
        zstd.createZstdCompress({
          params: { [zstd.constants.ZSTD_c_compressionLevel]: levels.zstd },
        }),
        zstd.constants.ZSTD_e_flush,
      );
    }
    case "gzip":
      return throughZlib(
        body,
        z.createGzip({ level: levels.gzip ?? 6 }) as unknown as ZlibEngine,
        c.Z_SYNC_FLUSH,
      );
    case "deflate":
      return throughZlib(
        body,
        z.createDeflate({
          level: levels.deflate ?? 6,
        }) as unknown as ZlibEngine,
        c.Z_SYNC_FLUSH,
      );
  }
}

/**
 * `body` through a `node:zlib` stream. One source chunk is compressed per
 * pull (so a slow client holds back the source: no unbounded buffering),
 * then flushed. Cancelling the result cancels the source and frees the
 * compressor.
 */
function throughZlib(
  body: ReadableStream<Uint8Array>,
  engine: ZlibEngine,
  flushKind: number,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let output!: ReadableStreamDefaultController<Uint8Array>;
  let failure: Error | undefined;
  let waiting: ((error?: Error) => void) | undefined;
  engine.on("data", (chunk) => output.enqueue(chunk));
  engine.on("error", (error) => {
    failure = error;
    waiting?.(error);
  });
  function settle(start: (done: () => void) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (failure !== undefined) return reject(failure);
      waiting = (error) => {
        waiting = undefined;
        if (error === undefined) resolve();
        else reject(error);
      };
      start(() => waiting?.());
    });
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      output = controller;
    },
    async pull(controller) {
      try {
        const step = await reader.read();
        if (step.done) {
          await settle((done) => {
            engine.on("end", done);
            engine.end();
          });
          controller.close();
          return;
        }
        await settle((done) => {
          engine.write(step.value);
          engine.flush(flushKind, done);
        });
      } catch (error) {
        // The source failed or the compressor did: free both.
        engine.destroy();
        reader.cancel(error).catch(() => {});
        throw error;
      }
    },
    cancel(reason) {
      engine.destroy();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/**
 * Largest body compressed in one call when all of it is at hand: one call
 * costs what `node:zlib` called directly costs (a stream of the same body
 * costs up to twice as much CPU on Deno, BENCHMARKS.md "compress()"), and
 * holds the event loop for about 15 ms per MiB.
 */
export const ONE_SHOT_LIMIT = 1024 * 1024;

/**
 * `input` compressed in one call, or `undefined` where there is no
 * `node:zlib` (the caller streams instead).
 */
export function encodeWhole(
  input: string | Uint8Array,
  coding: ContentCoding,
  levels: Levels,
): Uint8Array<ArrayBuffer> | undefined {
  const zlib = nodeZlib();
  if (zlib === null) return undefined;
  const c = zlib.constants;
  let output: Uint8Array;
  switch (coding) {
    case "br":
      output = zlib.brotliCompressSync(input, {
        params: {
          [c.BROTLI_PARAM_QUALITY]: levels.br,
          [c.BROTLI_PARAM_SIZE_HINT]: typeof input === "string"
            ? input.length
            : input.byteLength,
        },
      });
      break;
    case "zstd": {
      const zstd = zlib as unknown as {
        zstdCompressSync(
          input: string | Uint8Array,
          options: { params: Record<number, number> },
        ): Uint8Array;
        constants: Record<string, number>;
      };
      output = zstd.zstdCompressSync(input, {
        params: { [zstd.constants.ZSTD_c_compressionLevel]: levels.zstd },
      });
      break;
    }
    case "gzip":
      output = zlib.gzipSync(input, { level: levels.gzip ?? 6 });
      break;
    case "deflate":
      output = zlib.deflateSync(input, { level: levels.deflate ?? 6 });
      break;
  }
  return output as Uint8Array<ArrayBuffer>;
}
