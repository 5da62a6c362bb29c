/**
 * The one choice inside the session signer, measured apart: copying a keyed
 * HMAC-SHA256 state into one reused instance with noble's `_cloneInto` (what
 * the signer does) against a fresh `clone()` per signature (noble's
 * documented call). Interleaved rounds, CPU time (`process.cpuUsage`, which
 * other processes on a busy machine disturb less than wall time), medians.
 *
 * Run: deno run bench/session/signer_copy.ts [rounds]
 */
import process from "node:process";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { median, quantile } from "../_stats.ts";

const rounds = Number(Deno.args[0] ?? 31);
const CALLS = 20_000;
const encoder = new TextEncoder();
const keyed = hmac.create(
  sha256,
  encoder.encode("bench-secret-0123456789abcdefghijklmnopqrstuvwxyz"),
);
const work = keyed.clone();
const inputs = {
  "session id (24 bytes)": encoder.encode("AbCdEfGhIjKlMnOpQrStUvWx"),
  "cookie payload (160 bytes)": encoder.encode("x".repeat(160)),
};
const strategies = {
  "_cloneInto(reused)": (data: Uint8Array) =>
    keyed._cloneInto(work).update(data).digest(),
  "clone()": (data: Uint8Array) => keyed.clone().update(data).digest(),
};

const results = new Map<string, number[]>();
for (let round = 0; round < rounds + 3; round++) {
  const names = Object.keys(strategies) as (keyof typeof strategies)[];
  for (const name of round % 2 ? names : names.toReversed()) {
    for (const [input, data] of Object.entries(inputs)) {
      const before = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) strategies[name](data);
      const used = process.cpuUsage(before);
      // The first three rounds warm up.
      if (round < 3) continue;
      const key = `${input} | ${name}`;
      results.set(key, [
        ...(results.get(key) ?? []),
        (used.user + used.system) * 1000 / CALLS,
      ]);
    }
  }
}
console.log(`${rounds} rounds x ${CALLS} HMACs; ns of CPU per HMAC\n`);
console.log("| input | copy | median ns | quartiles |");
console.log("| --- | --- | ---: | ---: |");
for (const [key, values] of [...results].sort()) {
  console.log(
    `| ${key} | ${median(values).toFixed(0)} | ${
      quantile(values, 0.25).toFixed(0)
    }-${quantile(values, 0.75).toFixed(0)} |`,
  );
}
