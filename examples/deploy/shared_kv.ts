/**
 * One Deno KV file that Deno and Node instances open side by side: Deno's
 * own `Deno.openKv(path)` on Deno, `openKv(path)` of `npm:@deno/kv` (the
 * same SQLite-backed store, as native code) elsewhere.
 *
 * Values are V8-serialized, and the two V8s differ: Deno 2.9's writes
 * serialization format version 16, which Node 20's reader refuses
 * ("invalid or unsupported version"), and Node's default `v8.serialize`
 * writes typed arrays as Node-only host objects, which Deno cannot read.
 * So on Node the store reads and writes with {@linkcode encodeSharedV8} and
 * {@linkcode decodeSharedV8}: V8's own serializer without Node's host
 * objects (format 15, which Deno reads), and a reader that takes format 16
 * as 15. Version 16 changed one thing: array buffer and view lengths and
 * offsets are written as 64-bit varints instead of 32-bit ones, and a
 * varint below 2^32 is the same bytes either way; a KV value is at most
 * 64 KiB.
 *
 * @module
 */
import type * as NodeV8 from "node:v8";
import process from "node:process";

/** The highest V8 serialization format Node 20 reads. */
const NODE_FORMAT = 15;
/** Deno 2.9's format: version 15 with 64-bit lengths (same bytes below 4 GiB). */
const DENO_FORMAT = 16;

interface NodeProcess {
  getBuiltinModule(name: string): unknown;
}

function v8(): typeof NodeV8 {
  return (process as unknown as NodeProcess).getBuiltinModule(
    "node:v8",
  ) as typeof NodeV8;
}

/** Serializes `value` as Deno reads it (format 15, typed arrays as V8's own). */
export function encodeSharedV8(value: unknown): Uint8Array {
  const serializer = new (v8().Serializer)();
  serializer.writeHeader();
  serializer.writeValue(value);
  return serializer.releaseBuffer();
}

/** Deserializes what Deno (format 16) or Node (format 15) wrote. */
export function decodeSharedV8(bytes: Uint8Array): unknown {
  let data = bytes;
  if (data[0] === 0xff && data[1] === DENO_FORMAT) {
    data = new Uint8Array(bytes);
    data[1] = NODE_FORMAT;
  }
  const deserializer = new (v8().Deserializer)(data);
  deserializer.readHeader();
  return deserializer.readValue();
}

/**
 * Opens the KV file at `path`: `Deno.openKv` on Deno, `npm:@deno/kv`
 * with the shared codec elsewhere.
 */
export async function openSharedKv(path: string): Promise<Deno.Kv> {
  const deno = (globalThis as { Deno?: { openKv?: typeof Deno.openKv } })
    .Deno;
  if (typeof deno?.openKv === "function") return await deno.openKv(path);
  const { openKv } = await import("@deno/kv");
  const kv = await openKv(path, {
    encodeV8: encodeSharedV8,
    decodeV8: decodeSharedV8,
  });
  // The methods the app calls (get, set, list, atomic, close) behave the
  // same; `@deno/kv`'s own types name its classes differently.
  return kv as unknown as Deno.Kv;
}
