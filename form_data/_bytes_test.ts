import assert from "node:assert/strict";
import { ByteCollector, SMALL_PIECE } from "./_bytes.ts";

function pattern(size: number, from = 0): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (from + i) * 7);
}

Deno.test("ByteCollector packs 1-byte pieces into a few arrays", () => {
  const bytes = new ByteCollector();
  const expected = pattern(20_000);
  for (let i = 0; i < expected.length; i++) {
    bytes.push(expected.subarray(i, i + 1));
  }
  assert.equal(bytes.size, 20_000);
  // One array per packet before: 20,000 of them.
  assert.ok(bytes.arrays <= 4, `${bytes.arrays} arrays`);
  assert.deepEqual(bytes.bytes(), expected);
});

Deno.test("ByteCollector keeps order across small and large pieces", () => {
  const sizes = [3, 1, SMALL_PIECE, 2, 5000, 1, 1, 20_000, 7, 0, 16_384, 9];
  const pieces: Uint8Array[] = [];
  let offset = 0;
  for (const size of sizes) {
    pieces.push(pattern(size, offset));
    offset += size;
  }
  const bytes = new ByteCollector();
  for (const piece of pieces) bytes.push(piece);
  assert.deepEqual(bytes.bytes(), pattern(offset));
  assert.deepEqual(bytes.bytes(true), pattern(offset));
});

Deno.test("ByteCollector returns a lone piece without copying, unless asked", () => {
  const piece = pattern(10);
  const bytes = new ByteCollector();
  bytes.push(piece);
  assert.equal(bytes.bytes(), piece);
  const copy = bytes.bytes(true);
  assert.notEqual(copy, piece);
  assert.deepEqual(copy, piece);
  assert.deepEqual(new ByteCollector().bytes(), new Uint8Array(0));
});
