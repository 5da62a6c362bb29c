/**
 * The session cookie's HMAC-SHA256 signer on its own: signing a session id
 * (every save of a server-side session), signing a cookie-storage payload,
 * and verifying strings it has not seen (a cold cache: every request from a
 * new browser, and every forgery).
 *
 * Run: deno bench bench/session/signer_bench.ts
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createSigner } from "../../session/_signer.ts";

const SECRET = "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const signer = createSigner([SECRET]);
const rotated = createSigner(["another-secret-0123456789abcdefghijkl", SECRET]);

// Inputs built before the timed loops.
const ids = Array.from(
  { length: 4096 },
  () =>
    crypto.getRandomValues(new Uint8Array(18)).toBase64({
      alphabet: "base64url",
      omitPadding: true,
    }),
);
// A cookie-storage payload: base64url of a small record, about 160 bytes.
const payload = btoa(JSON.stringify({
  i: ids[0],
  v: { userId: 42, role: "admin", theme: "dark" },
  e: Date.now() + 604800_000,
})).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
// Signed by another signer, so the cache of the one under test is cold.
const signedIds = ids.map((id) => createSigner([SECRET]).sign(id));

const forged = `${ids[0]}.${"A".repeat(42)}w`;
signer.unsign(signedIds[0]);

let next = 0;

Deno.bench("sign a session id", { group: "sign", baseline: true }, () => {
  signer.sign(ids[next++ % ids.length]);
});

Deno.bench("sign a cookie-storage payload", { group: "sign" }, () => {
  signer.sign(payload);
});

// 4096 strings in turn, more than the verified-string cache holds (2 x 512):
// every call computes the HMAC.
Deno.bench(
  "verify a session id, cold",
  { group: "verify", baseline: true },
  () => {
    signer.unsign(signedIds[next++ % signedIds.length]);
  },
);

Deno.bench(
  "verify with the second of two secrets, cold",
  { group: "verify" },
  () => {
    rotated.unsign(signedIds[next++ % signedIds.length]);
  },
);

Deno.bench("verify a forgery (never cached)", { group: "verify" }, () => {
  signer.unsign(forged);
});

Deno.bench("verify a session id, cached", { group: "verify" }, () => {
  signer.unsign(signedIds[0]);
});

// How the signer copies a keyed HMAC state: into one reused instance with
// noble's `_cloneInto` (what it does), or a fresh `clone()` per signature
// (noble's documented call), each followed by the HMAC of a session id.
const key = new TextEncoder().encode(SECRET);
const keyed = hmac.create(sha256, key);
const work = keyed.clone();
const idBytes = new TextEncoder().encode(ids[0]);

Deno.bench(
  "HMAC via _cloneInto(reused)",
  { group: "copy", baseline: true },
  () => {
    keyed._cloneInto(work).update(idBytes).digest();
  },
);

Deno.bench("HMAC via clone() (documented)", { group: "copy" }, () => {
  keyed.clone().update(idBytes).digest();
});
