// Property tests of signed session cookies on random bytes (see
// ../_tools/fuzz.ts): reading never throws on any Cookie header, and no
// forged or altered cookie value is ever accepted.

import assert from "node:assert/strict";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { fuzz, type Rng } from "../_tools/fuzz.ts";
import { createSigner } from "./_signer.ts";

const SECRET = "fuzz-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const cookie = { name: "sid", secrets: [SECRET], maxAge: 3600 };
const storages: [string, SessionStorage][] = [
  ["cookie", createCookieSessionStorage({ cookie })],
  ["memory", createMemorySessionStorage({ cookie })],
];

const HEADER_PIECES = [
  "sid=",
  "sid",
  "=",
  ";",
  "; ",
  " ",
  '"',
  ",",
  "%",
  "%zz",
  "%00",
  "\t",
  ".",
  "a",
  "Z",
  "0",
  "-",
  "_",
  "é",
  "\u00ff",
  "\uffff",
  "\ud800",
  "😀",
];

/** A random Cookie header: structured pieces or raw Latin-1 bytes. */
function randomHeader(rng: Rng): string {
  if (rng.chance(0.3)) {
    return String.fromCharCode(...rng.bytes(rng.int(0, 200)));
  }
  let out = "";
  const count = rng.int(0, 40);
  for (let i = 0; i < count; i++) out += rng.pick(HEADER_PIECES);
  return out;
}

const BASE64URL =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A value that differs from `value`: one edit of several kinds. */
function alter(rng: Rng, value: string): string {
  for (;;) {
    const at = rng.int(0, value.length - 1);
    let out: string;
    switch (rng.int(0, 5)) {
      case 0: // replace one character (signature or payload)
        out = value.slice(0, at) + rng.pick([...BASE64URL, ".", "%"]) +
          value.slice(at + 1);
        break;
      case 1: // truncate
        out = value.slice(0, at);
        break;
      case 2: // append
        out = value + rng.pick(["=", "A", ".", "%3D", "a.b"]);
        break;
      case 3: // drop one character
        out = value.slice(0, at) + value.slice(at + 1);
        break;
      case 4: { // payload of one cookie with another's signature
        const dot = value.lastIndexOf(".");
        out = rng.string(rng.int(1, 40), BASE64URL) + value.slice(dot);
        break;
      }
      default: // swap the case of a character
        out = value.slice(0, at) +
          (value[at] === value[at].toUpperCase()
            ? value[at].toLowerCase()
            : value[at].toUpperCase()) +
          value.slice(at + 1);
    }
    if (out !== value) return out;
  }
}

fuzz("session storages never throw on any Cookie header", 3000, async (rng) => {
  const header = randomHeader(rng);
  for (const [kind, storage] of storages) {
    const session = await storage.read(header);
    assert.equal(session.get("user"), undefined, `${kind}: ${header}`);
  }
});

fuzz("session storages never accept an altered cookie", 1500, async (rng) => {
  for (const [kind, storage] of storages) {
    const session = await storage.read(null);
    session.set("user", rng.int(1, 1e9));
    const setCookie = (await storage.save(session))!;
    const value = setCookie.slice("sid=".length, setCookie.indexOf(";"));
    const altered = alter(rng, value);
    const read = await storage.read(`sid=${altered}`);
    assert.equal(
      read.get("user"),
      undefined,
      `${kind}: accepted ${altered} (signed ${value})`,
    );
    // The unaltered value still works, so the check above can fail.
    assert.equal(
      (await storage.read(`sid=${value}`)).get("user"),
      session.get("user"),
    );
  }
});

const signer = createSigner([SECRET]);
const other = createSigner(["another-secret-0123456789abcdefghijklmnop"]);

fuzz("the signer verifies only what it signed", 3000, async (rng) => {
  const value = rng.string(rng.int(0, 30), [...BASE64URL, ".", "é", "%"]);
  const signed = await signer.sign(value);
  assert.deepEqual(await signer.unsign(signed), { value, index: 0 });
  const altered = alter(rng, signed);
  const result = await signer.unsign(altered);
  assert.equal(result, null, `accepted ${altered} (signed ${signed})`);
  assert.equal(await other.unsign(signed), null, "another secret verifies");
  // Random strings never verify (and never throw).
  assert.equal(await signer.unsign(randomHeader(rng)), null);
});
