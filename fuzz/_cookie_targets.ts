// Fuzz targets for signed session cookies, through the storages' public
// `read`/`save`: any `Cookie` header is read without throwing, and a signed
// cookie that was altered in any way (a flipped character, a cut, extra
// characters, a signature from another cookie or with other spare bits) is
// never accepted: the session comes back new and empty.

import assert from "node:assert/strict";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { NASTY, type Rng } from "./_prng.ts";
import type { Target } from "./_run.ts";

const NAME = "sid";
const cookie = {
  name: NAME,
  secrets: ["fuzz-secret-".padEnd(40, "x"), "older-secret-".padEnd(40, "y")],
};
const storages: Record<string, SessionStorage> = {
  cookie: createCookieSessionStorage({ cookie }),
  memory: createMemorySessionStorage({ cookie }),
};
const B64 = [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
];
const COOKIE_CHARS = [...B64, ".", "%", "=", ";", " ", '"', ",", "\\", "~"];

/** A genuine signed cookie value carrying `user`. */
async function genuine(
  storage: SessionStorage,
  user: string,
): Promise<{ value: string; id: string }> {
  const session = await storage.read(null);
  session.set("user", user);
  const header = await storage.save(session);
  assert.ok(header !== null);
  const value = header.slice(NAME.length + 1, header.indexOf(";"));
  return { value, id: session.id };
}

/** The values named `sid` in a header, read as RFC 6265 says. */
function sent(header: string): string[] {
  return header.split(";").flatMap((pair) => {
    const eq = pair.indexOf("=");
    if (eq === -1 || pair.slice(0, eq).trim() !== NAME) return [];
    const value = pair.slice(eq + 1).trim();
    return [
      value.length >= 2 && value[0] === '"' && value.at(-1) === '"'
        ? value.slice(1, -1)
        : value,
    ];
  });
}

function alter(rng: Rng, value: string, other: string): string {
  const at = rng.int(value.length);
  switch (rng.int(7)) {
    case 0: {
      let char = rng.pick(B64);
      while (char === value[at]) char = rng.pick(B64);
      return value.slice(0, at) + char + value.slice(at + 1);
    }
    case 1:
      return value.slice(0, at);
    case 2:
      return value.slice(0, at) + rng.text(4, COOKIE_CHARS) +
        rng.pick(B64) + value.slice(at);
    case 3: // another cookie's signature
      return value.slice(0, value.lastIndexOf(".")) +
        other.slice(other.lastIndexOf("."));
    case 4: { // the same signature bits, other spare bits in the last char
      const last = B64.indexOf(value.at(-1)!);
      return value.slice(0, -1) +
        B64[(last & ~3) | ((last + 1 + rng.int(3)) & 3)];
    }
    case 5: // another cookie's value under this signature
      return other.slice(0, other.lastIndexOf(".")) +
        value.slice(value.lastIndexOf("."));
    default:
      return value.toUpperCase() === value ? value + "A" : value.toUpperCase();
  }
}

function randomHeader(rng: Rng): string {
  switch (rng.int(3)) {
    case 0:
      return String.fromCharCode(...rng.bytes(rng.int(200)));
    case 1:
      return rng.text(100, [...NASTY, ...COOKIE_CHARS, `${NAME}=`, "; "]);
    default:
      return Array.from(
        { length: rng.int(6) },
        () =>
          `${rng.pick([NAME, "a", " sid", "SID"])}=${
            rng.text(60, COOKIE_CHARS)
          }`,
      ).join(rng.pick(["; ", ";", ","]));
  }
}

function cookieTarget(kind: string): Target {
  const storage = storages[kind];
  return {
    name: `cookie-${kind}`,
    async check(rng) {
      const user = "ada-" + rng.u32();
      const real = await genuine(storage, user);
      const other = await genuine(storage, "eve-" + rng.u32());
      let header: string;
      if (rng.chance(0.3)) header = randomHeader(rng);
      else {
        const forged = alter(rng, real.value, other.value);
        header = rng.chance(0.7)
          ? `${NAME}=${forged}`
          : `a=1; ${NAME}=${forged}; b=${rng.text(10, COOKIE_CHARS)}`;
      }
      const session = await storage.read(header); // must not throw
      if (sent(header).includes(real.value)) return; // not altered after all
      assert.notEqual(session.get("user"), user, `accepted ${header}`);
      assert.notEqual(session.id, real.id, `adopted the id: ${header}`);
    },
  };
}

export const cookieTargets: readonly Target[] = [
  cookieTarget("cookie"),
  cookieTarget("memory"),
];
