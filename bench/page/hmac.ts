/**
 * One session cookie's HMAC-SHA256 (a 120-byte value, a 45-byte secret)
 * per runtime: `@noble/hashes` from a keyed state copied into a reused
 * instance (what `session/_signer.ts` does), `node:crypto`'s `createHmac`
 * (native, synchronous), and WebCrypto's `crypto.subtle.sign` with the key
 * imported once (asynchronous). Interleaved CPU-time rounds; µs per
 * signature.
 *
 * ```sh
 * deno run -A bench/page/run.ts hmac.ts [--rounds=11]
 * ```
 *
 * @module
 */
import { createHmac } from "node:crypto";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { argsOf, rounds } from "./_measure.ts";

const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";
const encoder = new TextEncoder();
const value =
  "eyJkIjp7InVzZXIiOiJhZGEiLCJ2aXNpdHMiOjF9LCJlIjoxNzk1ODQxMzQ0LCJpIjoiYWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY3ODkwIn0";
const data = encoder.encode(value);
const keyed = hmac.create(sha256, encoder.encode(SECRET));
const work = keyed.clone();
const key = await crypto.subtle.importKey(
  "raw",
  encoder.encode(SECRET),
  { name: "HMAC", hash: "SHA-256" },
  false,
  ["sign"],
);
const per = 5000;
let sink = 0;
const expected = keyed.clone().update(data).digest();
const check = (bytes: Uint8Array) => {
  if (bytes[0] !== expected[0] || bytes[31] !== expected[31]) {
    throw new Error("a different signature");
  }
};
check(createHmac("sha256", SECRET).update(value).digest());
check(new Uint8Array(await crypto.subtle.sign("HMAC", key, data)));
await rounds([
  {
    name: "@noble/hashes, state copied",
    run: () => {
      for (let i = 0; i < per; i++) {
        sink += keyed._cloneInto(work).update(data).digest()[0];
      }
    },
  },
  {
    name: "node:crypto createHmac",
    run: () => {
      for (let i = 0; i < per; i++) {
        sink += createHmac("sha256", SECRET).update(data).digest()[0];
      }
    },
  },
  {
    name: "crypto.subtle.sign (key kept)",
    run: async () => {
      for (let i = 0; i < per; i++) {
        sink += new Uint8Array(await crypto.subtle.sign("HMAC", key, data))[0];
      }
    },
  },
], {
  rounds: Number(argsOf().get("rounds") ?? 11),
  warm: 2,
  per,
  against: "@noble/hashes, state copied",
});
if (sink === 0) throw new Error("no signature");
