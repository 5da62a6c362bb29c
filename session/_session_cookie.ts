/**
 * The signed session cookie: options checked once, then read and write.
 *
 * @module
 */

import {
  type CookieAttributes,
  getCookieValues,
  isCookieDomain,
  isCookieName,
  isCookiePath,
  isCookieValue,
  serializeCookie,
} from "./_cookie.ts";
import { createSigner, type Signer } from "./_signer.ts";
import type { SessionCookieOptions } from "./storage.ts";

/** Server-side lifetime of a browser-session cookie's data. */
const DEFAULT_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** A verified cookie value. */
export interface CookieRead {
  value: string;
  /** Verified with an older secret: send it again signed with the first. */
  resign: boolean;
}

/** The session cookie of one storage. */
export interface SessionCookie {
  readonly name: string;
  /** The raw values of the cookie in a `Cookie` header, to try in order. */
  candidates(header: string | null): string[];
  /** Verifies one raw value; `null` when tampered or malformed. */
  verify(raw: string): CookieRead | null;
  /** When data saved now expires, in milliseconds since the epoch. */
  expiresAt(): number;
  /** A `Set-Cookie` value carrying `value`, signed. */
  serialize(value: string): string;
  /** A `Set-Cookie` value that deletes the cookie. */
  expire(): string;
}

/** A signed session id: 24 characters, `.`, a 43-character signature. */
export const SIGNED_ID_LENGTH = 24 + 1 + 43;

/** Shortest secret accepted without `allowShortSecrets`. */
const MIN_SECRET_LENGTH = 32;

/** The one command the docs and errors give for making a secret. */
const MAKE_SECRET =
  'deno eval "console.log(crypto.randomUUID() + crypto.randomUUID())"';

/**
 * Throws a `TypeError` unless `secrets` is a non-empty array of non-empty
 * strings, naming the entry that is not: most often an environment
 * variable that was never exported.
 */
function checkSecrets(secrets: unknown): asserts secrets is string[] {
  const rule = "a non-empty array of non-empty strings";
  if (!Array.isArray(secrets)) {
    const hint = typeof secrets === "string"
      ? "; put it in an array: [secret]"
      : secrets === undefined
      ? "; is SESSION_SECRET exported?"
      : "";
    throw new TypeError(
      `Session cookie needs \`secrets\`: ${rule}, got ${
        describe(secrets)
      }${hint}`,
    );
  }
  if (secrets.length === 0) {
    throw new TypeError(
      `Session cookie needs \`secrets\`: ${rule}, got an empty array`,
    );
  }
  for (let i = 0; i < secrets.length; i++) {
    const secret: unknown = secrets[i];
    if (typeof secret === "string" && secret !== "") continue;
    const what = secret === undefined
      ? "is undefined: is SESSION_SECRET exported?"
      : secret === ""
      ? "is empty: is SESSION_SECRET set?"
      : `is ${describe(secret)}, not a string`;
    throw new TypeError(
      `Session cookie secrets[${i}] ${what} (secrets must be ${rule})`,
    );
  }
}

/** A short description of a wrong value, never the value of a secret. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

/**
 * Checks `options` and creates the cookie; throws `TypeError` when invalid.
 * `maxValueLength` is the longest signed value the storage can have
 * written: a longer one is refused before it is looked up or hashed (V8
 * hashes strings over 16,383 characters by their length alone, so long
 * values of one length all collide in the signer's cache, and an HMAC
 * over them is wasted work).
 */
