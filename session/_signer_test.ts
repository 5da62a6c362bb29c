import assert from "node:assert/strict";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createSigner } from "./_signer.ts";
import { fromBase64Url, toBase64Url } from "../runtime/base64.ts";

Deno.test("sign then unsign gives the value back", async () => {
  const signer = createSigner(["one"]);
  const signed = await signer.sign("hello");
  assert.match(signed, /^hello\.[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(await signer.unsign(signed), { value: "hello", index: 0 });
  // A fresh signer (no cache) recomputes the HMAC and compares.
  assert.deepEqual(await createSigner(["one"]).unsign(signed), {
    value: "hello",
    index: 0,
  });
});

Deno.test("the HMAC is the standard HMAC-SHA256 of the value", async () => {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode("one"),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = toBase64Url(
    new Uint8Array(
      await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("hello")),
    ),
  );
  assert.equal(await createSigner(["one"]).sign("hello"), `hello.${mac}`);
});

Deno.test("rotation: the first secret signs, every secret verifies", async () => {
  const old = await createSigner(["old"]).sign("v");
  const rotated = createSigner(["new", "old"]);
  assert.deepEqual(await rotated.unsign(old), { value: "v", index: 1 });
  const resigned = await rotated.sign("v");
  assert.deepEqual(await createSigner(["new"]).unsign(resigned), {
    value: "v",
    index: 0,
  });
  assert.equal(await createSigner(["new"]).unsign(old), null);
});

Deno.test("tampered or malformed input is null, never an exception", async () => {
  const signer = createSigner(["one"]);
  const signed = await signer.sign("hello");
  for (
    const bad of [
      "",
      "hello",
      "hello.",
      `jello${signed.slice(5)}`,
      `${signed.slice(0, -1)}${signed.at(-1) === "A" ? "B" : "A"}`,
      `${signed}=`,
      `hello.${"!".repeat(43)}`,
      `hello.${"A".repeat(43)}`,
    ]
  ) {
    assert.equal(await signer.unsign(bad), null, bad);
  }
});

Deno.test("signer: signatures equal Web Crypto's HMAC-SHA256 for many values", async () => {
  const secret = "rotate-me-\u00e9-secret";
  const signer = createSigner([secret]);
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  for (
    const value of [
      "",
      "a",
      "x".repeat(55),
      "y".repeat(64),
      "z".repeat(1000),
      "\u00e9\u{1F600}",
    ]
  ) {
    const expected = toBase64Url(
      new Uint8Array(
        await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(value)),
      ),
    );
    assert.equal(await signer.sign(value), `${value}.${expected}`);
  }
});

Deno.test("signer: only the canonical text of a signature verifies", async () => {
  const signed = await createSigner(["k1"]).sign("value");
  const fresh = createSigner(["k1"]); // no cache of the signed string
  assert.deepEqual(await fresh.unsign(signed), { value: "value", index: 0 });
  const alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let accepted = 0;
  for (const char of alphabet) {
    const variant = signed.slice(0, -1) + char;
    if (
      variant !== signed &&
      (await createSigner(["k1"]).unsign(variant)) !== null
    ) accepted++;
  }
  assert.equal(accepted, 0, "no other last character is accepted");
});

Deno.test("signer: a signature changed in any one of its 32 bytes never verifies", async () => {
  const secret = "s".repeat(32);
  const signer = createSigner(["other-secret-".repeat(3), secret]);
  // Signed by a signer whose first secret is `secret`, so the cache of the
  // signer under test knows nothing of it.
  const signed = await createSigner([secret]).sign("value");
  const dot = signed.lastIndexOf(".");
  const bytes = fromBase64Url(signed.slice(dot + 1));
  for (let i = 0; i < 32; i++) {
    for (const bit of [0x01, 0x80]) {
      const changed = bytes.slice();
      changed[i] ^= bit;
      const forged = `value.${toBase64Url(changed)}`;
      assert.equal(await signer.unsign(forged), null, `byte ${i} ^ ${bit}`);
    }
  }
  // The untouched one verifies with the second secret.
  assert.deepEqual(await signer.unsign(signed), { value: "value", index: 1 });
});

// The signer copies a keyed HMAC state into one reused instance with noble's
// `_cloneInto(to)` (declared on its Hash interface, named like an internal),
// as the documented `clone()` is much slower. These checks fail when a
// release of @noble/hashes changes what the signer relies on.
Deno.test("signer: the @noble/hashes behavior it relies on still holds", () => {
  const key = new TextEncoder().encode("k".repeat(40));
  const keyed = hmac.create(sha256, key);
  const work = keyed.clone();
  assert.equal(typeof keyed._cloneInto, "function", "_cloneInto was removed");
  for (let n = 0; n < 130; n += 7) {
    const message = new Uint8Array(n).fill(n);
    // Into an instance that was already digested (finished, destroyed):
    // the same object comes back, usable, holding the keyed state.
    const into = keyed._cloneInto(work);
    assert.equal(into, work, "_cloneInto(to) returns `to`");
    assert.deepEqual(
      into.update(message).digest(),
      hmac(sha256, key, message),
      `HMAC of ${n} bytes`,
    );
    assert.throws(() => work.update(message), "a digested state is finished");
  }
  // The keyed state itself is untouched by the copies.
  assert.deepEqual(
    keyed.clone().update(new Uint8Array(3)).digest(),
    hmac(sha256, key, new Uint8Array(3)),
  );
});
