// A small seeded PRNG (sfc32 seeded through splitmix32) and the random
// helpers the fuzz targets share. The same seed always gives the same case.

/** Random choices drawn from one seed. */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 0x1_0000_0000) * n);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.u32() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  bytes(length: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }

  /** A string from `alphabet`, of length in [0, max]. */
  text(max: number, alphabet: readonly string[]): string {
    let out = "";
    for (let n = this.int(max + 1); n > 0; n--) out += this.pick(alphabet);
    return out;
  }
}

/** Characters that stress parsers: separators, quotes, escapes, non-ASCII. */
export const NASTY: readonly string[] = [
  ..."abcXYZ019-_.~ ",
  ..."\"';=&+%\\/:,",
  "\r",
  "\n",
  "\r\n",
  "\t",
  "\0",
  "é",
  "日本",
  "😀",
  "\ud800", // a lone surrogate
  "--",
  "%zz",
  "%e9",
  "%C3%A9",
  "%00",
];

/** Splits `bytes` into chunks: all 1-byte, a fixed size, or random sizes. */
export function chunkings(rng: Rng, bytes: Uint8Array): Uint8Array[] {
  const mode = rng.int(4);
  const size = mode === 0
    ? 1
    : mode === 1
    ? 1 + rng.int(16)
    : mode === 2
    ? 1 + rng.int(bytes.length + 1)
    : 0;
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = size || 1 + rng.int(64);
    chunks.push(bytes.slice(i, i + n));
    i += n;
  }
  return chunks;
}

/** A stream that yields exactly `chunks`, one per pull. */
export function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}