export function createSessionCookie(
  options: SessionCookieOptions,
  maxValueLength: number,
): SessionCookie {
  if (options === null || typeof options !== "object") {
    throw new TypeError("Session storage needs a `cookie` options object");
  }
  const name = options.name ?? "__session";
  if (!isCookieName(name)) {
    throw new TypeError(`Invalid session cookie name: ${JSON.stringify(name)}`);
  }
  const { secrets } = options;
  checkSecrets(secrets);
  if (options.allowShortSecrets !== true) {
    const short = secrets.findIndex((secret) =>
      secret.length < MIN_SECRET_LENGTH
    );
    if (short !== -1) {
      throw new TypeError(
        `Session cookie secrets[${short}] has ${
          secrets[short].length
        } characters; at least ${MIN_SECRET_LENGTH} are required, long and ` +
          `random: make one with ${MAKE_SECRET}; ` +
          "`allowShortSecrets: true` allows shorter ones in tests",
      );
    }
  }
  const attributes = cookieAttributes(name, options);
  if (!attributes.httpOnly) {
    console.warn(
      `Session cookie "${name}" has httpOnly: false; scripts can read it`,
    );
  }
  const { maxAge, expires } = options;
  const signer: Signer = createSigner(secrets);
  // The attributes never change: check and serialize them once.
  const suffix = serializeCookie(name, "", attributes).slice(name.length + 1);
  const expired = serializeCookie(name, "", {
    ...attributes,
    maxAge: 0,
    expires: new Date(0),
  });

  return {
    name,
    candidates(header) {
      return getCookieValues(header, name);
    },
    verify(raw) {
      if (raw.length > maxValueLength) return null;
      const unsigned = signer.unsign(raw);
      return unsigned === null
        ? null
        : { value: unsigned.value, resign: unsigned.index !== 0 };
    },
    expiresAt() {
      const now = Date.now();
      let at = maxAge !== undefined
        ? now + maxAge * 1000
        : expires === undefined
        ? now + DEFAULT_LIFETIME_MS
        : Infinity;
      if (expires !== undefined) at = Math.min(at, expires.getTime());
      return at;
    },
    serialize(value) {
      const signed = signer.sign(value);
      if (!isCookieValue(signed)) {
        throw new TypeError(`Invalid value for cookie ${name}`);
      }
      return `${name}=${signed}${suffix}`;
    },
    expire() {
      return expired;
    },
  };
}

function cookieAttributes(
  name: string,
  options: SessionCookieOptions,
): CookieAttributes {
  const {
    path = "/",
    domain,
    maxAge,
    expires,
    secure = false,
    httpOnly = true,
    partitioned = false,
  } = options;
  const sameSite = sameSiteOf(options.sameSite ?? "lax");
  if (!isCookiePath(path)) {
    throw new TypeError(`Invalid session cookie path: ${JSON.stringify(path)}`);
  }
  if (domain !== undefined && !isCookieDomain(domain)) {
    throw new TypeError(
      `Invalid session cookie domain: ${JSON.stringify(domain)}`,
    );
  }
  if (
    maxAge !== undefined &&
    !(typeof maxAge === "number" && Number.isInteger(maxAge) && maxAge > 0)
  ) {
    throw new TypeError(
      `Session cookie maxAge must be a whole number of seconds, at least 1, got ${maxAge}`,
    );
  }
  if (
    expires !== undefined &&
    !(expires instanceof Date && Number.isFinite(expires.getTime()))
  ) {
    throw new TypeError("Session cookie expires must be a valid Date");
  }
  // Browsers drop these cookies when the conditions are not met; say so now
  // rather than leave a session that silently never sticks.
  if (sameSite === "None" && !secure) {
    throw new TypeError("Session cookie with sameSite: 'none' needs secure");
  }
  if (partitioned && !secure) {
    throw new TypeError("Partitioned session cookie needs secure");
  }
  if (name.startsWith("__Secure-") && !secure) {
    throw new TypeError(`Cookie ${name} needs secure: true`);
  }
  if (
    name.startsWith("__Host-") &&
    (!secure || path !== "/" || domain !== undefined)
  ) {
    throw new TypeError(
      `Cookie ${name} needs secure: true, path: "/" and no domain`,
    );
  }
  return {
    path,
    domain,
    maxAge,
    expires,
    secure,
    httpOnly,
    sameSite,
    partitioned,
  };
}

function sameSiteOf(value: string): "Strict" | "Lax" | "None" {
  switch (String(value).toLowerCase()) {
    case "lax":
      return "Lax";
    case "strict":
      return "Strict";
    case "none":
      return "None";
    default:
      throw new TypeError(
        `Session cookie sameSite must be "lax", "strict" or "none", got ${
          JSON.stringify(value)
        }`,
      );
  }
}
