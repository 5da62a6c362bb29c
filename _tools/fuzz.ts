// Seeded property/fuzz harness for the test suite (private; not published).
//
// Every case draws from its own PRNG, seeded from the run's seed and the
// case number, so a failure prints one `FUZZ_SEED=...` that replays exactly
// that case:
//
//   FUZZ_SEED=123456 deno task test --filter "fuzz: multipart"
//
// Environment:
// - FUZZ_CASES: cases per target (default: each target's own, a few thousand,
//   so `deno task test` stays within seconds; 30000 with FUZZ_LONG=1, which
//   `deno task fuzz` sets).
// - FUZZ_TIME: a bound in ms per target (default 20 s, 60 s with
//   FUZZ_LONG=1); the target stops early, reporting how many cases ran.
// - FUZZ_SEED: run the single case with that seed.

/** A small, fast, seeded PRNG (mulberry32) with helpers for test data. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** `true` with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
  bytes(length: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.int(0, 255);
    return out;
  }
  /** A string of `length` characters drawn from `alphabet`. */
  string(length: number, alphabet: string | readonly string[]): string {
    let out = "";
    for (let i = 0; i < length; i++) out += this.pick([...alphabet]);
    return out;
  }
  /** Cuts `bytes` into random chunks (1 byte up to the whole). */
  chunks(bytes: Uint8Array): Uint8Array[] {
    const mode = this.int(0, 3);
    const out: Uint8Array[] = [];
    const fixed = mode === 0 ? 1 : mode === 1 ? this.int(1, 16) : 0;
    for (let i = 0; i < bytes.length;) {
      const size = fixed ||
        (mode === 2 ? this.int(1, Math.max(1, bytes.length)) : this.int(1, 64));
      out.push(bytes.slice(i, i + size));
      i += size;
    }
    return out;
  }
}

/** An environment variable on Deno, Node and Bun (the fuzz tests are portable). */
function env(name: string): string | undefined {
  const runtime = globalThis as {
    Deno?: { env: { get(name: string): string | undefined } };
    process?: { env: Record<string, string | undefined> };
  };
  return runtime.Deno !== undefined
    ? runtime.Deno.env.get(name)
    : runtime.process?.env[name];
}

function envNumber(name: string): number | undefined {
  const value = env(name);
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new TypeError(`${name}=${value}`);
  return number;
}

/** The seed of case `index` of a run seeded with `base`. */
function caseSeed(base: number, index: number): number {
  let h = (base ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Counts of the last run of each target, for reports. */
export const fuzzStats: Record<string, { cases: number; ms: number }> = {};

/**
 * Registers a `Deno.test` named `fuzz: <name>` that checks `property` on
 * `cases` seeded cases (or `FUZZ_CASES`), failing with the case's seed.
 */
export function fuzz(
  name: string,
  cases: number,
  property: (rng: Rng) => void | Promise<void>,
  options: { sanitizeResources?: boolean; sanitizeOps?: boolean } = {},
): void {
  Deno.test({
    name: `fuzz: ${name}`,
    ...options,
    async fn() {
      const only = envNumber("FUZZ_SEED");
      const long = env("FUZZ_LONG") === "1";
      const count = envNumber("FUZZ_CASES") ?? (long ? 30_000 : cases);
      const budget = envNumber("FUZZ_TIME") ?? (long ? 60_000 : 20_000);
      const base = (Date.now() ^ (Math.random() * 2 ** 32)) >>> 0;
      const started = performance.now();
      let ran = 0;
      for (let i = 0; i < (only === undefined ? count : 1); i++) {
        const seed = only ?? caseSeed(base, i);
        try {
          await property(new Rng(seed));
        } catch (error) {
          const message = error instanceof Error
            ? error.message
            : String(error);
          throw new Error(
            `fuzz: ${name} failed on case ${i} (replay with FUZZ_SEED=${seed}): ${message}`,
            { cause: error },
          );
        }
        ran++;
        if (performance.now() - started > budget) break;
      }
      const ms = Math.round(performance.now() - started);
      fuzzStats[name] = { cases: ran, ms };
      if (env("FUZZ_REPORT")) {
        console.log(`fuzz: ${name}: ${ran} cases, 0 failures, ${ms} ms`);
      }
    },
  });
}

/** Rejects when `promise` takes longer than `ms`: a hang is a failure. */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} hung for ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
